"""FAKE torch.autograd: only the profiler (see profiler.py)."""
from . import profiler  # noqa: F401
