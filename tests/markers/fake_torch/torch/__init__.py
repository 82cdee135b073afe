"""A FAKE torch for the shim's tests: only the pieces python/stepscope/_shim.py touches, with
torch's structure (the real torch/__init__.py imports torch.optim, torch.utils.data,
torch.autograd and torch.profiler)."""
__version__ = "0.0.0+fake"
IS_FAKE = True

from . import optim  # noqa: E402,F401
from .utils import data  # noqa: E402,F401
from . import autograd  # noqa: E402,F401
from . import profiler  # noqa: E402,F401


_compiled_frames = 0


def compile(fn, backend=None, **kwargs):
    """FAKE torch.compile: imports torch._dynamo on first use, like the real one."""
    global _compiled_frames
    import torch._dynamo.convert_frame as convert_frame

    _compiled_frames += 1
    return convert_frame.Compiled(fn, _compiled_frames - 1)
