#!/usr/bin/env python3
"""A long training run whose slowdowns show only over the whole run (issue #43).

    python3 whole_run.py --plant save      # torch.save(model) every 200 steps
    python3 whole_run.py --plant save --fix      # the twin: one save at the end
    python3 whole_run.py --plant drift     # per-sample losses kept, smoothed over all each step
    python3 whole_run.py --plant drift --fix     # the twin: a bounded window (deque)
    python3 whole_run.py --plant epochs    # persistent_workers=False over 100-step epochs
    python3 whole_run.py --plant epochs --fix    # the twin: persistent_workers=True
    python3 whole_run.py --plant none      # healthy: the cost benchmark's program

A ResNet-18 (torchvision, bf16 autocast, channels_last) on 64x64 images from a DataLoader with
4 workers that do real CPU work per sample (a random crop and a flip), pinned, non_blocking.
What each plant costs is measured as the bad twin's time against the fixed twin's, both plain,
over every step (step_ms_each says where the time went).
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402  (first: it notes the process start)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

SIZES = dict(batch=128, img=64, src=72, samples=128 * 100, workers=4, every=200)
TINY = dict(batch=4, img=16, src=20, samples=4 * 10, workers=2, every=20)


class Crops(torch.utils.data.Dataset):
    """Fixed random images; each item is a random crop and flip of one (CPU work per sample)."""

    def __init__(self, n, src, img):
        g = torch.Generator().manual_seed(0)
        self.images = torch.randint(0, 255, (64, 3, src, src), dtype=torch.uint8, generator=g)
        self.n, self.src, self.img = n, src, img

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        x = self.images[i % len(self.images)]
        o = (i * 7) % (self.src - self.img + 1)
        x = x[:, o:o + self.img, o:o + self.img].float().div_(255)
        if i % 2:
            x = x.flip(2)
        return x, i % 100


def loader(size, args):
    persistent = args.plant == "epochs" and args.fix or args.plant != "epochs"
    return torch.utils.data.DataLoader(
        Crops(size["samples"], size["src"], size["img"]), batch_size=size["batch"],
        shuffle=True, num_workers=size["workers"], pin_memory=args.device == "cuda",
        persistent_workers=persistent, drop_last=True)


class History:
    """The drift plant: every sample's loss kept, and the smoothed loss recomputed over all of
    them each step in Python (a list that grows by a batch a step: the step's host time grows
    with the run); the fix keeps a bounded window. Both twins read the losses back each step."""

    def __init__(self, bounded, window):
        self.values = collections.deque(maxlen=window) if bounded else []

    def add(self, losses):
        self.values.extend(losses)
        ema = 0.0
        for v in self.values:
            ema = 0.98 * ema + 0.02 * v
        return ema


def steps_of(dl, total):
    """Batches over as many epochs as `total` steps need (a new iterator each epoch, as a
    user's `for epoch in range(...)` loop makes)."""
    n = 0
    while n < total:
        for batch in dl:
            yield batch
            n += 1
            if n == total:
                return


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=1200, warmup=20)
    ap.add_argument("--plant", choices=["save", "drift", "epochs", "none"], default="none")
    ap.add_argument("--save-dir", default=os.environ.get("TMPDIR", "/tmp"))
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    size = TINY if args.tiny else SIZES
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.resnet18(num_classes=100).to(dev)
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    hist = History(bounded=args.fix, window=10 * size["batch"]) if args.plant == "drift" else None
    path = os.path.join(args.save_dir, "whole_run-%d.pt" % os.getpid())
    clock = H.Clock(args, dev)
    total = args.warmup + args.steps
    loss = None
    for step, (x, y) in enumerate(steps_of(loader(size, args), total)):
        if step == args.warmup:
            clock.start()
        x = x.to(dev, non_blocking=True).to(memory_format=torch.channels_last)
        y = y.to(dev, non_blocking=True)
        with torch.autocast(dev.type, dtype=torch.bfloat16):
            each = F.cross_entropy(model(x), y, reduction="none")
        loss = each.mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        if hist is not None:
            hist.add(each.detach().float().tolist())
        if args.plant == "save" and not args.fix and step % size["every"] == size["every"] - 1:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path)
        clock.step()
    clock.stop()
    if args.plant == "save":
        torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path)
        os.unlink(path)
    H.finish(args, "whole_run", clock, planted=None if args.plant == "none" else args.plant,
             fix={"save": "one save at the end", "drift": "a bounded window",
                  "epochs": "persistent_workers=True", "none": None}[args.plant],
             sizes=size, final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
