"""FAKE torch.cuda: only torch.cuda.graphs.CUDAGraph, whose capture_begin the shim watches."""
from . import graphs  # noqa: F401
