#!/usr/bin/env python3
"""HELD OUT (nobody tunes stepscope on it; see ../README.md): torchvision ResNet-50 (built by
its constructor, weights=None) in bf16 autocast and channels_last, fed by a DataLoader whose
Dataset applies torchvision's RandomResizedCrop + RandomHorizontalFlip to uint8 images.

    python3 heldout_resnet50.py         # planted: DataLoader(num_workers=0)
    python3 heldout_resnet50.py --fix   # DataLoader(num_workers=6, pin_memory=True,
                                        # persistent_workers=True, prefetch_factor=4)

Images (160 px, uint8, in memory) are cropped and resized to 128 px per sample on the CPU,
moved to the GPU as uint8 (non_blocking) and normalised there. SGD with momentum, batch 64.
The main process uses 4 intra-op threads in both twins (as train.py's JPEG workload does: per-
sample torch ops over every core of a large shared host make a run's time swing).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

SIZES = dict(batch=64, src=160, img=128, classes=1000, workers=6, pool=32)
TINY = dict(batch=2, src=40, img=32, classes=10, workers=2, pool=4)
INTRAOP_THREADS = 4


class AugmentedImages(torch.utils.data.Dataset):
    def __init__(self, length, size, transform):
        gen = torch.Generator().manual_seed(0)
        self.pool = torch.randint(0, 256, (size["pool"], 3, size["src"], size["src"]),
                                  generator=gen, dtype=torch.uint8)
        self.labels = torch.randint(0, size["classes"], (size["pool"],), generator=gen)
        self.length, self.transform = length, transform

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        torch.manual_seed(i)  # the crop of sample i is the same in both twins
        k = i % len(self.pool)
        return self.transform(self.pool[k]), int(self.labels[k])


def imports():
    try:
        import torchvision
        from torchvision.transforms import v2
    except ImportError:
        H.skip("torchvision not installed")
    return torchvision, v2


def make_loader(size, total, args, v2):
    transform = v2.Compose([v2.RandomResizedCrop(size["img"], antialias=True),
                            v2.RandomHorizontalFlip()])
    data = AugmentedImages(total * size["batch"], size, transform)
    if not args.fix:
        return torch.utils.data.DataLoader(data, batch_size=size["batch"], num_workers=0)
    return torch.utils.data.DataLoader(data, batch_size=size["batch"],
                                       num_workers=size["workers"], pin_memory=True,
                                       persistent_workers=True, prefetch_factor=4)


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=40, warmup=8)
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    torchvision, v2 = imports()
    if torch.get_num_threads() > INTRAOP_THREADS:
        torch.set_num_threads(INTRAOP_THREADS)
    size = TINY if args.tiny else SIZES
    total = args.warmup + args.steps
    torch.manual_seed(0)
    model = torchvision.models.resnet50(weights=None, num_classes=size["classes"])
    model = model.to(dev, memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    mean = torch.tensor([0.485, 0.456, 0.406], device=dev).view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225], device=dev).view(1, 3, 1, 1) * 255
    clock = H.Clock(args, dev)
    loss = None
    for step, (x, y) in enumerate(make_loader(size, total, args, v2)):
        if step == args.warmup:
            clock.start()
        x = x.to(dev, non_blocking=True)
        y = y.to(dev, non_blocking=True)
        x = ((x.float() - mean) / std).contiguous(memory_format=torch.channels_last)
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=dev.type, dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        clock.step()
    clock.stop()
    H.finish(args, "heldout_resnet50", clock,
             planted="DataLoader(num_workers=0): RandomResizedCrop + flip per sample in the "
                     "training process",
             fix="DataLoader(num_workers=%d, pin_memory=True, persistent_workers=True, "
                 "prefetch_factor=4)" % size["workers"],
             held_out=True, sizes=size, final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
