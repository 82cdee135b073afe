#!/usr/bin/env python3
"""A Lightning program: a LightningModule (a torchvision ResNet-18 or the zoo's 4-conv CNN on
images, or a causal transformer LM on tokens) trained by lightning.Trainer from a DataLoader,
the loss logged with self.log(..., prog_bar=True) as the Lightning docs show.

    python3 lightning_train.py --model resnet18 --bf16                  # DataLoader(num_workers=0)
    python3 lightning_train.py --model lm --workers 4 --pin             # precision="32-true"
    python3 lightning_train.py --model cnn4 --workers 6 --pin --bf16    # a progress bar refreshed
                                                                        # every step

The fixes in Lightning's terms: --workers N --pin: the DataLoader's num_workers=N,
pin_memory=True, persistent_workers=True; --bf16: Trainer(precision="bf16-mixed") (else
"32-true"); --no-sync: the progress bar refreshed every 50 steps (TQDMProgressBar(
refresh_rate=50); refresh_rate=1 otherwise), which does not stop the .item() every step:
Lightning turns each value logged with prog_bar=True into a Python number at every batch's end
(lightning 2.x, _ResultCollection.metrics), whatever the refresh rate; --no-pbar-log: the loss
logged with prog_bar=False, which does; --compile: the network compiled in the module
(torch.compile(net), the way Lightning's docs show); --channels-last: the network and each batch
in torch.channels_last (net.to(memory_format=...), x.contiguous(memory_format=...) in
training_step). plugins=[LightningEnvironment()]: no MPI probe (see
bench/workloads/README.md).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common as C  # noqa: E402

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import data as D  # noqa: E402

FLAGS = ("workers", "pin", "bf16", "compile", "channels_last", "no_sync", "no_pbar_log")
SIZES = {"resnet18": dict(batch=128, img=128, src=160, classes=1000),
         "cnn4": dict(batch=256, img=64, src=72, classes=100),
         "lm": dict(layers=6, d=512, heads=8, batch=16, seq=256, vocab=8192)}
TINY = {"resnet18": dict(batch=2, img=32, src=40, classes=10),
        "cnn4": dict(batch=2, img=16, src=20, classes=10),
        "lm": dict(layers=2, d=32, heads=2, batch=2, seq=16, vocab=64)}


def import_lightning():
    L = C.need("lightning")
    from lightning.pytorch.callbacks import TQDMProgressBar
    from lightning.pytorch.plugins.environments import LightningEnvironment
    return L, TQDMProgressBar, LightningEnvironment


def make_net(model, size, tiny):
    if model == "lm":
        import lm
        return lm.CausalLM(size)
    import vision
    return vision.make_model("torchvision:resnet18" if model == "resnet18" else "zoo:cnn4",
                             size["classes"], tiny)


def dataset(model, size, total):
    if model == "resnet18":
        C.need("torchvision")
        return D.JpegImages(total, size["src"], size["img"], size["classes"])
    if model == "cnn4":
        return D.ImageTensors(total, size["src"], size["img"], size["classes"])
    gen = torch.Generator().manual_seed(0)
    tokens = torch.randint(0, size["vocab"], (64, size["seq"] + 1), generator=gen)
    return [tokens[i % 64] for i in range(total)]


def make_module(L, net, model, prog_bar=True, channels_last=False):
    class Module(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = net

        def training_step(self, batch, batch_idx):
            if model == "lm":
                logits = self.net(batch[:, :-1])
                loss = F.cross_entropy(logits.flatten(0, 1), batch[:, 1:].flatten())
            else:
                x, y = batch
                if channels_last:
                    x = x.contiguous(memory_format=torch.channels_last)
                loss = F.cross_entropy(self.net(x), y)
            self.log("train_loss", loss, prog_bar=prog_bar)
            return loss

        def configure_optimizers(self):
            if model == "lm":
                return torch.optim.AdamW(self.parameters(), lr=3e-4)
            return torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9)
    return Module()


def window(L, clock, args):
    class Window(L.Callback):
        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            done = batch_idx + 1
            if done == args.warmup:
                clock.start()
            elif done > args.warmup:
                clock.step()
                if done == args.warmup + args.steps:
                    clock.stop()
    return Window()


def main():
    ap = C.parser(__doc__, FLAGS)
    ap.add_argument("--model", default="resnet18", choices=sorted(SIZES))
    args, dev = C.setup(ap)
    if args.warmup < 1:
        C.H.fail("--warmup must be >= 1 (the window opens at the end of a warm-up step)")
    L, TQDMProgressBar, LightningEnvironment = import_lightning()
    size = (TINY if args.tiny else SIZES)[args.model]
    total = args.warmup + args.steps
    clock = C.H.Clock(args, dev)
    bar = TQDMProgressBar(refresh_rate=C.READ_EVERY if args.no_sync else 1)
    trainer = L.Trainer(
        accelerator="gpu" if dev.type == "cuda" else "cpu", devices=1, max_steps=total,
        precision="bf16-mixed" if args.bf16 else "32-true", logger=False,
        enable_checkpointing=False, enable_model_summary=False, num_sanity_val_steps=0,
        limit_val_batches=0, callbacks=[window(L, clock, args), bar],
        plugins=[LightningEnvironment()])
    loader = C.loader(dataset(args.model, size, total * size["batch"]), size["batch"], args)
    net = make_net(args.model, size, args.tiny)
    if args.channels_last:  # Lightning moves it to the GPU, preserving the format
        net = net.to(memory_format=torch.channels_last)
    net = C.compile_model(net, args, dev)
    module = make_module(L, net, args.model, prog_bar=not args.no_pbar_log,
                         channels_last=args.channels_last)
    trainer.fit(module, train_dataloaders=loader)
    losses = C.Losses(args, dev)
    C.finish(args, "lightning_train", clock, losses, planted=None, model=args.model,
             precision=trainer.precision, refresh_rate=bar.refresh_rate,
             prog_bar=not args.no_pbar_log,
             lightning=L.__version__, sizes=size)


if __name__ == "__main__":
    main()
