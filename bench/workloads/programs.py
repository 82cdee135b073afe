"""The table of the workload programs beyond train.py's cases (those stay in python/cases.py):
the real-framework programs (frameworks/), the planted host-time cases (host/), and the C and
C++ programs over libtorch (c/, cxx/) at a realistic sync cadence. Pure Python, no torch:
run_twins.py (smoke, truth, record), host/make_truth.py, bench/overhead/run_overhead.py and the
tests read the same table.

A program has either two twins, "bad" (the plant) and "fixed", or one "plain" variant (a
program whose plain ms/step is the truth: torch.compile's modes). A *configuration* is a program
and a variant, named "<program>-<variant>" (eager_mlp-bad, compile_default-plain).

Held-out programs are never used to tune stepscope (thresholds, costs, rules): they judge it.
"""
import os
import shlex

HERE = os.path.dirname(os.path.abspath(__file__))

PYTHON, CABI, CXX = "python", "cabi", "cxx"


class Program:
    """kind: PYTHON (argv[0] is a script under bench/workloads), CABI or CXX (argv are flags of
    the binary). variants: {variant: extra args}. smoke/truth/record: the arguments of a short
    run, of a timed run and of a fixture recording (on top of the variant's; truth [] = the
    program's own step counts). cpu: extra args of the CPU smoke run
    (None: the program has no CPU run, e.g. the CUDA-only C cases). est_s: rough seconds of one
    run on the H200 (start-up included), for plans and budgets."""

    def __init__(self, name, kind, argv, variants, planted=None, fix=None, held_out=False,
                 needs=(), smoke=(), truth=(), record=(), cpu=("--device", "cpu", "--tiny"),
                 est_s=10.0, group=None):
        self.name, self.kind, self.argv, self.variants = name, kind, list(argv), dict(variants)
        self.planted, self.fix, self.held_out, self.needs = planted, fix, held_out, tuple(needs)
        self.smoke, self.truth, self.record = list(smoke), list(truth), list(record)
        self.cpu = None if cpu is None else list(cpu)
        self.est_s = est_s
        self.group = group or ("frameworks" if kind == PYTHON else kind)

    def configs(self):
        return ["%s-%s" % (self.name, v) for v in self.variants]

    def has_twins(self):
        return "bad" in self.variants and "fixed" in self.variants


TWINS = {"bad": [], "fixed": ["--fix"]}
SMOKE = ["--steps", "3", "--warmup", "2"]
RECORD = ["--steps", "20"]
# On the CPU, compile without code generation: dynamo's guards and recompiles are the same.
COMPILE_CPU = ("--device", "cpu", "--tiny", "--backend", "aot_eager")


def fw(name, script, planted, fix, variants=None, **kw):
    kw.setdefault("smoke", SMOKE)
    kw.setdefault("record", RECORD)
    return Program(name, PYTHON, ["frameworks/" + script], variants or TWINS, planted, fix, **kw)


def host(case, planted, fix):
    return Program("host_" + case, PYTHON, ["host/host_plants.py", "--case", case], TWINS,
                   planted, fix, smoke=SMOKE, record=["--steps", "30"], est_s=6.0, group="host")


def gpubound(case, planted, fix):
    """A GPU-bound twin of frameworks/gpubound_twins.py (issue #31's GPU-side findings)."""
    return Program("gpubound_" + case, PYTHON, ["frameworks/gpubound_twins.py", "--case", case],
                   TWINS, planted, fix, smoke=SMOKE, record=["--steps", "40"], est_s=12.0)


# The C cases of c/build_gpu.sh (same sizes, same twins), run with a realistic cadence: 200
# timed steps, so that the fixed twins' sync every 50 steps happens 4 times inside the timed
# steps (the committed 40-step recordings never reached one: the host was never seen waiting).
CADENCE = ["--steps", "210", "--warmup", "10"]
C_CASES = [
    ("data", "--batch 512 --in 256 --hidden 65536 --out 8 --copy pinned --transform-iters 1 "
             "--sync-every 50", "--data inline", "--data thread --workers 4",
     "host data preparation inline in the step", "4 producer threads with pinned buffers"),
    ("copy", "--batch 8192 --in 4096 --hidden 1024 --out 8 --data ahead --ahead-batches 4 "
             "--transform-iters 0 --sync-every 50", "--copy pageable", "--copy pinned",
     "blocking H2D copies from pageable memory", "pinned host buffers, non_blocking copies"),
    ("sync", "--batch 512 --in 256 --hidden 262144 --out 8 --data inline --transform-iters 1 "
             "--copy pinned", "--sync-every 1", "--sync-every 50",
     "the loss read back every step", "the loss read back every 50 steps"),
    ("dtype", "--batch 4096 --in 4096 --hidden 8192 --out 64 --data ahead --ahead-batches 2 "
              "--transform-iters 0 --copy pinned --sync-every 50", "--dtype fp32",
     "--dtype bf16", "fp32 GEMMs", "bf16 GEMMs (fp32 master weights)"),
]
C_EST_S = {"data": 2.5, "copy": 6.5, "sync": 3.0, "dtype": 4.0}


def binary(kind, case, shared, bad, fixed, planted, fix):
    return Program("%s_%s" % (kind, case), kind, ["--device", "cuda"] + shlex.split(shared),
                   {"bad": shlex.split(bad), "fixed": shlex.split(fixed)}, planted, fix,
                   smoke=["--steps", "6", "--warmup", "2"], truth=CADENCE, record=CADENCE, cpu=None,
                   est_s=C_EST_S[case])


PROGRAMS = [
    fw("hf_trainer_gpt2", "hf_trainer_gpt2.py", "no mixed precision (fp32, TF32 off)",
       "TrainingArguments(bf16=True)", needs=("transformers",), est_s=14.0),
    fw("lightning_cnn", "lightning_cnn.py", "DataLoader(num_workers=0), per-sample augmentation",
       "num_workers=4, pin_memory, persistent_workers", needs=("lightning",), est_s=14.0),
    fw("timm_vit", "timm_vit.py", "fp32 (no autocast, TF32 off)", "bf16 autocast",
       needs=("timm",), est_s=12.0),
    fw("eager_mlp", "eager_mlp.py", "per-parameter AdamW + clip_grad_norm_ (foreach=False)",
       "AdamW(fused=True), clip_grad_norm_(foreach=True)", est_s=9.0),
    fw("cuda_graph", "cuda_graph.py", "eager step (launch-bound)",
       "whole step captured once (torch.cuda.graph), g.replay() per step",
       record=["--steps", "30"], est_s=9.0),
    fw("compile_default", "compile_mlp.py", None, None, variants={"plain": []}, est_s=25.0,
       cpu=COMPILE_CPU),
    fw("compile_reduce_overhead", "compile_mlp.py", None, None,
       variants={"plain": ["--mode", "reduce-overhead"]}, est_s=30.0,
       smoke=["--steps", "3", "--warmup", "3"], record=["--steps", "30"], cpu=COMPILE_CPU),
    fw("compile_recompile", "compile_mlp.py",
       "torch.compile(dynamic=False) + a new batch size every 20 steps: recompiles",
       "torch._dynamo.mark_dynamic(x, 0)",
       variants={"bad": ["--recompile"], "fixed": ["--recompile", "--fix"]}, est_s=30.0,
       record=["--steps", "60"], cpu=COMPILE_CPU),
    fw("alloc_transformer", "alloc_transformer.py", "torch.cuda.empty_cache() after every step",
       "no empty_cache() in the loop", est_s=12.0),
    fw("manual_sgd", "manual_sgd.py", None, None, variants={"plain": []},
       record=["--steps", "80"], est_s=8.0),
    fw("autotune_cnn", "autotune_cnn.py", None, None, variants={"plain": []},
       needs=("torchvision",), record=["--steps", "50"], est_s=12.0),
    fw("varlen_transformer", "varlen_transformer.py",
       "torch.cuda.empty_cache() every step, a new sequence length each step",
       "no empty_cache() in the loop", record=["--steps", "60"], est_s=12.0),
    fw("heldout_resnet50", "heldout_resnet50.py", "DataLoader(num_workers=0), per-sample "
       "RandomResizedCrop", "num_workers=6, pin_memory, persistent_workers", held_out=True,
       needs=("torchvision",), est_s=14.0),
    fw("heldout_bert", "heldout_bert.py", "loss.item() every step",
       "losses summed on the device, read every 50 steps", held_out=True,
       needs=("transformers",), est_s=12.0),
    gpubound("optimizer", "AdamW() (foreach, torch's default)", "AdamW(fused=True)"),
    gpubound("elementwise", "GELU (tanh) and RMSNorm written out, eager", "torch.compile(model)"),
    gpubound("small_gemm", "every Linear over the batch in 64-row chunks", "one GEMM"),
    gpubound("copies", "clones and a zeroed buffer every step", "no clones, the buffer kept"),
    gpubound("fp32", "fp32 GEMMs, TF32 off", "autocast(bfloat16)"),
    host("collate", "slow Python collate_fn (num_workers=0)", "vectorised collate"),
    host("item", "loss.item() every step", "losses summed on the device, read every 100 steps"),
    host("pyloop", "Python loop over a 100-entry GPU tensor per step", "one vectorised expression"),
] + [binary(kind, *case) for kind in (CABI, CXX) for case in C_CASES]

BY_NAME = {p.name: p for p in PROGRAMS}
GROUPS = ("frameworks", "host", CABI, CXX)


def select(spec):
    """Programs named by a comma list of program names, configuration names
    (program-variant), group names (frameworks, host, cabi, cxx) or "all". Returns
    [(program, [variants])] in table order."""
    wanted = {}
    for item in [s for s in (spec or "all").split(",") if s]:
        if item == "all":
            for p in PROGRAMS:
                wanted[p.name] = list(p.variants)
        elif item in GROUPS:
            for p in PROGRAMS:
                if p.group == item:
                    wanted[p.name] = list(p.variants)
        elif item in BY_NAME:
            wanted[item] = list(BY_NAME[item].variants)
        else:
            name, _, variant = item.rpartition("-")
            if name not in BY_NAME or variant not in BY_NAME[name].variants:
                raise ValueError("unknown program or configuration %r" % item)
            wanted.setdefault(name, [])
            if variant not in wanted[name]:
                wanted[name].append(variant)
    return [(p, [v for v in p.variants if v in wanted[p.name]]) for p in PROGRAMS
            if p.name in wanted]


def command(program, variant, extra, python="python3", binaries=None, device=None):
    """argv of one run. extra: arguments appended last (steps, --json-out, ...). binaries:
    {CABI: path, CXX: path}. device "cpu" adds the program's CPU smoke arguments (python
    programs only)."""
    if program.kind == PYTHON:
        argv = [python, os.path.join(HERE, program.argv[0])] + program.argv[1:]
        if device == "cpu":
            argv += program.cpu
    else:
        path = (binaries or {}).get(program.kind)
        if not path:
            raise ValueError("%s needs the %s binary (--%s PATH)" % (program.name, program.kind,
                                                                     program.kind))
        argv = [path] + program.argv
    return argv + program.variants[variant] + list(extra)
