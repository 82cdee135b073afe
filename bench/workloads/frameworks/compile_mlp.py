#!/usr/bin/env python3
"""torch.compile on a small MLP: default mode, mode="reduce-overhead", and a program that
recompiles in steady state with its fixed twin.

    python3 compile_mlp.py                          # torch.compile(model), default mode
    python3 compile_mlp.py --mode reduce-overhead   # CUDA graphs through cudagraph trees
    python3 compile_mlp.py --recompile              # planted: recompiles in the timed steps
    python3 compile_mlp.py --recompile --fix        # fixed twin: torch._dynamo.mark_dynamic

The model (8 narrow blocks, d 512) is compiled; AdamW(fused=True) runs eagerly outside it.
Warm-up steps hold the first compilation (and, for reduce-overhead, the graph recording).

--recompile plants the classic steady-state recompilation: the batch size changes every
--shape-every steps (a new size each time, as with bucketed sequence lengths or a shrinking
last batch) and the model was compiled with dynamic=False, which turns automatic dynamic shapes
off, so every new size recompiles forward and backward (up to dynamo's recompile limit of 8,
which this program stays under: 4 sizes in the default run). The fixed twin compiles with the
default dynamic=None and marks the batch dimension dynamic (torch._dynamo.mark_dynamic(x, 0)):
one compilation serves every size. Both twins see the same sizes. The result line counts the
graphs compiled before and during the timed steps (torch._dynamo counters).

Inductor keeps compiled code in its on-disk caches, so the first run after they were emptied
compiles more slowly than the next ones: time it after one untimed run (run_twins.py --prime).
--backend aot_eager (no code generation: dynamo's guards and recompiles stay the same) is what
the CPU smoke test uses to stay fast.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import nets  # noqa: E402

SIZES = dict(d=512, blocks=8, classes=100, batch=1024, batch_growth=64)
TINY = dict(d=32, blocks=2, classes=10, batch=16, batch_growth=8)


def unique_graphs():
    from torch._dynamo.utils import counters
    return int(counters["stats"]["unique_graphs"])


def batch_size(size, step, args):
    """The recompiling program's batch size at a step: a new size every --shape-every steps."""
    if not args.recompile:
        return size["batch"]
    return size["batch"] + size["batch_growth"] * (step // args.shape_every)


def make_batches(size, args, dev):
    """{batch size: (x, y)} for every size the run will see; dynamic dim marked in --fix."""
    total = args.warmup + args.steps
    sizes = sorted({batch_size(size, s, args) for s in range(total)})
    out = {}
    for i, b in enumerate(sizes):
        (x, y), = nets.synthetic_batches(1, b, size["d"], size["classes"], dev, seed=i)
        if args.recompile and args.fix:
            torch._dynamo.mark_dynamic(x, 0)
            torch._dynamo.mark_dynamic(y, 0)
        out[b] = (x, y)
    return out


def compile_model(model, args):
    kwargs = {"backend": args.backend}
    if args.mode != "default":
        kwargs["mode"] = args.mode
    if args.recompile and not args.fix:
        kwargs["dynamic"] = False  # the plant: no automatic dynamic shapes
    return torch.compile(model, **kwargs)


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=60, warmup=5)
    ap.add_argument("--mode", default="default", choices=["default", "reduce-overhead"])
    ap.add_argument("--recompile", action="store_true",
                    help="the steady-state recompilation program (--fix: its fixed twin)")
    ap.add_argument("--shape-every", type=int, default=20,
                    help="--recompile: a new batch size every N steps (default 20)")
    ap.add_argument("--backend", default="inductor",
                    help="torch.compile backend (the CPU smoke test uses aot_eager)")
    args = ap.parse_args()
    H.check_counts(args)
    if args.fix and not args.recompile:
        H.fail("--fix is the twin of --recompile (default and reduce-overhead have none)")
    if args.recompile and args.mode != "default":
        H.fail("--recompile runs in the default mode")
    if args.shape_every < 1:
        H.fail("--shape-every must be >= 1")
    dev = H.device(args)
    size = TINY if args.tiny else SIZES
    torch.manual_seed(0)
    model = nets.narrow_mlp(size["d"], size["blocks"], size["classes"]).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=dev.type == "cuda")
    compiled = compile_model(model, args)
    batches = make_batches(size, args, dev)
    clock = H.Clock(args, dev)
    graphs_before = loss = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
            graphs_before = unique_graphs()
        x, y = batches[batch_size(size, step, args)]
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(compiled(x), y)
        loss.backward()
        opt.step()
        clock.step()
    clock.stop()
    if args.recompile:
        program = "compile_recompile"
        planted = ("torch.compile(dynamic=False) and a new batch size every %d steps: "
                   "forward and backward recompile in the timed steps" % args.shape_every)
        fix = "torch.compile() with torch._dynamo.mark_dynamic(x, 0): one dynamic compilation"
    else:
        program = "compile_" + args.mode.replace("-", "_")
        planted, fix = None, None
    H.finish(args, program, clock, planted=planted, fix=fix, mode=args.mode,
             backend=args.backend, graphs_compiled_warmup=graphs_before,
             graphs_compiled_timed=unique_graphs() - graphs_before,
             batch_sizes=sorted(batches), sizes=size,
             final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
