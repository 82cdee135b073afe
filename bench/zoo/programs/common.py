"""Shared by the zoo's programs (bench/zoo/programs/): the fix flags, the DataLoader, the
training loop of the plain PyTorch programs and the result line (through
bench/workloads/frameworks/harness.py, whose conventions every program follows).

A program plants its causes by its defaults and exposes each fix as a flag that applies it
the way a user would (bench/zoo/zoo.py maps the report's findings to these flags):

  --workers N        DataLoader(num_workers=N) (persistent workers, prefetch_factor 4)
  --pin              pinned batches: DataLoader(pin_memory=True), .to(device, non_blocking=True)
  --bf16             torch.autocast("cuda", dtype=torch.bfloat16) around forward and loss
  --compile          torch.compile(model) (--compile-mode reduce-overhead: CUDA graphs)
  --cuda-graph       the whole step (forward, backward, optimizer) captured once, replayed
  --channels-last    model and inputs in torch.channels_last
  --no-sync          the loss summed on the device and read every READ_EVERY steps, not
                     with .item() every step
  --no-empty-cache   no torch.cuda.empty_cache() after each step
  --fused-optim      the optimizer with fused=True (foreach on the CPU)
  --device-tensors   per-step tensors made on the device instead of on the CPU

Only the flags a program names are added to its parser. On the CPU (--device cpu, the smoke
test) torch.compile uses the aot_eager backend (dynamo's guards, no code generation) and
--cuda-graph skips (exit 77). Programs need torch >= 2.0 only for what needs it (compile):
the rest runs on Debian's torch 1.13 too.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "workloads", "frameworks"))
import harness as H  # noqa: E402,F401  (first: it notes the process start)

import torch  # noqa: E402

STEPS, WARMUP = 35, 10
READ_EVERY = 50
INTRAOP_THREADS = 4  # per-sample torch ops over every core of a large host make runs swing


def _flag(ap, name, default, help_text):
    ap.add_argument("--" + name, action="store_true", default=bool(default), help=help_text)


FLAGS = {
    "workers": lambda ap, d: ap.add_argument(
        "--workers", type=int, default=d or 0, help="DataLoader(num_workers=N) (default %(default)s)"),
    "pin": lambda ap, d: _flag(ap, "pin", d, "pinned batches, non_blocking copies"),
    "bf16": lambda ap, d: _flag(ap, "bf16", d, "bf16 autocast around forward and loss"),
    "compile": lambda ap, d: (_flag(ap, "compile", d, "torch.compile(model)"),
                              ap.add_argument("--compile-mode", default="default",
                                              choices=["default", "reduce-overhead"])),
    "cuda_graph": lambda ap, d: _flag(ap, "cuda-graph", d, "the whole step in a CUDA graph"),
    "channels_last": lambda ap, d: _flag(ap, "channels-last", d, "torch.channels_last"),
    "no_sync": lambda ap, d: _flag(ap, "no-sync", d, "loss read every %d steps" % READ_EVERY),
    "no_empty_cache": lambda ap, d: _flag(ap, "no-empty-cache", d, "no empty_cache() per step"),
    "fused_optim": lambda ap, d: _flag(ap, "fused-optim", d, "optimizer(fused=True)"),
    "no_pbar_log": lambda ap, d: _flag(ap, "no-pbar-log", d,
                                       "self.log(..., prog_bar=False) (Lightning)"),
    "device_tensors": lambda ap, d: _flag(ap, "device-tensors", d, "per-step tensors on the device"),
}


def parser(doc, flags, steps=STEPS, warmup=WARMUP, **defaults):
    """harness's parser plus the named fix flags; defaults: a flag's default (workers=0, ...)."""
    ap = H.parser(doc.split("\n\n")[0], steps, warmup)
    for name in flags:
        FLAGS[name](ap, defaults.get(name))
    return ap


def setup(ap):
    """Parses, checks and returns (args, device, sizes key 'tiny' or 'full')."""
    args = ap.parse_args()
    H.check_counts(args)
    if getattr(args, "cuda_graph", False) and args.device != "cuda":
        H.skip("CUDA graphs need a CUDA device")
    if getattr(args, "compile", False) and not hasattr(torch, "compile"):
        H.skip("torch.compile needs torch >= 2.0 (torch %s)" % torch.__version__)
    if torch.get_num_threads() > INTRAOP_THREADS:
        torch.set_num_threads(INTRAOP_THREADS)
    torch.manual_seed(0)
    return args, H.device(args)


def need(module, what=None):
    """Imports a module or skips the program (exit 77) when it is not installed."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        H.skip("%s not installed" % (what or module))


def compile_model(model, args, dev):
    """torch.compile(model) as --compile asks; aot_eager on the CPU (the smoke test)."""
    if not getattr(args, "compile", False):
        return model
    kwargs = {"backend": "aot_eager"} if dev.type == "cpu" else {}
    if getattr(args, "compile_mode", "default") != "default" and dev.type != "cpu":
        kwargs["mode"] = args.compile_mode
    return torch.compile(model, **kwargs)


def prepare_model(model, args, dev):
    """To the device (channels_last when asked), then compiled when asked."""
    if getattr(args, "channels_last", False):
        model = model.to(dev, memory_format=torch.channels_last)
    else:
        model = model.to(dev)
    return model


def optimizer(kind, params, args, dev, **kw):
    """torch.optim.<kind> with fused=True under --fused-optim (CUDA; foreach on the CPU)."""
    cls = getattr(torch.optim, kind)
    if getattr(args, "fused_optim", False):
        kw["fused" if dev.type == "cuda" else "foreach"] = True
    if getattr(args, "cuda_graph", False):
        kw["capturable"] = True
    return cls(params, **kw)


def autocast(args, dev):
    """bf16 autocast under --bf16; without its cast cache in a captured step (torch.cuda.graph
    requires cache_enabled=False)."""
    return torch.autocast(device_type=dev.type, dtype=torch.bfloat16,
                          enabled=bool(getattr(args, "bf16", False)),
                          cache_enabled=not getattr(args, "cuda_graph", False))


def loader(dataset, batch, args, collate_fn=None):
    """The DataLoader with the program's --workers and --pin."""
    kw = dict(batch_size=batch, shuffle=False, drop_last=True, collate_fn=collate_fn,
              num_workers=args.workers, pin_memory=bool(getattr(args, "pin", False)))
    if args.workers > 0:
        kw.update(persistent_workers=True, prefetch_factor=4)
    return torch.utils.data.DataLoader(dataset, **kw)


def to_device(batch, dev, args):
    """Moves a batch (a tensor, or a tuple/list/dict of them) the way the program copies."""
    nb = bool(getattr(args, "pin", False))
    if isinstance(batch, torch.Tensor):
        x = batch.to(dev, non_blocking=nb)
        if getattr(args, "channels_last", False) and x.dim() == 4:
            x = x.contiguous(memory_format=torch.channels_last)
        return x
    if isinstance(batch, dict):
        return {k: to_device(v, dev, args) for k, v in batch.items()}
    return type(batch)(to_device(b, dev, args) for b in batch)


class Losses:
    """The running loss as users keep it: loss.item() every step (the sync plant), or, under
    --no-sync, summed on the device and read every READ_EVERY steps."""

    def __init__(self, args, dev):
        self.every_step = not getattr(args, "no_sync", True)
        self.total, self.reads = 0.0, 0
        self.on_device = torch.zeros((), device=dev)
        self.last = None

    def add(self, loss, step):
        self.last = loss
        if self.every_step:
            self.total += loss.item()
            self.reads += 1
            return
        self.on_device += loss.detach().float()
        if (step + 1) % READ_EVERY == 0:
            self.total += self.on_device.item()
            self.on_device.zero_()
            self.reads += 1

    def final(self):
        return None if self.last is None else float(self.last.detach().float().cpu())


def graphed(step_fn, batch, dev):
    """Captures step_fn(batch) (forward, backward, optimizer.step) in a CUDA graph after 3
    warm-up calls on a side stream (torch.cuda.graph's recipe). Returns replay(batch), which
    copies the batch into the static inputs and replays; its result is the static loss."""
    static = [t.clone() for t in batch]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step_fn(static)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    # zero_grad(set_to_none=True) inside the capture: backward then allocates the gradients
    # from the graph's pool and each replay overwrites them (the torch.cuda.graph recipe)
    with torch.cuda.graph(graph):
        static_loss = step_fn(static)

    def replay(b):
        for s, t in zip(static, b):
            s.copy_(t, non_blocking=True)
        graph.replay()
        return static_loss
    return replay


def train(args, dev, batches, step_fn, after_step=None, prepare=None):
    """The loop: warm-up steps, then the timed ones (harness.Clock); each batch goes through
    prepare(batch) (default: to_device), then step_fn(batch) returns the loss; under
    --cuda-graph step_fn is captured on the first batch and replayed. Returns (clock,
    Losses)."""
    clock, losses, it = H.Clock(args, dev), Losses(args, dev), iter(batches)
    step, prepare = step_fn, prepare or (lambda b: to_device(b, dev, args))
    for i in range(args.warmup + args.steps):
        if i == args.warmup:
            clock.start()
        batch = prepare(next(it))
        if getattr(args, "cuda_graph", False) and step is step_fn:
            step = graphed(step_fn, batch, dev)
        losses.add(step(batch), i)
        if after_step:
            after_step()
        clock.step()
    clock.stop()
    return clock, losses


def supervised_step(model, opt, loss_fn, args, dev):
    """step(batch): zero_grad, forward + loss under autocast, backward, optimizer step."""
    def step(batch):
        x, y = batch[0], batch[1]
        opt.zero_grad(set_to_none=True)
        with autocast(args, dev):
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step


def empty_cache_plant(args, dev):
    """torch.cuda.empty_cache() after every step unless --no-empty-cache."""
    def after():
        if not args.no_empty_cache and dev.type == "cuda":
            torch.cuda.empty_cache()
    return after


def finish(args, name, clock, losses, planted, **extra):
    fixes = {k: v for k, v in sorted(vars(args).items())
             if k in FLAGS or k in ("workers", "compile_mode")}
    return H.finish(args, name, clock, planted=planted, fix=None, flags=fixes,
                    loss_reads=losses.reads, final_loss=losses.final(), **extra)


def endless(dataset_loader):
    """Cycles a DataLoader (or any iterable) forever."""
    while True:
        for b in dataset_loader:
            yield b
