#!/usr/bin/env python3
"""An image classifier trained the way torchvision's and timm's reference scripts do it: a
model by name (torchvision.models or timm, no weights), a DataLoader over an image data set
(JPEG decode + random resized crop + flip + normalise per sample, or decoded images in memory,
or batches made on the GPU), cross-entropy, SGD or AdamW, a running loss.

    python3 vision.py --arch torchvision:resnet18 --data tensors --workers 6 --bf16
    python3 vision.py --arch timm:vit_small_patch16_224 --data gpu --optim adamw

What is planted is what the arguments leave out (the zoo's table says which): --pin, --bf16,
--channels-last, --no-sync (a loss.item() every step otherwise), enough --workers,
--fused-optim, --compile.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402  (first: harness notes the process start)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import data as D  # noqa: E402

FLAGS = ("workers", "pin", "bf16", "compile", "channels_last", "no_sync", "fused_optim")
TINY = dict(batch=2, img=32, src=40, classes=10)


def cnn4(classes, width=64):
    """4 conv-BatchNorm-ReLU blocks (widths w, 2w, 4w, 4w), two max-pools, a linear head."""
    import torch.nn as nn

    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]
    w = width
    return nn.Sequential(*block(3, w), *block(w, 2 * w), nn.MaxPool2d(2), *block(2 * w, 4 * w),
                         nn.MaxPool2d(2), *block(4 * w, 4 * w), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(4 * w, classes))


def make_model(arch, classes, tiny, img=224):
    """torchvision:NAME, timm:NAME (no weights; a ViT built for img) or zoo:cnn4."""
    lib, _, name = arch.partition(":")
    if lib == "zoo":
        return cnn4(classes, 8 if tiny else 64)
    if lib == "timm":
        timm = C.need("timm")
        kw = {}
        if name.startswith(("vit", "deit")):
            kw = dict(img_size=img, depth=2) if tiny else dict(img_size=img)
        return timm.create_model(name, pretrained=False, num_classes=classes, **kw)
    tv = C.need("torchvision")
    return getattr(tv.models, name)(weights=None, num_classes=classes)


def batches(args, size, dev):
    """An endless iterator of (images, labels) batches for --data."""
    total = (args.warmup + args.steps + 8) * size["batch"]
    if args.data == "gpu":
        gen = torch.Generator().manual_seed(0)
        fixed = [(torch.randn(size["batch"], 3, size["img"], size["img"], generator=gen),
                  torch.randint(0, size["classes"], (size["batch"],), generator=gen))
                 for _ in range(2)]
        fixed = [C.to_device(b, dev, args) for b in fixed]
        return C.endless(fixed)
    if args.data == "jpeg":
        C.need("torchvision")
        ds = D.JpegImages(total, size["src"], size["img"], size["classes"])
    else:
        ds = D.ImageTensors(total, size["src"], size["img"], size["classes"])
    return C.endless(C.loader(ds, size["batch"], args))


def main():
    ap = C.parser(__doc__, FLAGS)
    ap.add_argument("--arch", default="torchvision:resnet18", help="torchvision:NAME, timm:NAME or zoo:cnn4")
    ap.add_argument("--data", default="jpeg", choices=["jpeg", "tensors", "gpu"])
    ap.add_argument("--optim", default="sgd", choices=["sgd", "adamw"])
    for key, value in (("batch", 128), ("img", 160), ("src", 192), ("classes", 1000)):
        ap.add_argument("--" + key, type=int, default=value)
    args, dev = C.setup(ap)
    size = TINY if args.tiny else {k: getattr(args, k) for k in TINY}
    model = C.prepare_model(make_model(args.arch, size["classes"], args.tiny, size["img"]), args, dev)
    if args.optim == "sgd":
        opt = C.optimizer("SGD", model.parameters(), args, dev, lr=0.05, momentum=0.9)
    else:
        opt = C.optimizer("AdamW", model.parameters(), args, dev, lr=1e-3)
    step = C.supervised_step(C.compile_model(model, args, dev), opt, F.cross_entropy, args, dev)
    clock, losses = C.train(args, dev, batches(args, size, dev), step)
    C.finish(args, "vision", clock, losses, planted=None, arch=args.arch, data=args.data,
             sizes=size, parameters=sum(p.numel() for p in model.parameters()))


if __name__ == "__main__":
    main()
