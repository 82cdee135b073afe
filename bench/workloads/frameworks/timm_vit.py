#!/usr/bin/env python3
"""timm ViT-S/16 (vit_small_patch16_224, built from its config: no weights), trained on
synthetic images that live on the GPU, batch 96.

    python3 timm_vit.py --fix   # bf16 autocast (the program of the 2026-12-01 overhead table)
    python3 timm_vit.py         # planted: no mixed precision, fp32 GEMMs without TF32

AdamW (foreach, torch's default), cross-entropy over 1000 classes, channels-first input.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

SIZES = dict(batch=96, img=224, classes=1000, kwargs={})
# timm builds a ViT-S at any image size and depth: 2 blocks on 32 px keep the CPU test fast.
TINY = dict(batch=2, img=32, classes=10, kwargs=dict(depth=2))


def make_model(size):
    try:
        import timm
    except ImportError:
        H.skip("timm not installed")
    return timm.create_model("vit_small_patch16_224", pretrained=False,
                             num_classes=size["classes"], img_size=size["img"],
                             **size["kwargs"])


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=40, warmup=8)
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    size = TINY if args.tiny else SIZES
    if not args.fix:
        # fp32 as a user without mixed precision gets it: no TF32 either (torch's default)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    torch.manual_seed(0)
    model = make_model(size).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    gen = torch.Generator().manual_seed(0)
    batches = [(torch.randn(size["batch"], 3, size["img"], size["img"], generator=gen).to(dev),
                torch.randint(0, size["classes"], (size["batch"],), generator=gen).to(dev))
               for _ in range(2)]
    amp = dict(device_type=dev.type, dtype=torch.bfloat16, enabled=args.fix)
    clock = H.Clock(args, dev)
    loss = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        x, y = batches[step % len(batches)]
        opt.zero_grad(set_to_none=True)
        with torch.autocast(**amp):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        clock.step()
    clock.stop()
    H.finish(args, "timm_vit", clock,
             planted="no mixed precision: fp32 GEMMs, TF32 off",
             fix="torch.autocast(dtype=torch.bfloat16)", sizes={k: v for k, v in size.items()},
             parameters=sum(p.numel() for p in model.parameters()),
             final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
