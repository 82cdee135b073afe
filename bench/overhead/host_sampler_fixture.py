#!/usr/bin/env python3
"""A short training program to record as a fixture with host stack samples (GPU machine).

A small CNN fed by a DataLoader with 2 workers and pin_memory=True (so the trace has the main
thread, the pin-memory thread and worker processes), a collate function with planted Python work
(`slow_collate`, ~2 ms per batch, in the workers) and a planted `.item()` every step
(`log_loss`), so the samples have known places to land. --compile wraps the model in
torch.compile (default mode) and changes the batch size for the last steps, which makes dynamo
recompile: the trace then has compile ranges, a `recompile:` mark and possibly graph breaks.

usage: stepscope record -o OUT -- python host_sampler_fixture.py [--steps 300] [--compile]
"""
import argparse
import time

import torch
import torch.nn as nn


class Images(torch.utils.data.Dataset):
    def __len__(self):
        return 1 << 20

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return torch.randn(3, 32, 32, generator=g), i % 10


def slow_collate(batch):
    end = time.perf_counter() + 0.002  # planted: ~2 ms of Python per batch
    while time.perf_counter() < end:
        pass
    xs, ys = zip(*batch)
    return torch.stack(xs), torch.tensor(ys)


def log_loss(loss):
    return loss.item()  # planted: one host sync per step


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--compile", action="store_true")
    args = ap.parse_args()
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).to(dev)
    step_model = torch.compile(model) if args.compile else model
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loaders = [torch.utils.data.DataLoader(Images(), batch_size=b, num_workers=2,
                                           pin_memory=dev == "cuda", collate_fn=slow_collate)
               for b in (64, 48)]
    its = [iter(dl) for dl in loaders]
    t0 = time.perf_counter()
    for step in range(args.steps):
        x, y = next(its[1 if args.compile and step >= args.steps - 50 else 0])
        x, y = x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        loss = nn.functional.cross_entropy(step_model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        log_loss(loss)
    print("steps %d in %.1f s" % (args.steps, time.perf_counter() - t0))


if __name__ == "__main__":
    main()
