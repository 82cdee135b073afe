#!/usr/bin/env python3
"""A warm-up-heavy loop (issue #39): a ResNet-18 trained with torch.backends.cudnn.benchmark on
images whose size changes over the first 10 steps (multi-resolution training), then cycles
through the first 4 sizes. cuDNN autotunes every new shape, so steps 0-9 are long and the
steps 3-7 that `record`'s default --capture auto leaves unrecorded are no baseline for the
recording's cost: the report must say so and estimate it instead.

    python3 autotune_cnn.py        # plain (the program has no twin)

torchvision resnet18 (no weights), bf16 autocast, channels_last, SGD, batch 64, sizes 96-240.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

SIZES = dict(batch=64, sizes=(96, 112, 128, 144, 160, 176, 192, 208, 224, 240), cycle=4)
TINY = dict(batch=2, sizes=(32, 40, 48), cycle=2)


def size_of(step, s):
    n = len(s["sizes"])
    return s["sizes"][step] if step < n else s["sizes"][(step - n) % s["cycle"]]


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=60, warmup=0)
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    s = TINY if args.tiny else SIZES
    import torchvision
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=100).to(dev).to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    data = {px: (torch.randn(s["batch"], 3, px, px, device=dev).to(memory_format=torch.channels_last),
                 torch.randint(0, 100, (s["batch"],), device=dev)) for px in s["sizes"]}
    clock = H.Clock(args, dev)
    loss = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        x, y = data[size_of(step, s)]
        opt.zero_grad(set_to_none=True)
        with torch.autocast(dev.type, dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        clock.step()
    clock.stop()
    H.finish(args, "autotune_cnn", clock, planted=None, fix=None, sizes=s,
             final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
