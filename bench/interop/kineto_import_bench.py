#!/usr/bin/env python3
"""kineto_import_bench.py — speed and peak memory of `stepscope import` on a large synthetic
torch.profiler (Kineto) trace (issue #6). Too slow for CI: run by hand, put the numbers in
docs/performance.md with the date, machine and command.

    python3 bench/interop/kineto_import_bench.py BUILD_DIR [--events N] [--gzip] [--reps R]
                                                 [--work DIR] [--report]

Writes a Kineto-shaped JSON of about N events to WORK (default /tmp; deleted at the end),
laid out the way libkineto writes it: metadata, then every host event (cpu_op ranges with
args, ProfilerStep#N / DataLoader / Optimizer annotations) for the whole capture, then the
CUDA runtime calls interleaved with their kernels, copies and memsets and the ac2g flow pairs,
then thread metadata. Per step: 1 ProfilerStep, 1 DataLoader range, 2 optimizer annotations,
~40 % cpu_ops, ~20 % launches, ~20 % kernels, ~20 % flows, 2 H2D copies. Then runs
`stepscope import` R times (and `stepscope report` on its output with --report) under
/usr/bin/time -v: wall time, events/s (input events / wall time), input MB/s, peak RSS.
Prints median (min..max) per measure.
"""
import argparse
import gzip
import os
import statistics
import subprocess
import sys
import tempfile
import time

PID, TID, AUTOGRAD_TID = 4242, 4242, 4300
BASE_NS = 1790857026000000000
KERNELS = [
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
    "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_TNT",
    "void at::native::reduce_kernel<128, 4, at::native::ReduceOp<float, "
    "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()"
    "(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, 4> >"
    "(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::sum_functor"
    "<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
    "unsigned int, float, 4, 4>)",
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
    "at::native::CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add"
    "<float> const&)::{lambda(int)#1}>(int, at::native::gpu_kernel_impl_nocast<at::native::"
    "CUDAFunctor_add<float> >(at::TensorIteratorBase&, at::native::CUDAFunctor_add<float> "
    "const&)::{lambda(int)#1})",
]
OPS = ["aten::linear", "aten::addmm", "aten::relu", "aten::empty", "aten::copy_", "aten::mul",
       "autograd::engine::evaluate_function: AddmmBackward0", "aten::t", "aten::view"]


def us(ns):
    return "%d.%03d" % (ns // 1000, ns % 1000)


class Gen:
    """Writes the events of `steps` steps of `launches` kernel launches each."""

    def __init__(self, out, steps, launches):
        self.out, self.steps, self.launches = out, steps, launches
        self.step_ns = launches * 30000 + 2000000
        self.n = 0
        self.first = True

    def ev(self, text):
        self.out.write(("  " if self.first else ",\n  ") + text)
        self.first = False
        self.n += 1

    def header(self):
        self.out.write(
            '{\n  "schemaVersion": 1,\n  "deviceProperties": [{"id": 0, "name": "NVIDIA H200", '
            '"totalGlobalMem": 150109880320, "computeMajor": 9, "computeMinor": 0, '
            '"numSms": 132}],\n  "cuda_driver_version": 13000, "cuda_runtime_version": 13000,'
            '\n  "cupti_version": 130001, "displayTimeUnit": "ms",\n  "baseTimeNanoseconds": %d,'
            '\n  "traceEvents": [\n' % BASE_NS)

    def annotation(self, name, t, dur):
        self.ev('{"ph": "X", "cat": "user_annotation", "name": "%s", "pid": %d, "tid": %d, '
                '"ts": %s, "dur": %s, "args": {"External id": %d, "Record function id": 0}}'
                % (name, PID, TID, us(t), us(dur), self.n))

    def host_step(self, s):
        t0 = 5000000000000 + s * self.step_ns
        self.annotation("ProfilerStep#%d" % s, t0, self.step_ns - 1000)
        self.annotation("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                        t0 + 1000, 800000)
        for i in range(self.launches * 2):
            tid = AUTOGRAD_TID if i % 3 == 2 else TID
            self.ev('{"ph": "X", "cat": "cpu_op", "name": "%s", "pid": %d, "tid": %d, '
                    '"ts": %s, "dur": %s, "args": {"External id": %d, "Record function id": 0, '
                    '"Input Dims": [[64, 1024], [1024, 1024]], "Input type": ["float", "float"]'
                    ', "Ev Idx": %d}}' % (OPS[i % len(OPS)], PID, tid,
                                          us(t0 + 900000 + i * 14000), us(9000), self.n, i))
        self.annotation("Optimizer.zero_grad#SGD.zero_grad", t0 + self.step_ns - 900000, 50000)
        self.annotation("Optimizer.step#SGD.step", t0 + self.step_ns - 800000, 700000)

    def gpu_step(self, s):
        t0 = 5000000000000 + s * self.step_ns + 900000
        corr = s * (self.launches + 4) * 2
        for i in range(2):  # the batch: two H2D copies
            corr += 1
            self.api("cudaMemcpyAsync", 41, t0 + i * 5000, 4000, corr)
            self.ev('{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", '
                    '"pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"External id": %d, '
                    '"device": 0, "context": 1, "stream": 7, "correlation": %d, "bytes": '
                    '8388608, "memory bandwidth (GB/s)": 40.1}}'
                    % (us(t0 + 10000 + i * 200000), us(190000), self.n, corr))
        t = t0 + 500000
        for i in range(self.launches):
            corr += 1
            self.api("cudaLaunchKernel", 211, t, 6000, corr)
            self.ev('{"ph": "s", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", '
                    '"name": "ac2g"}' % (corr, PID, TID, us(t)))
            self.ev('{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %s, '
                    '"dur": %s, "args": {"External id": %d, "queued": 0, "device": 0, '
                    '"context": 1, "stream": 7, "correlation": %d, "registers per thread": 32, '
                    '"shared memory": 0, "blocks per SM": 1.5, "warps per SM": 6.0, "grid": '
                    '[800, 1, 1], "block": [128, 1, 1], "est. achieved occupancy %%": 12}}'
                    % (KERNELS[i % len(KERNELS)].replace('"', '\\"'), us(t + 8000), us(15000),
                       self.n, corr))
            self.ev('{"ph": "f", "id": %d, "pid": 0, "tid": 7, "ts": %s, "cat": "ac2g", '
                    '"name": "ac2g", "bp": "e"}' % (corr, us(t + 8000)))
            t += 30000

    def api(self, name, cbid, t, dur, corr):
        self.ev('{"ph": "X", "cat": "cuda_runtime", "name": "%s", "pid": %d, "tid": %d, '
                '"ts": %s, "dur": %s, "args": {"External id": %d, "cbid": %d, "correlation": '
                '%d}}' % (name, PID, TID, us(t), us(dur), self.n, cbid, corr))

    def trailer(self):
        for tid, name in ((TID, "python3"), (AUTOGRAD_TID, "pt_autograd_0")):
            self.ev('{"name": "thread_name", "ph": "M", "ts": 5000000000.000, "pid": %d, '
                    '"tid": %d, "args": {"name": "thread %d (%s)"}}' % (PID, tid, tid, name))
        self.out.write('\n  ],\n  "traceName": "bench"\n}\n')

    def run(self):
        self.header()
        for s in range(self.steps):
            self.host_step(s)
        for s in range(self.steps):
            self.gpu_step(s)
        self.trailer()


def generate(path, events, use_gzip):
    launches = 200
    per_step = 4 + 2 * launches + 2 * 2 + 4 * launches  # host + GPU section events
    steps = max(1, events // per_step)
    opener = (lambda p: gzip.open(p, "wt", compresslevel=1)) if use_gzip else \
        (lambda p: open(p, "w", buffering=1 << 20))
    with opener(path) as f:
        g = Gen(f, steps, launches)
        g.run()
    return g.n, steps


def timed(cmd):
    """Runs cmd under /usr/bin/time -v: (wall s, peak RSS KiB)."""
    t0 = time.monotonic()
    p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit("kineto_import_bench: %s failed:\n%s" % (" ".join(cmd), p.stderr[-2000:]))
    rss = [int(l.split()[-1]) for l in p.stderr.splitlines() if "Maximum resident" in l]
    return wall, rss[0] if rss else 0


def spread(v, fmt):
    return (fmt + " (" + fmt + ".." + fmt + ")") % (statistics.median(v), min(v), max(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build", help="build folder holding the stepscope binary")
    ap.add_argument("--events", type=int, default=10000000)
    ap.add_argument("--gzip", action="store_true", help="write and import a .json.gz")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--work", default=tempfile.gettempdir())
    ap.add_argument("--report", action="store_true", help="also time `stepscope report` on it")
    a = ap.parse_args()
    ss = os.path.join(a.build, "stepscope")
    if not os.access(ss, os.X_OK):
        sys.exit("kineto_import_bench: no %s (build it first)" % ss)
    work = tempfile.mkdtemp(prefix="kineto-bench-", dir=a.work)
    src = os.path.join(work, "trace.json" + (".gz" if a.gzip else ""))
    out = os.path.join(work, "trace.sstrace")
    try:
        t0 = time.monotonic()
        n, steps = generate(src, a.events, a.gzip)
        size = os.path.getsize(src)
        print("# %s %s, %d cores; %s" % (time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                         os.uname().nodename, os.cpu_count(),
                                         subprocess.run([ss, "--version"], capture_output=True,
                                                        text=True).stdout.strip()))
        print("# input: %d events, %d steps, %.1f MB %s (generated in %.0f s)"
              % (n, steps, size / 1e6, "gzip" if a.gzip else "JSON", time.monotonic() - t0))
        walls, rsss, rwalls, rrss = [], [], [], []
        for _ in range(a.reps):
            if os.path.exists(out):
                os.unlink(out)
            w, r = timed([ss, "import", src, "-o", out])
            walls.append(w), rsss.append(r / 1024.0)
            if a.report:
                w, r = timed([ss, "report", out])
                rwalls.append(w), rrss.append(r / 1024.0)
        print("import: wall %s s, %s M events/s, %s MB/s of input, peak RSS %s MiB, output "
              "%.1f MB" % (spread(walls, "%.2f"), spread([n / w / 1e6 for w in walls], "%.2f"),
                           spread([size / w / 1e6 for w in walls], "%.0f"),
                           spread(rsss, "%.1f"), os.path.getsize(out) / 1e6))
        if a.report:
            print("report on the import: wall %s s, peak RSS %s MiB"
                  % (spread(rwalls, "%.2f"), spread(rrss, "%.1f")))
    finally:
        for f in (src, out):
            if os.path.exists(f):
                os.unlink(f)
        os.rmdir(work)


if __name__ == "__main__":
    main()
