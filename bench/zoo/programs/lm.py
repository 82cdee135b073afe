#!/usr/bin/env python3
"""A causal language model built from nn.TransformerEncoder (pre-norm layers, a causal mask,
an embedding and a linear head over the vocabulary) trained on token batches that live on the
GPU, AdamW, a running loss.

    python3 lm.py --layers 6 --vary-length                        # lengths change every step,
                                                                  # empty_cache() after each
    python3 lm.py --layers 8 --d 1024 --bf16 --fused-optim --no-sync --no-empty-cache
    python3 lm.py --compile --vary-length --bf16 --no-empty-cache # a new shape every step
    python3 lm.py --cuda-graph --bf16 --no-empty-cache            # the step replayed

--vary-length draws a new sequence length every step (between half and all of --seq), as
unpadded batches of varying text do. Its fixes under torch.compile: --mark-dynamic
(torch._dynamo.mark_dynamic on the length), --dynamic (torch.compile(dynamic=True)), --bucket
(pad every batch to one of two lengths; the pads are left out of the loss). --is-causal tells
the encoder its mask is causal (without it nn.TransformerEncoder checks the mask on the host at
every call: a sync, and a graph break that leaves the encoder eager under torch.compile).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

FLAGS = ("bf16", "compile", "cuda_graph", "no_sync", "no_empty_cache", "fused_optim")
TINY = dict(layers=2, d=32, heads=2, batch=2, seq=16, vocab=64)
PAD = -100


class CausalLM(nn.Module):
    def __init__(self, s, is_causal=False):
        super().__init__()
        # --is-causal: the encoder told its mask is causal (torch 1.13 has no such argument)
        self.causal = {"is_causal": True} if is_causal else {}
        self.embed = nn.Embedding(s["vocab"], s["d"])
        self.pos = nn.Parameter(torch.zeros(s["seq"], s["d"]))
        layer = nn.TransformerEncoderLayer(s["d"], s["heads"], 4 * s["d"], dropout=0.1,
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, s["layers"], enable_nested_tensor=False)
        self.norm = nn.LayerNorm(s["d"])
        self.head = nn.Linear(s["d"], s["vocab"])

    def forward(self, tokens):
        n = tokens.shape[1]
        mask = torch.triu(torch.full((n, n), float("-inf"), device=tokens.device), 1)
        h = self.embed(tokens) + self.pos[:n]
        # is_causal left None: nn.TransformerEncoder compares the mask with a causal
        # one on the host at every call (a sync; a graph break under torch.compile)
        return self.head(self.norm(self.blocks(h, mask=mask, **self.causal)))


def lengths(args, size):
    """The sequence length of each step: --seq, or a new one every step (--vary-length)."""
    total = args.warmup + args.steps + 8
    if not args.vary_length:
        return [size["seq"]] * total
    gen = torch.Generator().manual_seed(3)
    lo = size["seq"] // 2
    return torch.randint(lo, size["seq"] + 1, (total,), generator=gen).tolist()


def bucket(n, seq):
    return 3 * seq // 4 if n <= 3 * seq // 4 else seq


def batches(args, size, dev):
    """(inputs, targets) per step; --bucket pads to two lengths (targets PAD there)."""
    gen = torch.Generator().manual_seed(0)
    pool = torch.randint(0, size["vocab"], (4, size["batch"], size["seq"] + 1), generator=gen)
    pool = pool.to(dev)
    for i, n in enumerate(lengths(args, size)):
        tokens = pool[i % 4, :, :n + 1]
        x, y = tokens[:, :-1], tokens[:, 1:]
        if args.bucket:
            m = bucket(n, size["seq"])
            x = F.pad(x, (0, m - n), value=0)
            y = F.pad(y, (0, m - n), value=PAD)
        if args.mark_dynamic and args.vary_length and args.compile:
            torch._dynamo.mark_dynamic(x, 1)
        yield x, y


def compile_lm(model, args, dev):
    if args.dynamic and args.compile:
        return torch.compile(model, dynamic=True,
                             **({"backend": "aot_eager"} if dev.type == "cpu" else {}))
    return C.compile_model(model, args, dev)


def main():
    ap = C.parser(__doc__, FLAGS)
    for key, value in (("layers", 6), ("d", 512), ("heads", 8), ("batch", 32), ("seq", 256),
                       ("vocab", 8192)):
        ap.add_argument("--" + key, type=int, default=value)
    ap.add_argument("--vary-length", action="store_true", help="a new length every step")
    ap.add_argument("--mark-dynamic", action="store_true", help="mark the length dynamic")
    ap.add_argument("--dynamic", action="store_true", help="torch.compile(dynamic=True)")
    ap.add_argument("--bucket", action="store_true", help="pad batches to two lengths")
    ap.add_argument("--is-causal", action="store_true",
                    help="pass is_causal=True with the mask (no mask check on the host)")
    args, dev = C.setup(ap)
    size = TINY if args.tiny else {k: getattr(args, k) for k in TINY}
    if args.cuda_graph and args.vary_length and not args.bucket:
        C.H.fail("--cuda-graph needs one shape: not with --vary-length (without --bucket)")
    model = C.prepare_model(CausalLM(size, args.is_causal), args, dev)
    opt = C.optimizer("AdamW", model.parameters(), args, dev, lr=3e-4)
    run = compile_lm(model, args, dev)

    def loss_fn(logits, y):
        return F.cross_entropy(logits.flatten(0, 1), y.flatten(), ignore_index=PAD)
    step = C.supervised_step(run, opt, loss_fn, args, dev)
    clock, losses = C.train(args, dev, batches(args, size, dev), step,
                            C.empty_cache_plant(args, dev))
    C.finish(args, "lm", clock, losses, planted=None, sizes=size, vary_length=args.vary_length,
             mark_dynamic=args.mark_dynamic, dynamic=args.dynamic, bucket=args.bucket,
             parameters=sum(p.numel() for p in model.parameters()))


if __name__ == "__main__":
    main()
