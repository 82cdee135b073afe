"""Overhead benchmark workloads: a launch-bound small CNN, a GPU-bound bf16 model, and
`launch`: LAUNCHES_PER_STEP one-element in-place adds per step (one tiny kernel each, nothing
else), so (ms/step recorded - ms/step plain) / LAUNCHES_PER_STEP is the per-launch cost of the
instrumentation, the calibration the analysis discounts (src/analysis/ssa_findings.c).

Each run trains for --steps steps after --warmup steps on synthetic data that lives on the
GPU (so the only host work is launching), and prints one JSON line:
{"workload":..., "ms_per_step":..., "steps":..., "windows_ms": [...]}. The timed steps are
split into --windows equal windows, each with one synchronize before and after it; ms/step is
the median of the windows' ms/step, so that a burst of interference from outside the program
(the VM's other tenants) moves one window rather than the whole figure. ms_per_step_all is the
plain total over all timed steps.

--torch-profiler wraps the timed steps in torch.profiler (CPU + CUDA activities), the way
users run it, so that its overhead is measured on the same program.
"""
import argparse
import json
import os
import statistics
import time

import torch
import torch.nn as nn


def small_cnn():
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


def gpu_bound():
    d = 4096
    return nn.Sequential(*[nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
                           for _ in range(4)])


LAUNCHES_PER_STEP = 100


class TinyLaunches(nn.Module):
    """A "model" whose step is LAUNCHES_PER_STEP kernel launches and no other GPU work. Its
    one parameter stays on the CPU and never gets a gradient: optimizer.step() skips it, but
    it marks the step for stepscope's Python shim (so --capture steps:A-B works)."""

    def __init__(self):
        super().__init__()
        self.marker = nn.Parameter(torch.zeros(1))  # never used: its grad stays None

    def forward(self, x):
        for _ in range(LAUNCHES_PER_STEP):
            x.add_(1.0)
        return x


def make(workload, device):
    if workload == "launch":
        x = torch.zeros(1, device=device)
        return TinyLaunches(), x, x, None, False  # the model stays on the CPU: see its doc
    if workload == "cnn":
        model = small_cnn().to(device)
        x = torch.randn(32, 3, 32, 32, device=device)
        y = torch.randint(0, 10, (32,), device=device)
        return model, x, y, nn.CrossEntropyLoss(), False
    model = gpu_bound().to(device)
    x = torch.randn(8192, 4096, device=device)
    return model, x, x, nn.MSELoss(), True


def train_step(model, opt, x, y, loss_fn, bf16):
    if loss_fn is None:  # the launch workload: launches, then the step mark
        model(x)
        opt.step()
        return
    opt.zero_grad(set_to_none=True)
    with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
        loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", choices=["cnn", "gpu", "launch"], default="cnn")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--windows", type=int, default=1)
    ap.add_argument("--pin-main", action="store_true",
                    help="after warm-up, pin the main thread alone to the first allowed core")
    ap.add_argument("--torch-profiler", action="store_true")
    args = ap.parse_args()
    device = "cuda"
    model, x, y, loss_fn, bf16 = make(args.workload, device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    for _ in range(args.warmup):
        train_step(model, opt, x, y, loss_fn, bf16)
    if args.pin_main and hasattr(os, "sched_setaffinity"):
        # Only the calling thread: CUDA's and the collector's threads, created before, keep
        # the wider set. Where the launching thread lands set the step time of the CNN by
        # up to 45 % between otherwise identical runs (docs/performance.md).
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    prof = None
    if args.torch_profiler:
        acts = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        prof = torch.profiler.profile(activities=acts)
        prof.__enter__()
    windows = max(1, min(args.windows, args.steps))
    per = [args.steps // windows + (1 if i < args.steps % windows else 0) for i in range(windows)]
    window_ms = []
    total = 0.0
    for n in per:
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(n):
            train_step(model, opt, x, y, loss_fn, bf16)
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - t0
        total += elapsed
        window_ms.append(1000.0 * elapsed / n)
    if prof is not None:
        prof.__exit__(None, None, None)
    print(json.dumps({"workload": args.workload, "steps": args.steps,
                      "ms_per_step": statistics.median(window_ms),
                      "ms_per_step_all": 1000.0 * total / args.steps,
                      "windows_ms": [round(w, 4) for w in window_ms]}), flush=True)


if __name__ == "__main__":
    main()
