import time, torch
x = torch.randn(1024, 1024, device="cuda")
def work(sec):
    end = time.time() + sec
    while time.time() < end:
        for _ in range(20): y = x @ x
        torch.cuda.synchronize()
work(3)
print("WINDOW_START_NS", time.monotonic_ns(), flush=True)
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                        torch.profiler.ProfilerActivity.CUDA]) as p:
    work(2)
print("WINDOW_END_NS", time.monotonic_ns(), flush=True)
ev = p.events()
cuda = [e for e in ev if e.device_type == torch.autograd.DeviceType.CUDA]
cpu = [e for e in ev if e.device_type == torch.autograd.DeviceType.CPU]
print("PROFILER_CUDA_EVENTS", len(cuda))
if cuda and cpu:
    # Same clock as its CPU events (a foreign timestamp callback would put them far away).
    lo = min(e.time_range.start for e in cpu) - 1e6
    hi = max(e.time_range.end for e in cpu) + 1e6
    print("PROFILER_CUDA_IN_WINDOW", sum(lo <= e.time_range.start <= hi for e in cuda))
work(3)
