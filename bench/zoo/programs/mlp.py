#!/usr/bin/env python3
"""An MLP classifier of residual blocks (LayerNorm -> Linear(d, 2d) -> GELU -> Linear(2d, d)),
cross-entropy, Adam; batches made on the GPU, or from a DataLoader over features in host
memory (--data loader).

    python3 mlp.py --blocks 16 --d 256 --per-param     # narrow: Adam one parameter at a time
    python3 mlp.py --compile --fused-optim --no-sync   # compiled, still many small kernels
    python3 mlp.py --cuda-graph --no-sync              # the whole step in a CUDA graph
    python3 mlp.py --data loader --workers 4 --pin --smooth-targets   # label-smoothed targets

--per-param: Adam(foreach=False), one update per parameter tensor (PyTorch's default foreach
otherwise). --smooth-targets: label-smoothed one-hot targets built each step on the CPU from
the loader's labels and copied with .to(device) (--device-tensors builds them on the GPU).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import nets  # noqa: E402  (bench/workloads/frameworks: the narrow blocks)

FLAGS = ("workers", "pin", "bf16", "compile", "cuda_graph", "no_sync", "fused_optim",
         "device_tensors")
TINY = dict(blocks=3, d=32, classes=10, batch=8)
SMOOTH = 0.1


class Features(torch.utils.data.Dataset):
    """Feature rows in host memory with labels from a fixed linear teacher."""

    def __init__(self, length, d, classes, pool=4096):
        gen = torch.Generator().manual_seed(0)
        self.x = torch.randn(pool, d, generator=gen)
        self.y = (self.x @ torch.randn(d, classes, generator=gen)).argmax(-1)
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        return self.x[i % len(self.x)], int(self.y[i % len(self.x)])


def smoothed(y, classes, dev, on_device):
    """Label-smoothed one-hot targets: built on the CPU and copied (the plant), or on the GPU."""
    where = dev if on_device else torch.device("cpu")
    t = torch.full((y.shape[0], classes), SMOOTH / (classes - 1), device=where)
    t.scatter_(1, y.unsqueeze(1), 1 - SMOOTH)
    return t.to(dev)


def batches(args, size, dev):
    if args.data == "gpu":
        fixed = nets.synthetic_batches(4, size["batch"], size["d"], size["classes"], dev)
        return C.endless(fixed)
    ds = Features((args.warmup + args.steps + 8) * size["batch"], size["d"], size["classes"])
    return C.endless(C.loader(ds, size["batch"], args))


def targets_step(model, opt, args, dev):
    """The step on (x, smoothed targets): soft-target cross-entropy."""
    def step(batch):
        x, target = batch
        opt.zero_grad(set_to_none=True)
        with C.autocast(args, dev):
            loss = torch.sum(-target * F.log_softmax(model(x).float(), -1), -1).mean()
        loss.backward()
        opt.step()
        return loss
    return step


def with_targets(args, dev, classes):
    """prepare(batch) of --smooth-targets: features to the device, the loader's labels made
    into smoothed targets on the CPU then copied (or, --device-tensors, on the GPU)."""
    def prepare(batch):
        x, y = batch
        if args.device_tensors:
            y = y.to(dev, non_blocking=args.pin)
        return C.to_device(x, dev, args), smoothed(y, classes, dev, args.device_tensors)
    return prepare


def main():
    ap = C.parser(__doc__, FLAGS)
    for key, value in (("blocks", 16), ("d", 256), ("classes", 100), ("batch", 512)):
        ap.add_argument("--" + key, type=int, default=value)
    ap.add_argument("--data", default="gpu", choices=["gpu", "loader"])
    ap.add_argument("--per-param", action="store_true", help="Adam(foreach=False)")
    ap.add_argument("--smooth-targets", action="store_true",
                    help="label-smoothed targets built per step (on the CPU unless "
                         "--device-tensors)")
    args, dev = C.setup(ap)
    size = TINY if args.tiny else {k: getattr(args, k) for k in TINY}
    model = C.prepare_model(nets.narrow_mlp(size["d"], size["blocks"], size["classes"]), args,
                            dev)
    kw = {} if args.fused_optim else {"foreach": not args.per_param}
    opt = C.optimizer("Adam", model.parameters(), args, dev, lr=1e-3, **kw)
    run = C.compile_model(model, args, dev)
    if args.smooth_targets:
        step, prepare = targets_step(run, opt, args, dev), with_targets(args, dev, size["classes"])
    else:
        step, prepare = C.supervised_step(run, opt, F.cross_entropy, args, dev), None
    clock, losses = C.train(args, dev, batches(args, size, dev), step, prepare=prepare)
    C.finish(args, "mlp", clock, losses, planted=None, sizes=size, per_param=args.per_param,
             smooth_targets=args.smooth_targets, parameters=len(list(model.parameters())))


if __name__ == "__main__":
    main()
