"""FAKE torch._dynamo: the pieces python/stepscope/_compile.py reads, with torch 2.11's shapes
(torch/_dynamo/callback.py, utils.counters, utils.get_metrics_context, convert_frame._compile ->
compile_inner, which runs the start/end callbacks around the compile of a frame's code object).
torch.compile (../__init__.py) imports this package, as the real one does."""
from . import callback, convert_frame, utils  # noqa: F401
from .callback import callback_handler, on_compile_end, on_compile_start  # noqa: F401
IMPORTED = True
