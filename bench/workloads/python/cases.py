"""The planted-bottleneck cases: which workload each case runs and which causes it plants.

Pure Python (no torch) so that the runner (bench/workloads/run_truth.py) reads the same table
as the training program (train.py). A *configuration* is a workload plus the set of causes that
are planted in it; several cases share configurations (the fixed twin of `data` is the `clean`
program), and the runner times each configuration once per repetition.
"""

CAUSES = ("data", "pageable", "sync", "fp32", "launch", "empty_cache", "cpu_tensors", "dp")

# Sizes are chosen so that, on an H200, each planted cause costs well over 30% of the fixed
# twin's step and each run stays near a second of timed steps (README.md gives the reasoning).
WORKLOADS = {
    # resnet18 fed by a DataLoader that decodes JPEGs and crops/resizes them on the CPU.
    "cnn_jpeg": dict(model="resnet18", input="jpeg", batch=256, img=112, src=128,
                     classes=1000, steps=30, warmup=8),
    # resnet18 on in-memory image batches. Batch 256: at 64 the fixed twin was itself
    # launch-bound (a second cause next to the planted empty_cache).
    "cnn_mem": dict(model="resnet18", input="memory", batch=256, img=112, classes=1000,
                    steps=40, warmup=8),
    # resnet18 on in-memory image batches, global batch split over two GPUs.
    "cnn_dp": dict(model="resnet18", input="memory", batch=256, img=112, classes=1000,
                   steps=40, warmup=8),
    # residual MLP on token features: moderate GEMMs, ~40 kernels per layer and step.
    "mlp": dict(model="mlp", input="memory", batch=4096, d_in=1024, d=1024, hidden=4096,
                layers=4, classes=1000, steps=60, warmup=8),
    # wider residual MLP: large GEMMs (fp32 vs bf16 matters).
    "mlp_big": dict(model="mlp", input="memory", batch=4096, d_in=2048, d=2048, hidden=8192,
                    layers=2, classes=1000, steps=25, warmup=6),
    # wide tabular input (8192 x 4096 fp32 = 128 MiB per batch) into a light MLP.
    "wide": dict(model="mlp", input="memory", batch=8192, d_in=4096, d=1024, hidden=2048,
                 layers=2, classes=100, steps=40, warmup=8),
}

TINY = {
    "resnet18": dict(batch=4, img=32, src=40, classes=10),
    "mlp": dict(batch=16, d_in=32, d=32, hidden=64, layers=2, classes=10),
}

# case -> (workload, planted causes). Order matters only for display.
CASES = {
    "data": ("cnn_jpeg", ("data",)),
    "pageable": ("wide", ("pageable",)),
    "sync": ("mlp", ("sync",)),
    "fp32": ("mlp_big", ("fp32",)),
    "launch": ("mlp", ("launch",)),
    "empty_cache": ("cnn_mem", ("empty_cache",)),
    "cpu_tensors": ("mlp", ("cpu_tensors",)),
    "dp": ("cnn_dp", ("dp",)),
    "clean": ("cnn_jpeg", ()),
    "combo1": ("cnn_jpeg", ("data", "sync")),
    "combo2": ("wide", ("pageable", "cpu_tensors")),
    # no mixed precision (large) + a per-step sync (small) in a GPU-bound program: the report
    # must rank the two far apart (combo2's two costs came out within 10 % of each other)
    "combo3": ("mlp_big", ("fp32", "sync")),
}

MULTI_GPU_CASES = ("dp",)

# What each cause is and how its fixed twin differs (README and truth.json use these).
DESCRIPTIONS = {
    "data": ("DataLoader(num_workers=0) with a costly per-sample JPEG decode + crop/resize",
             "DataLoader(num_workers=8, pin_memory=True, persistent_workers=True, prefetch_factor=4)"),
    "pageable": ("batches in pageable host memory copied with a blocking .cuda()",
                 "batches in pinned memory (pin_memory) copied with non_blocking=True"),
    "sync": ("loss.item(), print(loss) and logits.cpu() for accuracy every step",
             "loss and accuracy accumulated on the device, logged every 100 steps"),
    "fp32": ("fp32 GEMMs/convs, TF32 off (set_float32_matmul_precision('highest'))",
             "torch.autocast(dtype=torch.bfloat16)"),
    "launch": ("SiLU applied in a Python loop over 32 feature chunks (many tiny kernels)",
               "the same SiLU vectorised over the whole tensor (optionally --compile)"),
    "empty_cache": ("torch.cuda.empty_cache() after every optimizer step",
                    "no empty_cache() in the loop"),
    "cpu_tensors": ("label-smoothing targets, sample weights, input noise created on the CPU "
                    "and moved with .to(device) every step",
                    "the same tensors created on the device (device=...)"),
    "dp": ("torch.nn.DataParallel over 2 GPUs in one process",
           "DistributedDataParallel, one process per GPU (torchrun --nproc_per_node=2)"),
}


def parse_causes(text):
    """'a,b' -> ('a', 'b'); raises ValueError naming an unknown cause."""
    if not text:
        return ()
    out = tuple(c.strip() for c in text.split(",") if c.strip())
    for c in out:
        if c not in CAUSES:
            raise ValueError("unknown cause %r (known: %s)" % (c, ", ".join(CAUSES)))
    return out


def planted_after_fix(case, fix_all=False, fix_causes=()):
    """The causes still planted when `case` runs with --fix / --fix-causes."""
    if case not in CASES:
        raise ValueError("unknown case %r (known: %s)" % (case, ", ".join(CASES)))
    planted = CASES[case][1]
    if fix_all:
        return ()
    for c in fix_causes:
        if c not in planted:
            raise ValueError("case %s does not plant %r (it plants: %s)"
                             % (case, c, ", ".join(planted) or "nothing"))
    return tuple(c for c in planted if c not in fix_causes)


def workload_params(case, tiny=False):
    """A fresh dict of the case's workload parameters (tiny: sizes for a CPU smoke test)."""
    name = CASES[case][0]
    params = dict(WORKLOADS[name])
    params["name"] = name
    if tiny:
        params.update(TINY[params["model"]])
        if name == "wide":
            params["d_in"] = 64
        params["steps"], params["warmup"] = 3, 1
    return params


def apply_overrides(params, items):
    """items: ['batch=128', ...] -> params updated (ints stay ints); ValueError when unknown."""
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in params or key in ("name", "model", "input"):
            raise ValueError("cannot set %r (settable: %s)" % (item, ", ".join(
                k for k in params if k not in ("name", "model", "input"))))
        params[key] = int(value) if isinstance(params[key], int) else value
    return params


def config_key(case, planted):
    """Names a (workload, planted set) configuration: 'cnn_jpeg-data-sync', 'mlp-none'
    (plain characters only: it names files)."""
    return "-".join((CASES[case][0],) + (tuple(sorted(planted)) or ("none",)))
