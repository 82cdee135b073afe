#!/usr/bin/env python3
"""nn.TransformerEncoder trained on synthetic tokens that live on the GPU, with
torch.cuda.empty_cache() after every step — the allocation-heavy loop that a new user wrote in
issue #27's and #28's reports (recording 2.1x slower; the host time put on loss.backward()).

    python3 alloc_transformer.py          # planted: torch.cuda.empty_cache() every step
    python3 alloc_transformer.py --fix    # fixed twin: no empty_cache() in the loop

6 encoder layers (d_model 512, 8 heads, feed-forward 2048), batch 32 x 256 tokens, a linear
head over a 8192-token vocabulary, AdamW (torch's default foreach), fp32. The plant returns
every cached block to the driver each step (cudaFree, which waits for the GPU), so the next
forward and backward cudaMalloc their activations again.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

SIZES = dict(d=512, heads=8, ff=2048, layers=6, batch=32, seq=256, vocab=8192)
TINY = dict(d=32, heads=2, ff=64, layers=2, batch=2, seq=16, vocab=64)


class Model(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.embed = nn.Embedding(s["vocab"], s["d"])
        layer = nn.TransformerEncoderLayer(s["d"], s["heads"], s["ff"], batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, s["layers"], enable_nested_tensor=False)
        self.head = nn.Linear(s["d"], s["vocab"])

    def forward(self, tokens):
        return self.head(self.encoder(self.embed(tokens)))


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=60, warmup=8)
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    size = TINY if args.tiny else SIZES
    torch.manual_seed(0)
    model = Model(size).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    gen = torch.Generator().manual_seed(0)
    batches = [torch.randint(0, size["vocab"], (size["batch"], size["seq"] + 1),
                             generator=gen).to(dev) for _ in range(4)]
    clock = H.Clock(args, dev)
    loss = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        tokens = batches[step % len(batches)]
        opt.zero_grad(set_to_none=True)
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())
        loss.backward()
        opt.step()
        if not args.fix and dev.type == "cuda":
            torch.cuda.empty_cache()
        clock.step()
    clock.stop()
    H.finish(args, "alloc_transformer", clock,
             planted="torch.cuda.empty_cache() after every step",
             fix="no empty_cache() in the loop", sizes=size,
             final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
