"""Models shared by several framework workloads (built from code, no weights)."""
import torch
import torch.nn as nn


class NarrowBlock(nn.Module):
    """Pre-norm residual MLP block: LayerNorm -> Linear(d, 2d) -> GELU -> Linear(2d, d). Narrow
    on purpose: each kernel is tiny, so the step's cost is its launches."""

    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 2 * d)
        self.down = nn.Linear(2 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def narrow_mlp(d, blocks, classes):
    """`blocks` narrow blocks and a linear head: 6 parameters per block, 2 for the head."""
    return nn.Sequential(*[NarrowBlock(d) for _ in range(blocks)], nn.LayerNorm(d),
                         nn.Linear(d, classes))


def synthetic_batches(n, batch, d, classes, dev, seed=0):
    """n (x, y) batches on dev: features ~ N(0, 1), labels from a fixed random linear teacher so
    the loss can fall."""
    gen = torch.Generator().manual_seed(seed)
    teacher = torch.randn(d, classes, generator=gen)
    xs = [torch.randn(batch, d, generator=gen) for _ in range(n)]
    return [(x.to(dev), (x @ teacher).argmax(-1).to(dev)) for x in xs]
