#!/usr/bin/env python3
"""The fix-truth zoo's table (issue #40): every program, its family, how it runs, what it
needs, what is planted in it, the flags that apply each fix the report can propose, a rough
run time and its held-out split. Pure Python, no torch: run_zoo.py, judge.py and the tests
read it.

    python3 bench/zoo/zoo.py            # the table, one line per program
    python3 bench/zoo/zoo.py --fixes    # ... and each program's fix table

A fix table maps a finding id (src/analysis/ssa_findings.c) to the flags that apply the fix
the report proposes LITERALLY, or to NoFix (the program has no way to apply it: a result of
its own, "no literal fix"). An entry may list alternatives, each with the text the report's
fix must contain for it (the runner takes the one named first in the text, and measures the
others it names too); "{workers}" stands for the number in the fix text
(`DataLoader(num_workers=6, ...)`, "on 6 producer threads").

The split, decided before any recording (2026-12-07) and written into every truth file:
families in alphabetical order; within a family, programs in the order of the SHA-256 of
their name; each program goes to the split with fewer programs so far (of all families
before it and its own family's programs before it), "judge" on a tie. split_rule() computes
it; the table below holds its result literally, and the test checks the two agree, so that a
renamed or added program cannot move another one silently.

Programs are added in cohorts (Program's `cohort`; the first 28 are cohort 1): the rule runs
over one cohort at a time, in cohort order, its counts going on from the cohorts before. A new
cohort is split on its own and can move no program already recorded; its date and why it was
added go in the comment above its first program, written before it is recorded.
"""
import hashlib
import re
import sys

SPLITS = ("tune", "judge")


class NoFix:
    """A finding whose fix the program cannot apply (why: said in the truth file)."""

    def __init__(self, why):
        self.why = why

    def __repr__(self):
        return "no literal fix (%s)" % self.why


def alt(when, *flags):
    """One way to apply a fix: the flags, taken when `when` (None: always) is in the fix."""
    return {"when": when, "flags": list(flags)}


COMPILE_ALTS = [alt("is_causal=True", "--is-causal", "--compile"),
                alt("torch.compile(model)", "--compile"),
                alt('mode="reduce-overhead"', "--compile", "--compile-mode", "reduce-overhead"),
                alt("torch.cuda.graph", "--cuda-graph")]
WHY_BATCH = "its fix is a larger batch or batched GEMMs: a different program per step"

# The fix of every finding in the Python programs of programs/ (their flags: common.py).
PY_FIXES = {
    "data_loading": [alt("num_workers=", "--workers", "{workers}", "--pin")],
    "pageable_h2d": [alt(None, "--pin")],
    # Lightning's own per-step read (its progress-bar values) is told apart by its text
    "sync_points": [alt("prog_bar=False", "--no-pbar-log"), alt("is_causal=True", "--is-causal"),
                    alt("avoid .item()", "--no-sync")],
    "no_mixed_precision": [alt(None, "--bf16")],
    # nn.TransformerEncoder's mask check first (lm.py), then compile
    "unfused_elementwise": [alt("is_causal=True", "--is-causal", "--compile"),
                            alt(None, "--compile")],
    "nchw_layout": [alt(None, "--channels-last")],
    "unfused_optimizer": [alt(None, "--fused-optim")],
    "allocator_churn": [alt(None, "--no-empty-cache")],
    "cpu_tensors": [alt(None, "--device-tensors")],
    "launch_bound": COMPILE_ALTS,
    "recompiles": [alt("mark_dynamic", "--mark-dynamic"), alt("dynamic=True", "--dynamic"),
                   alt("pad batches", "--bucket")],
    "small_h2d": NoFix("no flag collates the small copies into one"),
    "small_gemms": NoFix(WHY_BATCH),
    "device_copies": NoFix("the copies are the framework's own, no flag removes them"),
    "low_utilisation": NoFix("its fix names no change a flag can make (find the host work; "
                             "move it to DataLoader workers or do it every N steps)"),
    "data_parallel": NoFix("one GPU"),
    "comm_not_overlapped": NoFix("one GPU"),
    "launch_blocking": NoFix("CUDA_LAUNCH_BLOCKING is not set"),
}
# The C++ program's (bench/workloads/cxx/train_cxx.cpp) fixes.
CXX_FIXES = dict(PY_FIXES, **{
    "data_loading": [alt("producer threads", "--data", "thread", "--workers", "{workers}")],
    "pageable_h2d": [alt(None, "--copy", "pinned")],
    "sync_points": [alt(None, "--sync-every", "50")],
    "no_mixed_precision": [alt(None, "--dtype", "bf16")],
    "unfused_elementwise": NoFix("no compiler for the C++ program"),
    "unfused_optimizer": NoFix("torch::optim has no fused step"),
    "launch_bound": NoFix("no CUDA-graph flag in the C++ program"),
    "allocator_churn": NoFix("no empty_cache in the C++ program"),
    "cpu_tensors": NoFix("its tensors are the batches themselves"),
    "recompiles": NoFix("not compiled"),
})

# The flags each script accepts (besides harness's --steps, --warmup, --device, --tiny).
COMMON = {"--workers", "--pin", "--bf16", "--compile", "--compile-mode", "--no-sync",
          "--fused-optim"}
SCRIPT_FLAGS = {
    "vision.py": COMMON | {"--channels-last"},
    "lm.py": COMMON - {"--workers", "--pin"} | {"--cuda-graph", "--no-empty-cache",
                                                "--mark-dynamic", "--dynamic", "--bucket",
                                                "--is-causal"},
    "mlp.py": COMMON | {"--cuda-graph", "--device-tensors"},
    "hf_train.py": COMMON,
    "lightning_train.py": COMMON - {"--fused-optim"} | {"--no-pbar-log", "--channels-last"},
    "train_cxx": {"--data", "--workers", "--copy", "--sync-every", "--dtype"},
}


def plant(cause, finding, *flags):
    """A planted cause: the finding the report should give it (None: no rule names it) and
    the flags that remove it (measured whatever the report says)."""
    return {"cause": cause, "finding": finding, "flags": list(flags)}


class Program:
    def __init__(self, name, family, script, argv, split, needs=(), plants=(), est_s=15.0,
                 fixes=None, note="", cohort=1):
        self.name, self.family, self.script, self.argv = name, family, script, list(argv)
        self.cohort = cohort
        self.split, self.needs, self.plants = split, tuple(needs), list(plants)
        self.est_s, self.note = est_s, note
        self.fixes = fix_table(script, fixes or {})

    def to_json(self):
        return {"program": self.name, "family": self.family, "script": self.script,
                "argv": self.argv, "split": self.split, "needs": list(self.needs),
                "plants": self.plants, "est_s": self.est_s,
                "fixes": {k: (v if isinstance(v, list) else repr(v))
                          for k, v in self.fixes.items()}}


def usable(alternatives, accepted):
    return [a for a in alternatives
            if all(f in accepted for f in a["flags"] if f.startswith("--"))]


def fix_table(script, overrides):
    """The program's fix table: PY_FIXES (CXX_FIXES for the C++ program), the alternatives
    whose flags the script accepts, then the program's own overrides."""
    base = CXX_FIXES if script == "train_cxx" else PY_FIXES
    out = {}
    for fid, fix in base.items():
        if isinstance(fix, NoFix):
            out[fid] = fix
            continue
        ok = usable(fix, SCRIPT_FLAGS[script])
        out[fid] = ok or NoFix("%s has no %s" % (script, fix[0]["flags"][0]))
    out.update(overrides)
    return out


TV, TIMM, HF, L = ("torchvision",), ("timm",), ("transformers",), ("lightning",)
GPU_LM = ["--layers", "6", "--d", "512", "--batch", "32", "--seq", "256"]
NARROW = ["--blocks", "16", "--d", "256", "--batch", "512"]

PROGRAMS = [
    # torchvision CNNs with BatchNorm (vision.py)
    Program("tv_resnet18_pageable", "tv", "vision.py",
            ["--arch", "torchvision:resnet18", "--data", "tensors", "--batch", "256", "--img",
             "112", "--src", "128", "--workers", "6", "--bf16", "--channels-last", "--no-sync"],
            "tune", TV, [plant("pageable copies (pin_memory=False, blocking .to())",
                                "pageable_h2d", "--pin")], est_s=15),
    Program("tv_resnet50_nchw", "tv", "vision.py",
            ["--arch", "torchvision:resnet50", "--data", "gpu", "--batch", "96", "--img", "224",
             "--bf16", "--no-sync"],
            "judge", TV, [plant("NCHW layout under bf16 (channels_last is the fix)", "nchw_layout",
                               "--channels-last")], est_s=15),
    Program("tv_mobilenet_jpeg_w0", "tv", "vision.py",
            ["--arch", "torchvision:mobilenet_v3_large", "--data", "jpeg", "--batch", "64",
             "--img", "160", "--src", "192", "--bf16", "--channels-last", "--no-sync"],
            "tune", TV, [plant("JPEG decode + augment in the main process (num_workers=0)",
                                "data_loading", "--workers", "6", "--pin"),
                          plant("pageable copies of float32 batches", "pageable_h2d", "--pin")],
            est_s=18),
    Program("tv_efficientnet_healthy", "tv", "vision.py",
            ["--arch", "torchvision:efficientnet_b0", "--data", "tensors", "--batch", "96",
             "--img", "160", "--src", "176", "--workers", "4", "--pin", "--bf16",
             "--channels-last", "--no-sync"], "judge", TV, est_s=15),
    Program("tv_resnet18_item_fp32", "tv", "vision.py",
            ["--arch", "torchvision:resnet18", "--data", "tensors", "--batch", "128", "--img",
             "160", "--src", "176", "--workers", "6", "--pin", "--channels-last"],
            "tune", TV, [plant("fp32 (no autocast)", "no_mixed_precision", "--bf16"),
                          plant("loss.item() every step", "sync_points", "--no-sync")]),
    # timm (vision.py)
    Program("timm_vit_fp32", "timm", "vision.py",
            ["--arch", "timm:vit_small_patch16_224", "--data", "gpu", "--batch", "96", "--img",
             "224", "--optim", "adamw", "--no-sync"],
            "judge", TIMM, [plant("fp32, TF32 off (torch's default)", "no_mixed_precision",
                                 "--bf16")], est_s=16),
    Program("timm_convnext_eager", "timm", "vision.py",
            ["--arch", "timm:convnext_tiny", "--data", "gpu", "--batch", "64", "--img", "224",
             "--optim", "adamw", "--bf16", "--channels-last", "--no-sync"], "tune", TIMM, est_s=16),
    Program("timm_vit_jpeg_w2", "timm", "vision.py",
            ["--arch", "timm:vit_small_patch16_224", "--data", "jpeg", "--batch", "64", "--img",
             "160", "--src", "192", "--workers", "2", "--pin", "--optim", "adamw",
             "--fused-optim", "--bf16", "--no-sync"],
            "judge", TIMM, [plant("too few DataLoader workers (2) for JPEG decoding",
                                  "data_loading", "--workers", "8", "--pin")], est_s=16),
    # Hugging Face transformers from configs (hf_train.py)
    Program("hf_trainer_gpt2_collate", "hf", "hf_train.py",
            ["--model", "gpt2", "--trainer", "--data", "text", "--bf16", "--pin",
             "--fused-optim"],
            "tune", HF, [plant("tokenising collate in the main process "
                               "(dataloader_num_workers=0)", "data_loading", "--workers", "6",
                               "--pin")], est_s=20),
    Program("hf_trainer_bert_fp32", "hf", "hf_train.py",
            ["--model", "bert", "--trainer", "--workers", "2", "--pin", "--fused-optim"],
            "judge", HF, [plant("TrainingArguments without bf16", "no_mixed_precision",
                                "--bf16")], est_s=18),
    Program("hf_gpt2_loop_item_fp32", "hf", "hf_train.py",
            ["--model", "gpt2", "--workers", "2", "--pin"],
            "judge", HF, [plant("fp32 (no autocast)", "no_mixed_precision", "--bf16"),
                          plant("loss.item() every step", "sync_points", "--no-sync")],
            est_s=18),
    Program("hf_t5_text_w0", "hf", "hf_train.py",
            ["--model", "t5", "--data", "text", "--bf16", "--fused-optim", "--no-sync"],
            "tune", HF, [plant("tokenising collate in the main process (num_workers=0)",
                               "data_loading", "--workers", "6", "--pin")], est_s=18),
    Program("hf_bert_healthy", "hf", "hf_train.py",
            ["--model", "bert", "--workers", "2", "--pin", "--bf16", "--fused-optim",
             "--no-sync"], "tune", HF, est_s=16),
    # Lightning (lightning_train.py)
    Program("lightning_resnet_jpeg_w0", "lightning", "lightning_train.py",
            ["--model", "resnet18", "--bf16", "--no-sync"],
            "judge", L + TV, [plant("JPEG decode + augment in the main process "
                                    "(num_workers=0)", "data_loading", "--workers", "6",
                                    "--pin")], est_s=22),
    Program("lightning_lm_fp32", "lightning", "lightning_train.py",
            ["--model", "lm", "--workers", "4", "--pin", "--no-sync"],
            "tune", L, [plant('precision="32-true"', "no_mixed_precision", "--bf16")],
            est_s=20),
    Program("lightning_cnn_progress", "lightning", "lightning_train.py",
            ["--model", "cnn4", "--workers", "6", "--pin", "--bf16"],
            # 2026-12-07: the plant's fix was the bar's refresh rate (--no-sync), which leaves
            # Lightning's per-step read of prog_bar values (its source); prog_bar=False removes it
            "judge", L, [plant("the loss logged with prog_bar=True (Lightning reads it back "
                              "every step)", "sync_points", "--no-pbar-log")], est_s=20),
    # torch.compile (lm.py, vision.py, mlp.py)
    Program("compile_lm_shape_churn", "compile", "lm.py",
            ["--compile", "--vary-length", "--bf16", "--fused-optim", "--no-sync",
             "--no-empty-cache"] + GPU_LM,
            "tune", (), [plant("a new sequence length every step under torch.compile",
                               "recompiles", "--bucket")], est_s=45),
    Program("compile_resnet18_healthy", "compile", "vision.py",
            ["--arch", "torchvision:resnet18", "--data", "gpu", "--batch", "256", "--img",
             "112", "--bf16", "--channels-last", "--compile", "--fused-optim", "--no-sync"],
            "judge", TV, est_s=40),
    Program("compile_mlp_launch", "compile", "mlp.py",
            ["--compile", "--fused-optim", "--no-sync"] + NARROW,
            "judge", (), [plant("compiled in the default mode, still launch-bound",
                                "launch_bound", "--compile-mode", "reduce-overhead")],
            est_s=35),
    # CUDA graphs: a whole step captured (torch.cuda.graph), compile mode="reduce-overhead"
    Program("graph_lm_item", "graph", "lm.py",
            ["--cuda-graph", "--bf16", "--fused-optim", "--no-empty-cache", "--layers", "4",
             "--d", "1024", "--heads", "16", "--batch", "16", "--seq", "256"],
            "tune", (), [plant("loss.item() after every replay", "sync_points", "--no-sync")],
            fixes={"unfused_elementwise": NoFix("compiling inside the captured step is not "
                                                "a flag of lm.py's graph path")}, est_s=12),
    Program("graph_mlp_healthy", "graph", "mlp.py", ["--cuda-graph", "--no-sync"] + NARROW,
            "judge", (), est_s=10),
    Program("graph_lm_reduce_overhead", "graph", "lm.py",
            ["--compile", "--compile-mode", "reduce-overhead", "--bf16", "--fused-optim",
             "--no-sync", "--no-empty-cache"] + GPU_LM, "judge", (), est_s=40),
    # C++ over libtorch (bench/workloads/cxx/train_cxx.cpp, built by run_zoo.py)
    Program("cxx_data_pageable", "cxx", "train_cxx",
            ["--device", "cuda", "--batch", "4096", "--in", "2048", "--hidden", "4096", "--out",
             "8", "--data", "inline", "--transform-iters", "0", "--copy", "pageable",
             "--sync-every", "10", "--steps", "45", "--warmup", "10"],
            "tune", (), [plant("batches prepared inline in the step", "data_loading", "--data",
                                "thread", "--workers", "8"),
                          plant("pageable H2D copies", "pageable_h2d", "--copy", "pinned")],
            est_s=8),
    # plain PyTorch loops (lm.py, mlp.py, vision.py)
    Program("plain_lm_empty_cache", "plain", "lm.py", ["--vary-length", "--no-sync"] + GPU_LM,
            "judge", (), [plant("torch.cuda.empty_cache() every step", "allocator_churn",
                                "--no-empty-cache")], est_s=12),
    Program("plain_mlp_per_param", "plain", "mlp.py", ["--per-param", "--no-sync"] + NARROW,
            "tune", (), [plant("Adam(foreach=False), eager: launch-bound", "launch_bound",
                               "--cuda-graph")], est_s=12),
    Program("plain_cnn_bn_w6", "plain", "vision.py",
            ["--arch", "zoo:cnn4", "--data", "tensors", "--batch", "256", "--img", "64",
             "--src", "72", "--workers", "6", "--pin", "--bf16", "--channels-last",
             "--no-sync"], "judge", (), est_s=12),
    Program("plain_lm_bf16", "plain", "lm.py",
            ["--layers", "8", "--d", "1024", "--heads", "16", "--batch", "16", "--seq", "512",
             "--bf16", "--fused-optim", "--no-sync", "--no-empty-cache"], "tune", (), est_s=14),
    Program("plain_mlp_cpu_targets", "plain", "mlp.py",
            ["--data", "loader", "--workers", "4", "--pin", "--smooth-targets", "--no-sync",
             "--fused-optim", "--blocks", "4", "--d", "1024", "--classes", "4096", "--batch",
             "4096"],
            "tune", (), [plant("label-smoothed targets built on the CPU every step",
                               "cpu_tensors", "--device-tensors")], est_s=12),
    # Cohort 2 (2026-12-07, written before either is recorded): NCHW layout under bf16, the
    # cause tv_resnet50_nchw (judge) showed no rule names; a layout rule needs a tune-half
    # program to set what it may not set from the judge one. The rule split them: resnet34
    # tune, mobilenet judge.
    Program("tv_resnet34_nchw", "tv", "vision.py",
            ["--arch", "torchvision:resnet34", "--data", "gpu", "--batch", "128", "--img", "160",
             "--bf16", "--no-sync"],
            "tune", TV, [plant("NCHW layout under bf16 (channels_last is the fix)", "nchw_layout",
                               "--channels-last")], est_s=15, cohort=2),
    Program("tv_mobilenet_nchw", "tv", "vision.py",
            ["--arch", "torchvision:mobilenet_v3_large", "--data", "gpu", "--batch", "128",
             "--img", "160", "--bf16", "--no-sync"],
            "judge", TV, [plant("NCHW layout under bf16 (channels_last is the fix)", "nchw_layout",
                               "--channels-last")], est_s=15, cohort=2),
]

BY_NAME = {p.name: p for p in PROGRAMS}
FAMILIES = sorted({p.family for p in PROGRAMS})


def split_rule(programs):
    """{name: split} by the rule of the module's docstring: cohort by cohort, the counts
    going on from one cohort to the next, so that a new cohort moves no earlier program."""
    count, out = {"tune": 0, "judge": 0}, {}
    for cohort in sorted({p.cohort for p in programs}):
        split_cohort([p for p in programs if p.cohort == cohort], count, out)
    return out


def split_cohort(programs, count, out):
    """Splits one cohort into `out`, counting on in `count` (both updated)."""
    for fam in sorted({p.family for p in programs}):
        members = sorted((p.name for p in programs if p.family == fam),
                         key=lambda n: hashlib.sha256(n.encode()).hexdigest())
        for name in members:
            s = "judge" if count["judge"] <= count["tune"] else "tune"
            out[name] = s
            count[s] += 1


def select(spec):
    """Programs by a comma list of names, families, splits or "all", in table order."""
    items = [s for s in (spec or "all").split(",") if s]
    for item in items:
        if item != "all" and item not in BY_NAME and item not in FAMILIES and item not in SPLITS:
            raise ValueError("unknown program, family or split %r" % item)
    return [p for p in PROGRAMS if "all" in items or p.name in items or p.family in items
            or p.split in items]


WORKERS_RE = re.compile(r"num_workers=(\d+)|on (\d+) producer threads")


def fix_number(text):
    """The worker count a data_loading fix names, or None."""
    m = WORKERS_RE.search(text or "")
    return int(m.group(1) or m.group(2)) if m else None


def fix_choices(program, finding_id, fix_text):
    """The ways to apply a finding's fix in this program, the first-named first:
    [{"flags", "when", "primary"}], or a NoFix. {workers} is filled from the fix text."""
    table = program.fixes.get(finding_id, NoFix("no fix table entry for %s" % finding_id))
    if isinstance(table, NoFix):
        return table
    text = fix_text or ""
    # an alternative taken always (when None) comes after those the text names
    found = [(len(text) if a["when"] is None else text.find(a["when"]), a) for a in table]
    found = sorted((pos, i, a) for i, (pos, a) in enumerate(found) if pos >= 0)
    if not found:
        return NoFix("the fix text names none of %s" % [a["when"] for a in table])
    out = []
    for _, _, a in found:
        flags = fill(a["flags"], text)
        if isinstance(flags, NoFix):
            return flags
        out.append({"flags": flags, "when": a["when"], "primary": not out})
    return out


def fill(flags, text):
    if not any("{workers}" in f for f in flags):
        return list(flags)
    n = fix_number(text)
    if n is None:
        return NoFix("the fix names no worker count")
    return [f.replace("{workers}", str(n)) for f in flags]


def merge_flags(base, *extra):
    """argv with options replaced or added: an option's later value wins ("--workers 0" +
    "--workers 6" -> "--workers 6"); a store_true flag appears once."""
    order, vals = [], {}
    for argv in (base,) + extra:
        i = 0
        while i < len(argv):
            opt, j = argv[i], i + 1
            while j < len(argv) and not argv[j].startswith("--"):
                j += 1
            if opt not in vals:
                order.append(opt)
            vals[opt] = argv[i + 1:j]
            i = j
    return [t for opt in order for t in [opt] + vals[opt]]


def percentile(values, q):
    v = sorted(values)
    pos = (len(v) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def side_se(runs):
    """The standard error of one side's mean step: its runs' own (rms) over sqrt(runs)."""
    ses = [r["step_se_ms"] for r in runs if r.get("step_se_ms") is not None]
    return (sum(x * x for x in ses) / len(ses) / len(ses)) ** 0.5 if ses else 0.0


# Student's t, two-sided 95 % (the 0.975 quantile) by degrees of freedom; 2.0 past the table
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131}


def t975(df):
    return T975.get(df, 2.0)


def mean_interval(values):
    """(mean, 95 % half-width of the mean: t x sd / sqrt(n)) of two or more values; the one
    interval the zoo, the accuracy gates and the whole-run pairs use."""
    n = len(values)
    mean = sum(values) / n
    sd = (sum((v - mean) ** 2 for v in values) / (n - 1)) ** 0.5
    return mean, t975(n - 1) * sd / n ** 0.5


PAIRED_MIN = 4  # rounds with both sides run before the paired estimate takes over


def round_of(run):
    """The round a run belongs to (its tag ends in -rK), or None."""
    tag = run.get("tag", "")
    return int(tag.rsplit("-r", 1)[1]) if "-r" in tag else None


def same_rounds(before_runs, after_runs):
    """The before runs of the rounds the after side ran in: a truth measured again in later
    rounds (run_zoo.py --more-rounds) compares each variant with the before runs beside it in
    time, not with rounds it had no part in."""
    rounds = {round_of(r) for r in after_runs}
    return [r for r in before_runs if round_of(r) in rounds]


def paired_differences(before_runs, after_runs):
    """Before minus after (ms/step) in each round where both ran well (the interleaved order
    puts a round's runs next to each other in time)."""
    def by_round(runs):
        return {round_of(r): r["ms_per_step"] for r in runs
                if r.get("status") == "ok" and round_of(r) is not None}
    b, a = by_round(before_runs), by_round(after_runs)
    return [b[k] - a[k] for k in sorted(b) if k in a]


def paired_unc(diffs):
    """95 % half-width of the median of the paired differences: t x sd / sqrt(n), x 1.2533
    (a median's standard error over a mean's, normal data)."""
    return 1.2533 * mean_interval(diffs)[1]


def ok_times(runs):
    """The ms/step of the runs that ran well."""
    return [r["ms_per_step"] for r in runs if r.get("status") == "ok"]


def measured_saving(before_runs, after_runs):
    """What a fix measured, from plain runs (ms/step), against the before runs of the rounds
    it ran in (same_rounds, when the runs are given). With 2-3 rounds: saving = median before
    - median after, unc_ms = half the range of each side's runs combined in quadrature, at
    least twice the combined standard error of the runs' own steps (step_se_ms: too few runs
    to see their spread). With PAIRED_MIN rounds or more (a truth measured again: run_zoo.py
    --more-rounds): saving = the median of the rounds' paired differences, which takes out the
    host's drift between rounds, and unc_ms = its 95 % half-width (paired_unc), which more
    rounds narrow where a range only widens; the runs' spread is then seen, and the steps' own
    error is not added (it assumes independent steps: on timm_vit_fp32 it said 2.6 ms for run
    means that agree within 0.3). saving_pct of the before median. None without two good runs
    a side."""
    if all(round_of(r) is not None for r in before_runs):
        before_runs = same_rounds(before_runs, after_runs)
    before, after = ok_times(before_runs), ok_times(after_runs)
    if len(before) < 2 or len(after) < 2:
        return {"saving_ms": None, "saving_pct": None, "unc_ms": None}
    mb, ma = percentile(before, 0.5), percentile(after, 0.5)
    diffs = paired_differences(before_runs, after_runs)
    if len(diffs) >= PAIRED_MIN:
        saving, unc = percentile(diffs, 0.5), paired_unc(diffs)
    else:
        saving = mb - ma
        unc = ((max(before) - min(before)) ** 2 + (max(after) - min(after)) ** 2) ** 0.5 / 2
        unc = max(unc, 2 * (side_se(before_runs) ** 2 + side_se(after_runs) ** 2) ** 0.5)
    out = {"saving_ms": round(saving, 4), "saving_pct": round(100 * saving / mb, 2),
           "unc_ms": round(unc, 4), "before_ms": round(mb, 4), "after_ms": round(ma, 4)}
    if len(diffs) >= PAIRED_MIN:
        out["paired_rounds"] = len(diffs)
    return out


def main(argv):
    want_fixes = "--fixes" in argv
    for p in PROGRAMS:
        plants = "; ".join("%s -> %s" % (x["cause"], " ".join(x["flags"])) for x in p.plants)
        print("%-26s %-9s %-5s %4.0fs  %s  [%s]" % (p.name, p.family, p.split, p.est_s,
                                                    " ".join([p.script] + p.argv),
                                                    plants or "healthy"))
        if want_fixes:
            for fid, fix in sorted(p.fixes.items()):
                print("    %-20s %s" % (fid, fix if isinstance(fix, NoFix) else
                                        " | ".join(" ".join(a["flags"]) for a in fix)))
    rule = split_rule(PROGRAMS)
    bad = [p.name for p in PROGRAMS if rule[p.name] != p.split]
    print("%d programs, %d families; split: %d tune, %d judge%s" % (
        len(PROGRAMS), len(FAMILIES), sum(p.split == "tune" for p in PROGRAMS),
        sum(p.split == "judge" for p in PROGRAMS),
        "; NOT the rule's: " + ", ".join(bad) if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
