#!/usr/bin/env python3
"""A Lightning program: LightningModule (a small CNN on 32 px images) + lightning.Trainer with
bf16-mixed precision, fed by a DataLoader whose Dataset crops, flips and normalises each
uint8 image on the CPU.

    python3 lightning_cnn.py          # planted: DataLoader(num_workers=0): the augmentation runs
                                      # in the training process, between the steps
    python3 lightning_cnn.py --fix    # DataLoader(num_workers=4, pin_memory=True,
                                      # persistent_workers=True)

The Trainer gets plugins=[LightningEnvironment()]: without a cluster environment Lightning
probes MPI (MPIEnvironment.detect() imports mpi4py and calls MPI.COMM_WORLD.Get_size(), which
initialises Open MPI and, as a singleton, starts an `orted` helper process — seen on the H200 as
a second recorded process with no GPU work). --mpi-detect leaves that probe in. The result line
lists the processes below this one at the end of the timed steps (`helper_processes`: DataLoader
workers, and an `orted` if MPI was started).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness as H  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

SIZES = dict(batch=256, img=32, src=40, classes=10, workers=4)
TINY = dict(batch=4, img=16, src=20, classes=10, workers=2)
MEAN, STD = 120.0, 64.0


class AugmentedImages(torch.utils.data.Dataset):
    """uint8 images in memory; __getitem__ does a random crop, a flip and normalisation in numpy
    (the per-sample cost of an image pipeline), deterministic per index."""

    def __init__(self, length, src, img, classes, pool=64):
        rng = np.random.default_rng(0)
        self.pool = rng.integers(0, 256, (pool, 3, src, src), dtype=np.uint8)
        self.labels = rng.integers(0, classes, pool)
        self.length, self.img = length, img

    def __len__(self):
        return self.length

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        image = self.pool[i % len(self.pool)]
        top, left = rng.integers(0, image.shape[1] - self.img + 1, 2)
        crop = image[:, top:top + self.img, left:left + self.img]
        if rng.random() < 0.5:
            crop = crop[:, :, ::-1]
        out = (crop.astype(np.float32) - MEAN) / STD
        return torch.from_numpy(np.ascontiguousarray(out)), int(self.labels[i % len(self.pool)])


def small_cnn(classes):
    def block(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]
    return nn.Sequential(*block(3, 32), *block(32, 64), nn.MaxPool2d(2), *block(64, 128),
                         nn.MaxPool2d(2), *block(128, 128), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(128, classes))


def make_module(L, classes):
    class Classifier(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = small_cnn(classes)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return F.cross_entropy(self.net(x), y)

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.05, momentum=0.9)
    return Classifier()


def window_callback(L, clock, args):
    class Window(L.Callback):
        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            done = batch_idx + 1  # optimizer steps finished (one per batch)
            if done == args.warmup:
                clock.start()
            elif done > args.warmup:
                clock.step()
                if done == args.warmup + args.steps:
                    self.helpers = H.descendants()
                    clock.stop()
    return Window()


def make_loader(size, total, args):
    data = AugmentedImages(total * size["batch"], size["src"], size["img"], size["classes"])
    if not args.fix:
        return torch.utils.data.DataLoader(data, batch_size=size["batch"], shuffle=False,
                                           num_workers=0)
    return torch.utils.data.DataLoader(data, batch_size=size["batch"], shuffle=False,
                                       num_workers=size["workers"], pin_memory=True,
                                       persistent_workers=True, prefetch_factor=4)


def import_lightning():
    """(lightning module, LightningEnvironment) from `lightning` or the older
    `pytorch_lightning` package; skips the program when neither is installed."""
    try:
        import lightning as L
        from lightning.pytorch.plugins.environments import LightningEnvironment
    except ImportError:
        try:
            import pytorch_lightning as L
            from pytorch_lightning.plugins.environments import LightningEnvironment
        except ImportError:
            H.skip("lightning not installed")
    return L, LightningEnvironment


def main():
    ap = H.parser(__doc__.split("\n\n")[0], steps=60, warmup=8)
    ap.add_argument("--mpi-detect", action="store_true",
                    help="let Lightning probe MPI (may start an Open MPI orted helper)")
    args = ap.parse_args()
    H.check_counts(args)
    if args.warmup < 1:
        H.fail("--warmup must be >= 1 (the window opens at the end of a warm-up step)")
    dev = H.device(args)
    L, LightningEnvironment = import_lightning()
    size = TINY if args.tiny else SIZES
    total = args.warmup + args.steps
    torch.manual_seed(0)
    clock = H.Clock(args, dev)
    window = window_callback(L, clock, args)
    trainer = L.Trainer(
        accelerator="gpu" if dev.type == "cuda" else "cpu", devices=1, max_steps=total,
        precision="bf16-mixed", logger=False, enable_checkpointing=False,
        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0,
        limit_val_batches=0, callbacks=[window],
        plugins=[] if args.mpi_detect else [LightningEnvironment()])
    trainer.fit(make_module(L, size["classes"]), train_dataloaders=make_loader(size, total, args))
    helpers = getattr(window, "helpers", [])
    H.finish(args, "lightning_cnn", clock,
             planted="DataLoader(num_workers=0): per-sample crop/flip/normalise in the "
                     "training process",
             fix="DataLoader(num_workers=%d, pin_memory=True, persistent_workers=True)"
                 % size["workers"],
             helper_processes=sorted({comm for _, comm in helpers}),
             orted=any(comm == "orted" for _, comm in helpers),
             mpi_detect=bool(args.mpi_detect), lightning=L.__version__, sizes=size)


if __name__ == "__main__":
    main()
