#!/usr/bin/env python3
"""Planted host-time cases (issue 20): training programs whose GPU waits for one known Python
function, each with a fixed twin that does the same arithmetic without the planted host time.

    python3 host_plants.py --case collate [--fix]   # slow Python collate_fn, num_workers=0
    python3 host_plants.py --case item [--fix]      # loss.item() every step
    python3 host_plants.py --case pyloop [--fix]    # a Python loop over a small tensor per step

| case | planted (function, category stepscope should blame) | fixed twin |
|---|---|---|
| collate | `collate_slow`: per-sample, per-token Python arithmetic in collate_fn, in the training process (DataLoader(num_workers=0)); `data` | `collate_fast`: the same arithmetic on the stacked tensor |
| item | `record_loss_slow`: `loss.item()` every step; `sync` | `record_loss_fast`: losses summed on the device, read every 100 steps |
| pyloop | `class_weights_slow`: a Python loop over the 100 entries of a class-count tensor on the GPU, ~5 tiny kernels each; `launch` (the launch calls) and `host` (the Python between them) | `class_weights_fast`: one vectorised expression |

The line where each plant's time is spent carries a `# PLANT: <case>` comment: make_truth.py
finds it (file, function, line) from there, never from a typed-in line number. Both twins
compute the same values (the CPU test checks it).

Result line and timing conventions: ../frameworks/harness.py. Does not import stepscope.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "frameworks"))
import harness as H  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

CASES = ("collate", "item", "pyloop")

# Per case: model and batch sizes. collate and pyloop keep the GPU step short (~1 ms, launch
# paced) so that the planted host time is exposed whole; item needs GPU work for the host to
# overlap (~2-3 ms of GEMMs and ~2-3 ms of launches), which the per-step read serialises.
SIZES = {
    "collate": dict(batch=256, seq=128, vocab=8192, d=512, hidden=2048, blocks=2, classes=100,
                    steps=60, warmup=5),
    "item": dict(batch=2048, d=1024, hidden=2048, blocks=12, classes=100, steps=200, warmup=10),
    "pyloop": dict(batch=512, d=512, hidden=2048, blocks=2, classes=100, steps=200, warmup=10),
}
TINY = {
    "collate": dict(batch=4, seq=8, vocab=64, d=16, hidden=32, blocks=1, classes=10),
    "item": dict(batch=8, d=16, hidden=32, blocks=2, classes=10),
    "pyloop": dict(batch=8, d=16, hidden=32, blocks=1, classes=10),
}
TOKEN_MUL, TOKEN_ADD = 7, 3
READ_EVERY = 100


# ----------------------------------------------------------------------------- the plants

def collate_slow(samples, vocab):
    """Planted: remaps every token id in Python, sample by sample."""
    rows = [[(t * TOKEN_MUL + TOKEN_ADD) % vocab for t in s["tokens"].tolist()] for s in samples]  # PLANT: collate
    return torch.tensor(rows), torch.tensor([s["label"] for s in samples])


def collate_fast(samples, vocab):
    """Fixed: the same remapping on the stacked batch, one vectorised expression."""
    tokens = torch.stack([s["tokens"] for s in samples])
    return (tokens * TOKEN_MUL + TOKEN_ADD) % vocab, torch.tensor([s["label"] for s in samples])


def record_loss_slow(history, loss):
    """Planted: the running loss read to the host every step (waits for the GPU)."""
    history["sum"] += loss.item()  # PLANT: item
    history["reads"] += 1


def record_loss_fast(history, loss):
    """Fixed: summed on the device; read every READ_EVERY steps."""
    history["on_device"] += loss.detach().float()
    history["steps"] += 1
    if history["steps"] % READ_EVERY == 0:
        history["sum"] += history["on_device"].item()
        history["on_device"].zero_()
        history["reads"] += 1


def class_weights_slow(counts):
    """Planted: inverse-sqrt class weights, one class at a time in Python (each entry a few
    tiny kernels: cast, sqrt, add, reciprocal, store)."""
    weights = torch.empty(counts.shape[0], device=counts.device)
    for c in range(counts.shape[0]):
        weights[c] = 1.0 / (1.0 + counts[c].float().sqrt())  # PLANT: pyloop
    return weights


def class_weights_fast(counts):
    return 1.0 / (1.0 + counts.float().sqrt())


def class_counts(y, classes):
    """Labels per class, without a host sync: torch.bincount (and one_hot) read the labels'
    maximum back to the host on CUDA, which would put an unplanted sync in every step."""
    return torch.zeros(classes, dtype=torch.long, device=y.device).scatter_add_(
        0, y, torch.ones_like(y))


# ----------------------------------------------------------------------------- the program

class Block(nn.Module):
    def __init__(self, d, hidden):
        super().__init__()
        self.norm, self.up, self.down = nn.LayerNorm(d), nn.Linear(d, hidden), nn.Linear(hidden, d)

    def forward(self, x):
        return x + self.down(F.gelu(self.up(self.norm(x))))


def make_model(size, tokens):
    stem = [nn.EmbeddingBag(size["vocab"], size["d"], mode="mean")] if tokens else []
    return nn.Sequential(*stem, *[Block(size["d"], size["hidden"]) for _ in range(size["blocks"])],
                         nn.LayerNorm(size["d"]), nn.Linear(size["d"], size["classes"]))


class TokenSamples(torch.utils.data.Dataset):
    """Token sequences with a label; sample i is the same in both twins."""

    def __init__(self, length, size, pool=64):
        gen = torch.Generator().manual_seed(0)
        self.tokens = torch.randint(0, size["vocab"], (pool, size["seq"]), generator=gen)
        self.labels = torch.randint(0, size["classes"], (pool,), generator=gen).tolist()
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        return {"tokens": self.tokens[i % len(self.tokens)], "label": self.labels[i % len(self.labels)]}


def token_loader(size, total, fixed):
    collate = collate_fast if fixed else collate_slow
    data = TokenSamples(total * size["batch"], size)
    return torch.utils.data.DataLoader(data, batch_size=size["batch"], num_workers=0,
                                       collate_fn=lambda s: collate(s, size["vocab"]))


def feature_batches(size, dev, n=4):
    gen = torch.Generator().manual_seed(0)
    teacher = torch.randn(size["d"], size["classes"], generator=gen)
    xs = [torch.randn(size["batch"], size["d"], generator=gen) for _ in range(n)]
    return [(x.to(dev), (x @ teacher).argmax(-1).to(dev)) for x in xs]


def batches(case, size, total, args, dev):
    """(x, y) on the device, step after step: through the DataLoader for collate."""
    if case == "collate":
        for x, y in token_loader(size, total, args.fix):
            yield x.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        return
    pool = feature_batches(size, dev)
    for step in range(total):
        yield pool[step % len(pool)]


def train(args, size, dev, clock):
    case = args.case
    model = make_model(size, tokens=case == "collate").to(dev)
    fused = {"fused": True} if dev.type == "cuda" else {}  # torch < 2.0 has no fused AdamW
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, **fused)
    history = {"sum": 0.0, "reads": 0, "steps": 0, "on_device": torch.zeros((), device=dev)}
    record = record_loss_fast if (args.fix or case != "item") else record_loss_slow
    weights_of = class_weights_fast if (args.fix or case != "pyloop") else class_weights_slow
    total = args.warmup + args.steps
    for step, (x, y) in enumerate(batches(case, size, total, args, dev)):
        if step == args.warmup:
            clock.start()
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=dev.type, dtype=torch.bfloat16):
            logits = model(x)
        weight = weights_of(class_counts(y, size["classes"]))
        loss = F.cross_entropy(logits.float(), y, weight=weight)
        loss.backward()
        opt.step()
        record(history, loss)
        clock.step()
    clock.stop()
    history["final_loss"] = float(loss.detach())
    return history


WHAT = {
    "collate": ("collate_fn remaps each token in Python, per sample (num_workers=0)",
                "the same remapping vectorised on the stacked batch"),
    "item": ("loss.item() every step", "losses summed on the device, read every %d steps"
             % READ_EVERY),
    "pyloop": ("class weights computed in a Python loop over a 100-entry GPU tensor",
               "one vectorised expression"),
}


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=None, warmup=None)
    ap.add_argument("--case", required=True, choices=CASES)
    args = ap.parse_args()
    size = dict(SIZES[args.case])
    if args.tiny:
        size.update(TINY[args.case])
    args.steps = size["steps"] if args.steps is None else args.steps
    args.warmup = size["warmup"] if args.warmup is None else args.warmup
    H.check_counts(args)
    dev = H.device(args)
    torch.manual_seed(0)
    clock = H.Clock(args, dev)
    history = train(args, size, dev, clock)
    planted, fix = WHAT[args.case]
    H.finish(args, "host_" + args.case, clock, planted=planted, fix=fix, case=args.case,
             loss_reads=history["reads"], final_loss=history["final_loss"],
             sizes={k: v for k, v in size.items() if k not in ("steps", "warmup")})


if __name__ == "__main__":
    main()
