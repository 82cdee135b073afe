#!/usr/bin/env python3
"""GPU-bound training loops with one planted GPU-side cost each, and their fixed twins (the
findings of issue #31: none of them is about the host or the input pipeline).

    python3 gpubound_twins.py --case optimizer          # planted: AdamW() (foreach, torch's default)
    python3 gpubound_twins.py --case optimizer --fix    # fixed twin: AdamW(fused=True)
    python3 gpubound_twins.py --case elementwise        # planted: hand-written GELU and RMSNorm, eager
    python3 gpubound_twins.py --case elementwise --fix  # fixed twin: torch.compile(model)
    python3 gpubound_twins.py --case small_gemm         # planted: the batch multiplied in 64-row chunks
    python3 gpubound_twins.py --case small_gemm --fix   # fixed twin: one GEMM over the batch
    python3 gpubound_twins.py --case copies             # planted: clones and zeroed buffers every step
    python3 gpubound_twins.py --case copies --fix       # fixed twin: buffers kept, no clones
    python3 gpubound_twins.py --case fp32               # planted: fp32 GEMMs, TF32 off
    python3 gpubound_twins.py --case fp32 --fix         # fixed twin: autocast(bfloat16)

Every case trains the same kind of model, an MLP of residual blocks (Linear d->4d, activation,
Linear 4d->d) on a batch of tokens that lives on the GPU, sized so that the GPU is busy all the
step: the planted part costs GPU time, not launches, and the fixed twin does the same arithmetic
(the same loss to rounding) without it. What each finding should name:

    optimizer    unfused_optimizer    foreach AdamW makes ~21 passes over the parameters' tensors
                                      where the fused one makes ~7
    elementwise  unfused_elementwise  GELU's tanh formula and RMSNorm as separate kernels over
                                      (batch, 4d) tensors; Inductor fuses each chain
    small_gemm   small_gemms          each 64-row chunk's GEMM fills a few of the SMs (on the H200
                                      cuBLAS tiles them to 116-132 blocks: the step becomes
                                      launch-bound, 17,500 launches, and launch_bound names it)
    copies       device_copies        a snapshot of the weights and AdamW state every step (1 GiB
                                      of D2D copies), a D2D clone of the activations and of the
                                      batch (cudaMemcpyAsync D2D), and a freshly zeroed accumulation
                                      buffer (torch fills it with a kernel, not a memset: the
                                      finding should not count that part)
    fp32         no_mixed_precision   fp32 GEMMs without tensor cores
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402  (first: it notes the process start)

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

# case: (what the bad twin plants, what the fixed twin does instead)
CASES = {
    "optimizer": ("AdamW() (foreach)", "AdamW(fused=True)"),
    "elementwise": ("GELU (tanh) and RMSNorm written out, eager", "torch.compile(model)"),
    "small_gemm": ("every Linear over the batch in 64-row chunks", "one GEMM over the batch"),
    "copies": ("a device copy of the weights and AdamW state every step, x.clone(), "
               "torch.zeros_like(acc) and out.clone()",
               "no snapshot in the loop, no clones; the buffer kept"),
    "fp32": ("fp32 GEMMs, TF32 off", "autocast(bfloat16)"),
}
SIZES = dict(d=2048, blocks=8, batch=8192, chunk=64)
TINY = dict(d=32, blocks=2, batch=256, chunk=64)


def gelu_tanh(x):
    """GELU's tanh approximation written out: six elementwise kernels in eager mode."""
    return 0.5 * x * (1.0 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


def rms_norm(x, weight, eps=1e-6):
    """RMSNorm written out: a square, a mean, an rsqrt and two products."""
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


class Block(torch.nn.Module):
    def __init__(self, d, handwritten):
        super().__init__()
        self.up = torch.nn.Linear(d, 4 * d)
        self.down = torch.nn.Linear(4 * d, d)
        self.norm = torch.nn.Parameter(torch.ones(d))
        self.handwritten = handwritten
        self.chunk = 0  # > 0: the GEMMs run chunk rows at a time (the small_gemm plant)

    def linear(self, layer, x):
        if self.chunk <= 0:
            return layer(x)
        return torch.cat([layer(part) for part in x.split(self.chunk)])

    def forward(self, x):
        if self.handwritten:
            h = gelu_tanh(self.linear(self.up, rms_norm(x, self.norm)))
        else:
            h = F.gelu(self.linear(self.up, F.rms_norm(x, (x.shape[-1],), self.norm)),
                       approximate="tanh") if hasattr(F, "rms_norm") else \
                F.gelu(self.linear(self.up, rms_norm(x, self.norm)))
        return x + self.linear(self.down, h)


def make_model(args, size, dev):
    handwritten = args.case == "elementwise"
    model = torch.nn.Sequential(*[Block(size["d"], handwritten) for _ in range(size["blocks"])])
    if args.case == "small_gemm" and not args.fix:
        for b in model:
            b.chunk = size["chunk"]
    model = model.to(dev)
    if args.case == "elementwise" and args.fix:
        if not hasattr(torch, "compile"):
            H.skip("torch.compile needs torch 2 (this is %s)" % torch.__version__)
        # on the CPU smoke run, no code generation (a C++ compiler per kernel): dynamo alone
        return model, torch.compile(model, backend="inductor" if dev.type == "cuda" else "aot_eager")
    return model, model


def make_optimizer(args, params):
    if args.case == "optimizer" and not args.fix:
        return torch.optim.AdamW(params, lr=1e-4, foreach=True)
    try:
        return torch.optim.AdamW(params, lr=1e-4, fused=True)
    except (RuntimeError, TypeError):  # no fused AdamW on this device or torch
        return torch.optim.AdamW(params, lr=1e-4, foreach=True)


def autocast(args, dev):
    """bf16 autocast everywhere but the fp32 plant; TF32 off there, so fp32 means fp32."""
    if args.case == "fp32" and not args.fix:
        torch.backends.cuda.matmul.allow_tf32 = False
        return torch.autocast(dev.type, enabled=False)
    return torch.autocast(dev.type, dtype=torch.bfloat16)


class Copies:
    """The copies plant: what a loop keeps per step by copying instead of reusing."""

    def __init__(self, args, size, dev):
        self.on = args.case == "copies" and not args.fix
        self.acc = torch.zeros(size["batch"], size["d"], device=dev)

    def before(self, x):
        if not self.on:
            return x
        self.acc = torch.zeros_like(self.acc)  # a fresh zeroed buffer each step (a fill kernel)
        return x.clone()                        # "keep the batch as it was": a D2D copy

    def after(self, out):
        if self.on:
            self.acc.add_(out.detach().float().clone())  # the activations copied once more
        return out

    def after_step(self, model, opt):
        """ "keep the last good weights": a snapshot of the weights and the optimizer's state
        on the device every step (1 GiB of D2D copies at the GPU's size), where saving one
        only when it is needed (or a checkpoint) would do."""
        if not self.on:
            return
        tensors = [p for p in model.parameters()]
        tensors += [t for st in opt.state.values() for t in st.values()
                    if torch.is_tensor(t) and t.dim() > 0]
        self.snapshot = [t.detach().clone() for t in tensors]


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=60, warmup=10)
    ap.add_argument("--case", required=True, choices=list(CASES))
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    size = TINY if args.tiny else SIZES
    torch.manual_seed(0)
    model, run = make_model(args, size, dev)
    opt = make_optimizer(args, list(model.parameters()))
    copies = Copies(args, size, dev)
    x = torch.randn(size["batch"], size["d"], device=dev)
    target = torch.randn(size["batch"], size["d"], device=dev)
    clock = H.Clock(args, dev)
    loss = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        opt.zero_grad(set_to_none=True)
        with autocast(args, dev):
            out = copies.after(run(copies.before(x)))
            loss = F.mse_loss(out.float(), target)
        loss.backward()
        opt.step()
        copies.after_step(model, opt)
        clock.step()
    clock.stop()
    planted, fix = CASES[args.case]
    H.finish(args, "gpubound_%s" % args.case, clock, planted=planted, fix=fix, sizes=size, parameters=sum(p.numel() for p in model.parameters()),
             final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
