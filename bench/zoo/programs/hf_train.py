#!/usr/bin/env python3
"""Hugging Face transformers models built from their configs (no weights): GPT-2 (causal LM),
BERT (masked LM) or T5 (seq2seq), trained by HF's Trainer or by a plain PyTorch loop, on text
tokenised in the data collator (a slow Python tokenizer: data.Tokenizer) or on token ids made
ahead.

    python3 hf_train.py --model gpt2 --trainer --data text --bf16 --pin   # Trainer, collate in
                                                                          # the main process
    python3 hf_train.py --model bert --trainer --workers 4 --pin          # fp32 Trainer
    python3 hf_train.py --model gpt2 --data tokens                        # plain loop, fp32,
                                                                          # loss.item() each step
    python3 hf_train.py --model t5 --data text --bf16 --fused-optim --no-sync

The fixes in Trainer's terms: --workers N / --pin: TrainingArguments(dataloader_num_workers=N,
dataloader_pin_memory=True); --bf16: TrainingArguments(bf16=True); --no-sync:
logging_nan_inf_filter=False (its per-step isnan check reads the loss back);
--fused-optim: optim="adamw_torch_fused"; --compile: torch_compile=True (torch_compile_mode
with --compile-mode). In the plain loop they are the DataLoader's,
autocast, the loss read every 50 steps, AdamW(fused=True) and torch.compile(model).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

import torch  # noqa: E402

import data as D  # noqa: E402

FLAGS = ("workers", "pin", "bf16", "compile", "no_sync", "fused_optim")
SIZES = {"gpt2": dict(batch=8, seq=512, words=1200, config={}),
         "bert": dict(batch=32, seq=128, words=300, config={}),
         "t5": dict(batch=32, seq=256, target=64, words=600,
                    config=dict(d_model=512, d_ff=2048, num_layers=6, num_heads=8))}
TINY = {"gpt2": dict(batch=2, seq=16, words=30, config=dict(n_layer=2, n_embd=32, n_head=2,
                                                              vocab_size=256, n_positions=32)),
        "bert": dict(batch=2, seq=16, words=30, config=dict(
            hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
            vocab_size=256, max_position_embeddings=32)),
        "t5": dict(batch=2, seq=16, target=8, words=30, config=dict(
            d_model=32, d_ff=64, num_layers=2, num_heads=2, d_kv=16, vocab_size=256))}
MASK_ID, MASK_P = 4, 0.15


def make_model(name, size):
    T = C.need("transformers")
    cls = {"gpt2": ("GPT2Config", "GPT2LMHeadModel"), "bert": ("BertConfig", "BertForMaskedLM"),
           "t5": ("T5Config", "T5ForConditionalGeneration")}[name]
    extra = {"t5": dict(decoder_start_token_id=0, pad_token_id=0, eos_token_id=2)}.get(name, {})
    config = getattr(T, cls[0])(**dict(extra, **size["config"]))
    return getattr(T, cls[1])(config), config.vocab_size


def masked(ids, seed):
    """BERT's masked-LM inputs and labels: 15 % of the positions replaced by MASK_ID."""
    pick = torch.rand(ids.shape, generator=torch.Generator().manual_seed(seed)) < MASK_P
    return ids.masked_fill(pick, MASK_ID), torch.where(pick, ids, torch.full_like(ids, -100))


class Collate:
    """The data collator: tokenises each text (data.Tokenizer) and builds the model's inputs
    and labels. Runs wherever the DataLoader runs collate: the main process with no workers."""

    def __init__(self, model, size, vocab):
        self.model, self.size, self.tok = model, size, D.Tokenizer(vocab)

    def __call__(self, texts):
        ids = torch.stack([self.tok(t, self.size["seq"]) for t in texts])
        return batch_of(self.model, ids, self.size, len(texts))


def batch_of(model, ids, size, seed):
    if model == "gpt2":
        return {"input_ids": ids, "labels": ids.masked_fill(ids == 0, -100)}
    if model == "bert":
        inputs, labels = masked(ids, seed)
        return {"input_ids": inputs, "labels": labels}
    return {"input_ids": ids, "labels": ids[:, 1:size["target"] + 1].contiguous()}


def dataset(args, size, vocab, total):
    """Texts (tokenised in the collator) or token ids (batches of token ids)."""
    if args.data == "text":
        return D.texts(64, size["words"]), Collate(args.model, size, vocab)
    gen = torch.Generator().manual_seed(0)
    ids = torch.randint(5, vocab, (64, size["seq"]), generator=gen)
    return [ids[i % 64] for i in range(64)], (
        lambda rows: batch_of(args.model, torch.stack(rows), size, len(rows)))


class Cycled(torch.utils.data.Dataset):
    def __init__(self, items, length):
        self.items, self.length = items, length

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        return self.items[i % len(self.items)]


def plain_loop(args, dev, model, loader):
    opt = C.optimizer("AdamW", model.parameters(), args, dev, lr=1e-4)
    model = C.compile_model(model, args, dev)

    def step(batch):
        opt.zero_grad(set_to_none=True)
        with C.autocast(args, dev):
            loss = model(**batch).loss
        loss.backward()
        opt.step()
        return loss
    return C.train(args, dev, C.endless(loader), step)


def compile_arguments(args, dev):
    """TrainingArguments' torch.compile settings for --compile (aot_eager on the CPU)."""
    if not args.compile:
        return {}
    out = dict(torch_compile=True)
    if dev.type == "cpu":
        out["torch_compile_backend"] = "aot_eager"
    elif args.compile_mode != "default":
        out["torch_compile_mode"] = args.compile_mode
    return out


def trainer_loop(args, dev, model, ds, batch, collate):
    T = C.need("transformers")
    clock = C.H.Clock(args, dev)

    class Window(T.TrainerCallback):
        def on_step_end(self, _args, state, control, **kwargs):
            if state.global_step == args.warmup:
                clock.start()
            elif state.global_step > args.warmup:
                clock.step()
                if state.global_step == args.warmup + args.steps:
                    clock.stop()
    with tempfile.TemporaryDirectory(prefix="zoo-hf-") as out:
        targs = T.TrainingArguments(
            output_dir=out, max_steps=args.warmup + args.steps,
            per_device_train_batch_size=batch, learning_rate=1e-4, bf16=args.bf16,
            use_cpu=dev.type == "cpu", report_to="none", logging_strategy="no",
            save_strategy="no", disable_tqdm=True, seed=0,
            dataloader_num_workers=args.workers, dataloader_pin_memory=args.pin,
            dataloader_persistent_workers=args.workers > 0,
            logging_nan_inf_filter=not args.no_sync,
            optim="adamw_torch_fused" if args.fused_optim and dev.type == "cuda" else "adamw_torch",
            **compile_arguments(args, dev))
        T.Trainer(model=model, args=targs, train_dataset=ds, data_collator=collate,
                  callbacks=[Window()]).train()
    return clock, C.Losses(args, dev)


def main():
    ap = C.parser(__doc__, FLAGS)
    ap.add_argument("--model", default="gpt2", choices=sorted(SIZES))
    ap.add_argument("--trainer", action="store_true", help="train with HF's Trainer")
    ap.add_argument("--data", default="tokens", choices=["tokens", "text"])
    args, dev = C.setup(ap)
    size = (TINY if args.tiny else SIZES)[args.model]
    model, vocab = make_model(args.model, size)
    total = (args.warmup + args.steps + 8) * size["batch"]
    items, collate = dataset(args, size, vocab, total)
    ds = Cycled(items, total)
    if args.trainer:
        clock, losses = trainer_loop(args, dev, model, ds, size["batch"], collate)
    else:
        model = model.to(dev)
        clock, losses = plain_loop(args, dev, model, C.loader(ds, size["batch"], args, collate))
    C.finish(args, "hf_train", clock, losses, planted=None, model=args.model,
             trainer=args.trainer, data=args.data, sizes={k: v for k, v in size.items()},
             parameters=sum(p.numel() for p in model.parameters()))


if __name__ == "__main__":
    main()
