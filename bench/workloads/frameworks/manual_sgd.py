#!/usr/bin/env python3
"""A training loop that marks no steps: the update is written by hand (no torch.optim), so the
Python shim sees no optimizer.step() and `record`'s default --capture auto has no step 8 to
open its window at (issue #39). The loop still calls backward() every step: the shim's
backward ticks open the window after 32 of them.

    python3 manual_sgd.py            # plain (the program has no twin)

A 6-block narrow MLP (bench/workloads/frameworks/nets.py) on batches that live on the GPU;
SGD with momentum written as in-place tensor updates under torch.no_grad().
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402  (first: it notes the process start)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import nets  # noqa: E402

SIZES = dict(d=512, blocks=6, classes=100, batch=1024, lr=1e-2, momentum=0.9)
TINY = dict(d=32, blocks=2, classes=10, batch=8, lr=1e-2, momentum=0.9)


def sgd_update(params, bufs, lr, momentum):
    with torch.no_grad():
        for p, b in zip(params, bufs):
            b.mul_(momentum).add_(p.grad)
            p.add_(b, alpha=-lr)
            p.grad = None


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=80, warmup=5)
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    size = TINY if args.tiny else SIZES
    torch.manual_seed(0)
    model = nets.narrow_mlp(size["d"], size["blocks"], size["classes"]).to(dev)
    params = list(model.parameters())
    bufs = [torch.zeros_like(p) for p in params]
    batches = nets.synthetic_batches(4, size["batch"], size["d"], size["classes"], dev)
    clock = H.Clock(args, dev)
    loss = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        x, y = batches[step % len(batches)]
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        sgd_update(params, bufs, size["lr"], size["momentum"])
        clock.step()
    clock.stop()
    H.finish(args, "manual_sgd", clock, planted=None, fix=None, parameters=len(params),
             sizes=size, final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
