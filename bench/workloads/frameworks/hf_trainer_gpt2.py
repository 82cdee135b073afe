#!/usr/bin/env python3
"""Hugging Face `Trainer` training GPT-2 small built from `GPT2Config()` (124 M parameters, no
weights) on synthetic token sequences made in-process.

    python3 hf_trainer_gpt2.py --fix   # TrainingArguments(bf16=True)
    python3 hf_trainer_gpt2.py         # planted: no mixed precision (fp32 GEMMs, TF32 off)

Everything else is Trainer's defaults as a user gets them (its optimizer, its data collator,
its per-step NaN/Inf loss filter), with reporting, checkpoints and the progress bar off.
Batch 8 x 256 tokens. The timed window is kept by a TrainerCallback: it starts at the end of
optimizer step --warmup and ends after --steps more (one synchronize at each end).
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import torch  # noqa: E402

SIZES = dict(batch=8, seq=256, config={})  # GPT2Config() is GPT-2 small
TINY = dict(batch=2, seq=16, config=dict(n_layer=2, n_embd=64, n_head=2, vocab_size=256,
                                         n_positions=32))


class TokenSequences(torch.utils.data.Dataset):
    """A fixed pool of random token sequences; labels = inputs (the model shifts them)."""

    def __init__(self, length, seq, vocab, pool=16):
        gen = torch.Generator().manual_seed(0)
        self.pool = [torch.randint(0, vocab, (seq,), generator=gen) for _ in range(pool)]
        self.length = length

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        ids = self.pool[i % len(self.pool)]
        return {"input_ids": ids, "labels": ids}


def window_callback(clock, args):
    from transformers import TrainerCallback

    class Window(TrainerCallback):
        def on_step_end(self, _args, state, control, **kwargs):
            if state.global_step == args.warmup:
                clock.start()
            elif state.global_step > args.warmup:
                clock.step()
                if state.global_step == args.warmup + args.steps:
                    clock.stop()
    return Window()


def training_arguments(args, dev, out_dir):
    from transformers import TrainingArguments
    return TrainingArguments(
        output_dir=out_dir, max_steps=args.warmup + args.steps,
        per_device_train_batch_size=(TINY if args.tiny else SIZES)["batch"],
        learning_rate=1e-4, bf16=args.fix, tf32=False if dev.type == "cuda" else None,
        use_cpu=dev.type == "cpu", report_to="none", logging_strategy="no",
        save_strategy="no", disable_tqdm=True, dataloader_num_workers=0, seed=0)


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=40, warmup=5)
    args = ap.parse_args()
    H.check_counts(args)
    dev = H.device(args)
    try:
        from transformers import GPT2Config, GPT2LMHeadModel, Trainer
    except ImportError:
        H.skip("transformers not installed")
    size = TINY if args.tiny else SIZES
    config = GPT2Config(**size["config"])
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config)
    data = TokenSequences((args.warmup + args.steps) * size["batch"], size["seq"],
                          config.vocab_size)
    clock = H.Clock(args, dev)
    with tempfile.TemporaryDirectory(prefix="hf-trainer-") as out_dir:
        targs = training_arguments(args, dev, out_dir)
        trainer = Trainer(model=model, args=targs, train_dataset=data,
                          callbacks=[window_callback(clock, args)])
        trainer.train()
    H.finish(args, "hf_trainer_gpt2", clock,
             planted="TrainingArguments without bf16: fp32 GEMMs, TF32 off",
             fix="TrainingArguments(bf16=True)", optimizer=str(targs.optim),
             parameters=sum(p.numel() for p in model.parameters()),
             sizes=dict(batch=size["batch"], seq=size["seq"], n_layer=config.n_layer,
                        n_embd=config.n_embd, vocab=config.vocab_size))


if __name__ == "__main__":
    main()
