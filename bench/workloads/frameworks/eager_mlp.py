#!/usr/bin/env python3
"""Eager launch-bound training loop: an MLP of 24 narrow residual blocks (148 parameters) with
a per-parameter optimizer.

    python3 eager_mlp.py            # planted: AdamW(foreach=False) + clip_grad_norm_(foreach=False)
    python3 eager_mlp.py --fix      # fixed twin: AdamW(fused=True) + clip_grad_norm_(foreach=True)

Planted: every parameter is updated by its own small kernels (lerp, mul, addcmul, sqrt, div,
addcdiv, ...: ~8 per parameter) and its gradient norm is taken one tensor at a time, so the
step is ~2,000 tiny kernels (~1,700 of them in the optimizer and clipping) and the GPU waits for
the host to launch them. The fixed twin does the same arithmetic in a few multi-tensor kernels.
Data lives on the GPU (no loader): the only host work is launching.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402  (first: it notes the process start)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import nets  # noqa: E402

SIZES = dict(d=256, blocks=24, classes=100, batch=512)
TINY = dict(d=32, blocks=24, classes=10, batch=8)


def make_optimizer(params, fixed):
    if not fixed:
        return torch.optim.AdamW(params, lr=1e-3, foreach=False)
    try:
        return torch.optim.AdamW(params, lr=1e-3, fused=True)
    except (RuntimeError, TypeError):  # a torch without fused AdamW on this device
        return torch.optim.AdamW(params, lr=1e-3, foreach=True)


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=200, warmup=10)
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    size = TINY if args.tiny else SIZES
    torch.manual_seed(0)
    model = nets.narrow_mlp(size["d"], size["blocks"], size["classes"]).to(dev)
    params = list(model.parameters())
    opt = make_optimizer(params, args.fix)
    batches = nets.synthetic_batches(4, size["batch"], size["d"], size["classes"], dev)
    clock = H.Clock(args, dev)
    loss = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        x, y = batches[step % len(batches)]
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=args.fix)
        opt.step()
        clock.step()
    clock.stop()
    H.finish(args, "eager_mlp", clock,
             planted="AdamW(foreach=False) + clip_grad_norm_(foreach=False): ~8 kernels per "
                     "parameter, %d parameters" % len(params),
             fix="AdamW(fused=True) + clip_grad_norm_(foreach=True)",
             parameters=len(params), optimizer=opt.defaults.get("fused") and "fused" or
             ("foreach" if opt.defaults.get("foreach") else "per-parameter"),
             sizes=size, final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
