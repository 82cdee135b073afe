"""gpu_prog.py — the CUDA program of the fault matrix's GPU rows (gpu_faults.sh, H200 only).

    python3 gpu_prog.py loop SECONDS READY   matmuls on the GPU, a sync per step, for SECONDS;
                                             writes READY (pid) after the first steps; Ctrl-C
                                             (KeyboardInterrupt) prints "interrupted", exits 5
    python3 gpu_prog.py abort TIMEFILE       2 s of steps, the CLOCK_REALTIME ns into TIMEFILE,
                                             os.abort()
    python3 gpu_prog.py exit TIMEFILE        the same, then os._exit(3)
    python3 gpu_prog.py profiler             torch.profiler records 5 steps in the middle of 30;
                                             prints whether it saw CUDA kernels; exits 0
    python3 gpu_prog.py dataloader           DataLoader(num_workers=16) feeding the GPU; prints
                                             the number of batches; exits 0
Stdout is deterministic: gpu_faults.sh compares it with and without stepscope.
"""
import os
import sys
import time

import torch


def step(a, b):
    c = a @ b
    torch.cuda.synchronize()
    return c


def tensors():
    a = torch.randn(1024, 1024, device="cuda")
    return a, torch.randn(1024, 1024, device="cuda")


def run_loop(seconds, ready):
    a, b = tensors()
    try:
        for _ in range(20):
            step(a, b)
        with open(ready + ".tmp", "w") as f:
            f.write(f"{os.getpid()}\n")
        os.rename(ready + ".tmp", ready)
        t0 = time.monotonic()
        while time.monotonic() - t0 < seconds:
            step(a, b)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(5)
    print("loop done", flush=True)


def before_fault(timefile):
    a, b = tensors()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 2.0:
        step(a, b)
    with open(timefile, "w") as f:
        f.write(f"{time.time_ns()}\n")


def run_profiler():
    a, b = tensors()
    from torch.profiler import ProfilerActivity, profile

    for _ in range(10):
        step(a, b)
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(5):
            step(a, b)
    for _ in range(15):
        step(a, b)
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    print(f"profiler saw CUDA kernels: {'yes' if kernels else 'no'}", flush=True)


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 640

    def __getitem__(self, i):
        return torch.full((256,), float(i))


def run_dataloader():
    loader = torch.utils.data.DataLoader(Squares(), batch_size=32, num_workers=16)
    n, total = 0, 0.0
    for batch in loader:
        total += float(batch.cuda().sum().item())
        n += 1
    print(f"batches {n} sum {total:.0f}", flush=True)


def main():
    mode = sys.argv[1]
    if mode == "loop":
        run_loop(float(sys.argv[2]), sys.argv[3])
    elif mode == "abort":
        before_fault(sys.argv[2])
        print("about to abort", flush=True)
        os.abort()
    elif mode == "exit":
        before_fault(sys.argv[2])
        print("about to _exit", flush=True)
        os._exit(3)
    elif mode == "profiler":
        run_profiler()
    elif mode == "dataloader":
        run_dataloader()
    else:
        sys.exit(f"gpu_prog: unknown mode {mode}")


if __name__ == "__main__":
    main()
