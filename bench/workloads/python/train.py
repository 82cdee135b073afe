#!/usr/bin/env python3
"""Planted-bottleneck training workloads: one ordinary PyTorch training loop in which each item
of the seed checklist can be planted by a flag, with its fixed twin (--fix).

    python train.py --case data                 # planted: DataLoader(num_workers=0) + slow decode
    python train.py --case data --fix           # fixed twin
    python train.py --case combo1 --fix-causes sync   # combo with only `sync` fixed
    python train.py --case dp                   # DataParallel, needs 2 GPUs
    python -m torch.distributed.run --standalone --nproc_per_node=2 train.py --case dp --fix
    python train.py --case sync --device cpu --tiny --steps 3   # CPU smoke test

Cases and their workloads: cases.py. Each run prints one summary line and, with --json-out,
writes ms/step measured over the timed steps: one torch.cuda.synchronize() before the first and
one after the last timed step (never per step: that would itself be a sync point that hides the
plants), so ms_per_step = window / steps; step_ms are host-side times between step boundaries
(perf_counter, no sync) and show the spread. This program must not import stepscope.
"""
import time

_T_PROCESS = time.perf_counter()

import argparse  # noqa: E402
import gzip  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as C  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402
import numpy as np  # noqa: E402

EXIT_SKIP = 77
LOG_EVERY = 100
SILU_CHUNKS = 32
LABEL_SMOOTHING = 0.1
JPEG_INTRAOP_THREADS = 4


# ----------------------------------------------------------------------------- data

class JpegImages(Dataset):
    """Synthetic JPEG files decoded and augmented on the CPU in __getitem__: the per-sample cost
    of an image pipeline (decode, random crop, flip). Returns uint8 CHW images and a label."""

    def __init__(self, length, src, img, classes, pool=32):
        self.length, self.img, self.classes = length, img, classes
        gen = torch.Generator().manual_seed(1234)
        self.pool, self.decode = [], None
        for _ in range(pool):
            # Smooth structure plus fine noise: compresses like a photo, not like pure noise.
            coarse = torch.rand((1, 3, max(2, src // 8), max(2, src // 8)), generator=gen)
            image = F.interpolate(coarse, size=(src, src), mode="bilinear", align_corners=False)
            image = image[0] * 200 + torch.rand((3, src, src), generator=gen) * 55
            self.pool.append(image.clamp_(0, 255).to(torch.uint8))
        try:
            from torchvision.io import decode_jpeg, encode_jpeg
            self.pool = [encode_jpeg(p, quality=90) for p in self.pool]
            decode_jpeg(self.pool[0])
            self.decode = decode_jpeg
        except Exception as exc:  # noqa: BLE001 - keep the workload runnable without codecs
            sys.stderr.write("train.py: no JPEG codec (%s): raw images + blur instead\n" % exc)

    def __len__(self):
        return self.length

    def _load(self, i):
        item = self.pool[i % len(self.pool)]
        if self.decode is not None:
            return self.decode(item)
        # Fallback cost: a 3x3 box blur in float, roughly as heavy per pixel as a decode.
        blurred = F.avg_pool2d(item[None].float(), 3, stride=1, padding=1)[0]
        return blurred.to(torch.uint8)

    def __getitem__(self, i):
        # Crop and flip in numpy, as PIL/numpy transforms do: small torch ops per sample would
        # each start an OpenMP parallel region over every core in the main process (the planted
        # num_workers=0 case), which on the 64-core H200 host cost seconds per batch.
        rng = random.Random(i)
        image = self._load(i).numpy()
        _, h_src, w_src = image.shape
        top, left = rng.randint(0, h_src - self.img), rng.randint(0, w_src - self.img)
        out = image[:, top:top + self.img, left:left + self.img]
        if rng.random() < 0.5:
            out = out[:, :, ::-1]
        return torch.from_numpy(np.ascontiguousarray(out)), i % self.classes


class MemoryBatches(Dataset):
    """Whole batches already in host memory (pinned or pageable), served by index: an in-memory
    dataset read with DataLoader(batch_size=None). Returns views, so pinned stays pinned."""

    def __init__(self, length, batch, sample_shape, classes, pinned, copies=2):
        gen = torch.Generator().manual_seed(4321)
        x = torch.rand((copies, batch) + tuple(sample_shape), generator=gen)
        x.sub_(0.5).mul_(3.4)
        y = torch.randint(0, classes, (copies, batch), generator=gen)
        if pinned:
            x, y = x.pin_memory(), y.pin_memory()
        self.x, self.y, self.copies, self.length = x, y, copies, length

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        return self.x[i % self.copies], self.y[i % self.copies]


def shm_free_bytes():
    try:
        st = os.statvfs("/dev/shm")
        return st.f_bavail * st.f_frsize
    except OSError:
        return None


def make_loader(w, planted, dev, total_steps, args, notes):
    cuda = dev.type == "cuda"
    pin = cuda and "pageable" not in planted
    length = total_steps + 2
    if w["input"] == "memory":
        shape = (3, w["img"], w["img"]) if w["model"] == "resnet18" else (w["d_in"],)
        ds = MemoryBatches(length, w["local_batch"], shape, w["classes"], pinned=pin)
        return DataLoader(ds, batch_size=None, shuffle=False, num_workers=0)
    ds = JpegImages(length * w["local_batch"], w["src"], w["img"], w["classes"])
    if ds.decode is None:
        notes.append("jpeg codec missing: blur fallback")
    if "data" in planted:
        return DataLoader(ds, batch_size=w["local_batch"], shuffle=True, drop_last=True,
                          num_workers=0, pin_memory=pin)
    workers = args.workers if not args.tiny else min(args.workers, 2)
    prefetch = 4
    batch_bytes = w["local_batch"] * 3 * w["img"] * w["img"]
    free = shm_free_bytes()
    if free is not None and workers * prefetch * batch_bytes * 2 > free:
        prefetch = 2
        notes.append("small /dev/shm (%d MiB): prefetch_factor 2" % (free >> 20))
    return DataLoader(ds, batch_size=w["local_batch"], shuffle=True, drop_last=True,
                      num_workers=workers, pin_memory=pin, persistent_workers=True,
                      prefetch_factor=prefetch)


# ----------------------------------------------------------------------------- models

class SiLU(nn.Module):
    """x * sigmoid(x), vectorised, or (planted `launch`) in a Python loop over feature chunks:
    the same math as 3 x chunks tiny kernels forward and more backward."""

    def __init__(self, chunks=0):
        super().__init__()
        self.chunks = chunks

    def forward(self, x):
        if self.chunks:
            return torch.cat([c * torch.sigmoid(c) for c in x.chunk(self.chunks, dim=-1)], -1)
        return x * torch.sigmoid(x)


class Block(nn.Module):
    def __init__(self, d, hidden, act):
        super().__init__()
        self.norm, self.fc1, self.act, self.fc2 = nn.LayerNorm(d), nn.Linear(d, hidden), act, \
            nn.Linear(hidden, d)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


class MLP(nn.Module):
    def __init__(self, d_in, d, hidden, layers, classes, chunks):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.Sequential(*[Block(d, hidden, SiLU(chunks)) for _ in range(layers)])
        self.head = nn.Linear(d, classes)

    def forward(self, x):
        # The residual stream stays fp32 under autocast (as in mixed-precision practice).
        return self.head(self.blocks(self.inp(x).float()))


def make_model(w, planted, dev):
    if w["model"] == "resnet18":
        import torchvision
        model = torchvision.models.resnet18(num_classes=w["classes"])
        model = model.to(dev, memory_format=torch.channels_last)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=5e-5)
        return model, opt
    chunks = SILU_CHUNKS if "launch" in planted else 0
    model = MLP(w["d_in"], w["d"], w["hidden"], w["layers"], w["classes"], chunks).to(dev)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-4)


def set_precision(planted, notes):
    """Planted fp32: full-precision fp32 GEMMs and convs (no TF32, no autocast)."""
    if "fp32" not in planted:
        return
    try:
        torch.set_float32_matmul_precision("highest")
        torch.backends.cudnn.allow_tf32 = False
    except Exception as exc:  # noqa: BLE001 - a newer torch may only warn or refuse
        notes.append("fp32 precision settings: %s" % exc)


# ----------------------------------------------------------------------------- the step

def to_device(x, y, planted, dev):
    if "pageable" in planted:
        return x.to(dev), y.to(dev)  # blocking copy from pageable memory
    return x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)


def make_targets(y, y_host, classes, feat_shape, planted, dev):
    """Label-smoothing targets, per-sample weights and input noise for this step."""
    off = LABEL_SMOOTHING / classes
    on = 1.0 - LABEL_SMOOTHING + off
    if "cpu_tensors" in planted:  # made on the CPU, then moved: blocking copies, stream syncs
        soft = torch.full((y_host.shape[0], classes), off)
        soft.scatter_(1, y_host.view(-1, 1), on)
        weight = torch.rand(y_host.shape[0]) * 0.5 + 0.75
        noise = torch.randn(feat_shape)
        scale = torch.tensor(0.01)
        return soft.to(dev), weight.to(dev), noise.to(dev) * scale.to(dev)
    soft = torch.full((y.shape[0], classes), off, device=dev)
    soft.scatter_(1, y.view(-1, 1), on)
    weight = torch.rand(y.shape[0], device=dev) * 0.5 + 0.75
    noise = torch.randn(feat_shape, device=dev) * torch.full((), 0.01, device=dev)
    return soft, weight, noise


def loss_fn(logits, soft, weight):
    logp = torch.log_softmax(logits.float(), dim=1)
    return (-(soft * logp).sum(1) * weight).mean()


class Nvtx:
    """Optional NVTX ranges (--nvtx, for captures under nsys): default domain, 'step'/'data'."""

    def __init__(self, on):
        self.on = on

    def push(self, name):
        if self.on:
            torch.cuda.nvtx.range_push(name)

    def pop(self):
        if self.on:
            torch.cuda.nvtx.range_pop()


class Logger:
    """Planted `sync`: loss.item(), print(loss), logits.cpu() for accuracy every step.
    Fixed: accumulate on the device, print (and sync) every LOG_EVERY steps."""

    def __init__(self, planted, dev, rank):
        self.planted, self.rank = "sync" in planted, rank
        self.loss_sum = torch.zeros((), device=dev)
        self.correct = torch.zeros((), device=dev, dtype=torch.long)
        self.seen = 0

    def __call__(self, step, loss, logits, y):
        if self.planted:
            value = loss.item()
            pred = logits.detach().float().cpu().argmax(1)
            acc = (pred == y.cpu()).float().mean().item()
            if self.rank == 0:
                print("step %d loss %.4f acc %.3f %s" % (step, value, acc, loss), flush=True)
            return
        self.loss_sum += loss.detach()
        self.correct += (logits.detach().argmax(1) == y).sum()
        self.seen += y.shape[0]
        if (step + 1) % LOG_EVERY == 0:
            loss_mean = (self.loss_sum / LOG_EVERY).item()
            acc = self.correct.item() / max(1, self.seen)
            if self.rank == 0:
                print("step %d mean loss %.4f acc %.3f" % (step + 1, loss_mean, acc), flush=True)
            self.loss_sum.zero_()
            self.correct.zero_()
            self.seen = 0


def image_norm(dev):
    """ImageNet mean/std made once, before the loop (torch.tensor(..., device=) copies)."""
    mean = torch.tensor([0.485, 0.456, 0.406], device=dev).view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225], device=dev).view(1, 3, 1, 1) * 255
    return mean, std


def preprocess(x, w, noise, norm):
    if w["model"] != "resnet18":
        return x + noise
    if x.dtype == torch.uint8:  # decoded images travel as uint8 and are normalised here
        x = (x.float() - norm[0]) / norm[1]
    return (x + noise).contiguous(memory_format=torch.channels_last)


# ----------------------------------------------------------------------------- setup

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", required=True, choices=list(C.CASES))
    ap.add_argument("--fix", action="store_true", help="fix every planted cause")
    ap.add_argument("--fix-causes", default="", help="fix only these causes (comma list)")
    ap.add_argument("--steps", type=int, help="timed steps (default: per workload)")
    ap.add_argument("--warmup", type=int, help="untimed steps first (default: per workload)")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--tiny", action="store_true", help="tiny sizes (CPU smoke test)")
    ap.add_argument("--workers", type=int, default=8, help="DataLoader workers when fixed")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a workload size from cases.py (batch=128, hidden=2048, ...)")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model")
    ap.add_argument("--json-out", help="write the measurement as JSON here")
    ap.add_argument("--profile-kineto", metavar="FILE.json.gz",
                    help="torch.profiler over a few steps after warm-up; gzipped Chrome trace")
    ap.add_argument("--kineto-steps", type=int, default=5)
    ap.add_argument("--nvtx", action="store_true", help="NVTX 'step'/'data' ranges (nsys)")
    args = ap.parse_args(argv)
    try:
        args.fix_causes = C.parse_causes(args.fix_causes)
        args.planted = C.planted_after_fix(args.case, args.fix, args.fix_causes)
    except ValueError as exc:
        ap.error(str(exc))
    return args


def fail(msg, code=2):
    sys.stderr.write("train.py: %s\n" % msg)
    sys.exit(code)


def setup_device(args):
    if args.device == "cuda" and not torch.cuda.is_available():
        fail("no CUDA device (use --device cpu)")
    if args.case in C.MULTI_GPU_CASES and args.device == "cuda" and torch.cuda.device_count() < 2:
        print("skipped: case %s needs 2 GPUs (found %d)" % (args.case, torch.cuda.device_count()))
        sys.exit(EXIT_SKIP)
    return torch.device(args.device)


def setup_ddp(args, dev):
    """Fixed `dp`: one process per GPU under torchrun. Returns (rank, world, dev)."""
    import torch.distributed as dist
    if "WORLD_SIZE" in os.environ:
        local = int(os.environ.get("LOCAL_RANK", "0"))
        if dev.type == "cuda":
            torch.cuda.set_device(local)
            dev = torch.device("cuda", local)
        dist.init_process_group("nccl" if dev.type == "cuda" else "gloo")
    elif dev.type == "cuda":
        fail("--case dp --fix runs one process per GPU: python -m torch.distributed.run "
             "--standalone --nproc_per_node=2 %s --case dp --fix" % sys.argv[0])
    else:  # CPU smoke test: a one-process gloo group through a file store
        store = os.path.join(tempfile.mkdtemp(prefix="train-ddp-"), "store")
        dist.init_process_group("gloo", init_method="file://" + store, rank=0, world_size=1)
    return dist.get_rank(), dist.get_world_size(), dev


def wrap_parallel(model, args, dev):
    if args.case not in C.MULTI_GPU_CASES:
        return model
    if "dp" in args.planted:
        return nn.DataParallel(model)  # one process drives every visible GPU
    from torch.nn.parallel import DistributedDataParallel as DDP
    return DDP(model, device_ids=[dev.index] if dev.type == "cuda" else None)


def make_profiler(args, dev, warmup, notes):
    if not args.profile_kineto:
        return None
    from torch.profiler import ProfilerActivity, profile, schedule
    active = max(1, min(args.kineto_steps, args.steps - 1))
    path = args.profile_kineto

    def export(prof):
        tmp = path + ".tmp.json"
        prof.export_chrome_trace(tmp)
        with open(tmp, "rb") as src, gzip.open(path, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst)
        os.remove(tmp)

    activities = [ProfilerActivity.CPU]
    if dev.type == "cuda":
        activities.append(ProfilerActivity.CUDA)
    notes.append("kineto: steps %d-%d profiled" % (warmup + 1, warmup + active))
    sched = schedule(wait=warmup, warmup=1, active=active, repeat=1)
    return profile(activities=activities, schedule=sched, on_trace_ready=export)


# ----------------------------------------------------------------------------- run

def percentile(sorted_values, q):
    if not sorted_values:
        return None
    pos = (len(sorted_values) - 1) * q
    lo, hi = int(math.floor(pos)), int(math.ceil(pos))
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def sync(dev, dist_on, all_gpus=False):
    if dev.type == "cuda":
        for i in range(torch.cuda.device_count()) if all_gpus else [dev.index]:
            torch.cuda.synchronize(i)
    if dist_on:
        import torch.distributed as dist
        dist.barrier(device_ids=[dev.index]) if dev.type == "cuda" else dist.barrier()


def train(args, w, dev, rank, world, notes):
    planted = args.planted
    total = args.warmup + args.steps
    loader = make_loader(w, planted, dev, total, args, notes)
    model, opt = make_model(w, planted, dev)
    model = wrap_parallel(model, args, dev)
    if args.compile:
        model = torch.compile(model)
    feat = (3, w["img"], w["img"]) if w["model"] == "resnet18" else (w["d_in"],)
    amp = dict(device_type=dev.type, dtype=torch.bfloat16, enabled="fp32" not in planted)
    log, nv = Logger(planted, dev, rank), Nvtx(args.nvtx and dev.type == "cuda")
    prof = make_profiler(args, dev, args.warmup, notes) if rank == 0 else None
    dist_on = world > 1 or (args.case in C.MULTI_GPU_CASES and "dp" not in planted)
    all_gpus = "dp" in planted  # DataParallel: this process drives every GPU
    norm = image_norm(dev) if w["model"] == "resnet18" else None
    marks, t0, loss = [], None, None
    if prof is not None:
        prof.start()
    it = iter(loader)
    for step in range(total):
        if step == args.warmup:
            sync(dev, dist_on, all_gpus)
            t0 = time.perf_counter()
            marks.append(t0)
        nv.push("step")
        nv.push("data")
        x_host, y_host = next(it)
        nv.pop()
        x, y = to_device(x_host, y_host, planted, dev)
        soft, weight, noise = make_targets(y, y_host, w["classes"], feat, planted, dev)
        x = preprocess(x, w, noise, norm)
        with torch.autocast(**amp):
            logits = model(x)
        loss = loss_fn(logits, soft, weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if "empty_cache" in planted:
            torch.cuda.empty_cache()
        log(step, loss, logits, y)
        nv.pop()
        if prof is not None:
            prof.step()
        if t0 is not None:
            marks.append(time.perf_counter())
    sync(dev, dist_on, all_gpus)
    t1 = time.perf_counter()
    if prof is not None:
        prof.stop()
    return t0, t1, marks, float(loss.detach().float().cpu())


def result(args, w, dev, world, t0, t1, marks, final_loss, notes):
    steps = sorted((b - a) * 1e3 for a, b in zip(marks, marks[1:]))
    gpu = torch.cuda.get_device_name(dev) if dev.type == "cuda" else None
    if dev.type != "cuda":
        n_gpus = 0
    elif "dp" in args.planted:
        n_gpus = torch.cuda.device_count()
    else:
        n_gpus = world
    return {
        "case": args.case, "workload": w["name"], "planted": list(args.planted),
        "fixed_causes": [c for c in C.CASES[args.case][1] if c not in args.planted],
        "config": C.config_key(args.case, args.planted),
        "device": dev.type, "gpu": gpu, "gpus_used": n_gpus, "world_size": world,
        "batch": w["batch"], "steps": args.steps, "warmup": args.warmup,
        "sizes": {k: v for k, v in w.items() if k not in ("steps", "warmup", "local_batch")},
        "ms_per_step": (t1 - t0) * 1e3 / args.steps,
        "step_ms": {"median": percentile(steps, 0.5), "p10": percentile(steps, 0.1),
                    "p90": percentile(steps, 0.9), "mean": sum(steps) / len(steps)},
        "window_s": t1 - t0, "startup_s": t0 - _T_PROCESS, "final_loss": final_loss,
        "profiled": bool(args.profile_kineto), "nvtx": bool(args.nvtx), "tiny": args.tiny,
        "torch": torch.__version__, "argv": sys.argv, "notes": notes,
    }


def main(argv=None):
    args = parse_args(argv)
    w = C.workload_params(args.case, args.tiny)
    try:
        C.apply_overrides(w, args.set)
    except ValueError as exc:
        fail(str(exc))
    args.steps = args.steps if args.steps is not None else w["steps"]
    args.warmup = args.warmup if args.warmup is not None else w["warmup"]
    if args.steps < 1 or args.warmup < 0:
        fail("--steps must be >= 1 and --warmup >= 0")
    if "launch" in args.planted and w["model"] != "mlp":
        fail("the launch plant needs an mlp workload")
    if args.profile_kineto and args.steps < 2:
        fail("--profile-kineto needs --steps >= 2")
    notes = []
    if w["input"] == "jpeg" and torch.get_num_threads() > JPEG_INTRAOP_THREADS:
        # The JPEG pipeline runs in the main process when num_workers=0 (the planted case):
        # collate's torch ops over all cores of a large shared host made its step swing from
        # 0.08 to 2.3 s between runs. Few intra-op threads make both twins repeatable; the GPU
        # work is unaffected.
        torch.set_num_threads(JPEG_INTRAOP_THREADS)
        notes.append("intra-op threads %d (JPEG pipeline)" % JPEG_INTRAOP_THREADS)
    dev = setup_device(args)
    rank, world = 0, 1
    if args.case in C.MULTI_GPU_CASES and "dp" not in args.planted:
        rank, world, dev = setup_ddp(args, dev)
    w["local_batch"] = max(1, w["batch"] // world)
    torch.manual_seed(0)
    set_precision(args.planted, notes)
    t0, t1, marks, final_loss = train(args, w, dev, rank, world, notes)
    if world > 1 or (args.case in C.MULTI_GPU_CASES and "dp" not in args.planted):
        import torch.distributed as dist
        dist.destroy_process_group()
    if rank != 0:
        return 0
    out = result(args, w, dev, world, t0, t1, marks, final_loss, notes)
    print("train.py: case=%s planted=%s %.3f ms/step (step median %.3f, p10 %.3f, p90 %.3f) "
          "over %d steps" % (args.case, ",".join(args.planted) or "none", out["ms_per_step"],
                             out["step_ms"]["median"], out["step_ms"]["p10"],
                             out["step_ms"]["p90"], args.steps), flush=True)
    if args.json_out:
        tmp = args.json_out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f, indent=1)
        os.replace(tmp, args.json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
