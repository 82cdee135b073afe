#!/usr/bin/env python3
"""nn.TransformerEncoder trained on batches whose sequence length changes every step (drawn from
8 lengths), with torch.cuda.empty_cache() after every step: a loop whose first steps are
long (the caching allocator, cuBLAS and the fused-attention heuristics meet each new shape),
so the steps 3-7 that --capture auto leaves unrecorded are still warming up (issue #39: the
measured recording cost read ~0.00 ms/step outside its own range).

    python3 varlen_transformer.py          # planted: torch.cuda.empty_cache() every step
    python3 varlen_transformer.py --fix    # fixed twin: no empty_cache() in the loop

4 encoder layers (d_model 512, 8 heads, feed-forward 2048), batch 32, lengths 64-512 tokens, a
linear head over an 8192-token vocabulary, AdamW, fp32 (TF32 allowed).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from alloc_transformer import Model  # noqa: E402  (the same encoder, embedding and head)

SIZES = dict(d=512, heads=8, ff=2048, layers=4, batch=32, vocab=8192,
             lengths=(64, 96, 128, 192, 256, 320, 384, 512))
TINY = dict(d=32, heads=2, ff=64, layers=2, batch=2, vocab=64, lengths=(8, 12, 16))


def batches(size, n, dev):
    """n token batches on dev, the length of batch i drawn from size["lengths"] (fixed seed)."""
    gen = torch.Generator().manual_seed(0)
    lengths = size["lengths"]
    out = []
    for _ in range(n):
        seq = lengths[int(torch.randint(0, len(lengths), (1,), generator=gen))]
        out.append(torch.randint(0, size["vocab"], (size["batch"], seq + 1), generator=gen).to(dev))
    return out


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=60, warmup=5)
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    size = TINY if args.tiny else SIZES
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.manual_seed(0)
    model = Model(size).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    data = batches(size, 16, dev)
    clock = H.Clock(args, dev)
    loss = None
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        tokens = data[step % len(data)]
        opt.zero_grad(set_to_none=True)
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())
        loss.backward()
        opt.step()
        if not args.fix and dev.type == "cuda":
            torch.cuda.empty_cache()
        clock.step()
    clock.stop()
    H.finish(args, "varlen_transformer", clock,
             planted="torch.cuda.empty_cache() after every step, a new sequence length each step",
             fix="no empty_cache() in the loop", sizes={k: v for k, v in size.items()},
             final_loss=float(loss.detach().float().cpu()))


if __name__ == "__main__":
    main()
