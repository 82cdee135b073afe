#!/usr/bin/env python3
"""CUDA-graph replay: the whole training step — forward, backward and Adam(capturable=True) —
captured once with torch.cuda.graph, then one g.replay() per step.

    python3 cuda_graph.py --fix     # the graphed program: no optimizer.step() from Python per step
    python3 cuda_graph.py           # its eager twin: the same model and optimizer, launched op by op

The model is eager_mlp's narrow MLP (24 blocks, ~2,000 tiny kernels per step): eagerly it is
launch-bound; replayed it is one graph launch per step. Each step copies its batch into the
graph's static input (one device-to-device copy, outside the graph) and replays. Warm-up:
3 eager steps on a side stream (as the PyTorch docs require before capture), the capture, then
--warmup replays; only the replays after that are timed. The graphed twin calls
optimizer.step() 4 times in all (warm-up and capture), never in the timed steps.

On the CPU the graphed twin prints "skipped: ..." and exits 77; the eager twin runs.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import nets  # noqa: E402

SIZES = dict(d=256, blocks=24, classes=100, batch=512)
TINY = dict(d=32, blocks=4, classes=10, batch=8)
SIDE_STREAM_STEPS = 3  # eager iterations before capture (torch.cuda.graph's documented recipe)


def train_step(model, opt, x, y, zero_grad=True):
    if zero_grad:
        opt.zero_grad(set_to_none=True)
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss


def capture(model, opt, static_x, static_y):
    """Warms up on a side stream, then captures one whole step. Returns (graph, static loss)."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(SIDE_STREAM_STEPS):
            train_step(model, opt, static_x, static_y)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    # Gradients set to None before capture: backward() then allocates them from the graph's
    # private pool and each replay overwrites them (the recipe of the torch.cuda.graph docs).
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        static_loss = train_step(model, opt, static_x, static_y, zero_grad=False)
    return graph, static_loss


def run_graphed(args, model, opt, batches, clock):
    static_x, static_y = batches[0][0].clone(), batches[0][1].clone()
    graph, static_loss = capture(model, opt, static_x, static_y)
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        x, y = batches[step % len(batches)]
        static_x.copy_(x)
        static_y.copy_(y)
        graph.replay()
        clock.step()
    clock.stop()
    return static_loss


def run_eager(args, model, opt, batches, clock):
    loss = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        x, y = batches[step % len(batches)]
        loss = train_step(model, opt, x, y)
        clock.step()
    clock.stop()
    return loss


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=400, warmup=10)
    args = ap.parse_args()
    H.check_counts(args)
    if args.fix and args.device != "cuda":
        H.skip("CUDA graphs need a CUDA device (the eager twin runs on the CPU)")
    dev = H.device(args)
    size = TINY if args.tiny else SIZES
    torch.manual_seed(0)
    model = nets.narrow_mlp(size["d"], size["blocks"], size["classes"]).to(dev)
    # capturable=True keeps the step count on the device, so the update can live in a graph;
    # the eager twin uses the same optimizer so that only the launching differs.
    opt = torch.optim.Adam(model.parameters(), lr=1e-3,
                           capturable=dev.type == "cuda", foreach=True)
    batches = nets.synthetic_batches(4, size["batch"], size["d"], size["classes"], dev)
    run = run_graphed if args.fix else run_eager
    loss = run(args, model, opt, batches, clock := H.Clock(args, dev))
    H.finish(args, "cuda_graph", clock,
             planted="the step launched op by op from Python (eager)",
             fix="forward + backward + Adam(capturable=True) captured once with "
                 "torch.cuda.graph, g.replay() per step",
             graphed=bool(args.fix), optimizer_steps_from_python=(
                 SIDE_STREAM_STEPS + 1 if args.fix else args.warmup + args.steps),
             sizes=size, final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
