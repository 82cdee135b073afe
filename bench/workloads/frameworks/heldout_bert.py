#!/usr/bin/env python3
"""HELD OUT (nobody tunes stepscope on it; see ../README.md): a Hugging Face BERT encoder
(BertForMaskedLM from a BertConfig: 6 layers, hidden 512, no weights) trained by a plain loop
without Trainer, masked-LM on synthetic tokens, bf16 autocast, AdamW(fused=True).

    python3 heldout_bert.py         # planted: running loss read with loss.item() every step
    python3 heldout_bert.py --fix   # losses summed on the device, read every 50 steps

Batch 32 x 128 tokens, 15 % of positions are prediction targets.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import torch  # noqa: E402

SIZES = dict(batch=32, seq=128, config=dict(hidden_size=512, num_hidden_layers=6,
                                            num_attention_heads=8, intermediate_size=2048))
TINY = dict(batch=2, seq=16, config=dict(hidden_size=32, num_hidden_layers=2,
                                         num_attention_heads=2, intermediate_size=64,
                                         vocab_size=128, max_position_embeddings=32))
READ_EVERY = 50


def masked_batches(n, batch, seq, vocab, dev):
    gen = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n):
        ids = torch.randint(0, vocab, (batch, seq), generator=gen)
        labels = torch.where(torch.rand(batch, seq, generator=gen) < 0.15, ids, -100)
        out.append((ids.to(dev), labels.to(dev)))
    return out


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=150, warmup=10)
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    try:
        from transformers import BertConfig, BertForMaskedLM
    except ImportError:
        H.skip("transformers not installed")
    size = TINY if args.tiny else SIZES
    config = BertConfig(**size["config"])
    torch.manual_seed(0)
    model = BertForMaskedLM(config).to(dev)
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=dev.type == "cuda")
    batches = masked_batches(4, size["batch"], size["seq"], config.vocab_size, dev)
    clock = H.Clock(args, dev)
    running, on_device, reads = 0.0, torch.zeros((), device=dev), 0
    for step in range(args.warmup + args.steps):
        if step == args.warmup:
            clock.start()
        ids, labels = batches[step % len(batches)]
        opt.zero_grad(set_to_none=True)
        with torch.autocast(device_type=dev.type, dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        opt.step()
        if not args.fix:
            running += loss.item()
            reads += 1
        else:
            on_device += loss.detach().float()
            if (step + 1) % READ_EVERY == 0:
                running += on_device.item()
                on_device.zero_()
                reads += 1
        clock.step()
    clock.stop()
    H.finish(args, "heldout_bert", clock,
             planted="loss.item() every step (a device-to-host read that waits for the GPU)",
             fix="losses summed on the device, .item() every %d steps" % READ_EVERY,
             held_out=True, loss_reads=reads,
             parameters=sum(p.numel() for p in model.parameters()),
             sizes=dict(batch=size["batch"], seq=size["seq"], **size["config"]))


if __name__ == "__main__":
    main()
