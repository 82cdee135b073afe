"""What the program's DataLoader is, told to the analysis once (issue #40): its worker count,
batch size and memory options, and the size of the batches one optimizer step takes, in one
mark in stepscope's domain (docs/markers.md):

    dataloader: workers=2 batch_size=64 pin_memory=1 persistent_workers=0 samples=64 tokens=0 batches_per_step=1 params=11689512

The analysis names a worker count above the one the program has (a loader with 2 workers was
told num_workers=2 when it had only the wait to go by), and gives samples/s and tokens/s when
the program marks no batch itself. samples and tokens are per optimizer step: the first batch's
input (its first dimension; the element count of 2-D integer token ids) times the batches that
step took (gradient accumulation). params: the trainable parameters the stepping optimizer
updates (0 when it cannot tell); with tokens, the analysis estimates the step's FLOPs as
6 x params x tokens and gives MFU without a hand-written mark. The mark goes out at the end of the first optimizer step
that took a batch on the main thread, and again only after a loader with other settings is
iterated. The caller catches what this raises (a failure stops the watch, never the program).
"""
import threading

_INT_KINDS = ("int", "long", "short", "uint")


def _tensor_like(x):
    return hasattr(x, "shape") and hasattr(x, "dtype")


def first_tensor(batch):
    """The batch's input: the batch itself, its 'input_ids' or first tensor value (a dict), or
    its first tensor element (a list or tuple, one level down too)."""
    if _tensor_like(batch):
        return batch
    if isinstance(batch, dict):
        items = [batch["input_ids"]] if "input_ids" in batch else list(batch.values())
    elif isinstance(batch, (list, tuple)):
        items = list(batch)
    else:
        return None
    for item in items:
        if _tensor_like(item):
            return item
        if isinstance(item, (list, tuple)) and item and _tensor_like(item[0]):
            return item[0]
    return None


def batch_size_of(batch):
    """(samples, tokens) of one batch: its input's first dimension, and for a 2-D integer input
    (token ids) its element count; (0, 0) when it cannot tell."""
    t = first_tensor(batch)
    shape = getattr(t, "shape", None)
    if not shape:
        return 0, 0
    samples = int(shape[0])
    kind = str(getattr(t, "dtype", ""))
    tokens = samples * int(shape[1]) if len(shape) == 2 and any(k in kind for k in _INT_KINDS) \
        and "bool" not in kind else 0
    return samples, tokens


def trainable_params(optimizer):
    """The element count of the parameters optimizer updates (each tensor once), or 0."""
    params = {id(p): p for group in getattr(optimizer, "param_groups", None) or ()
              if isinstance(group, dict) for p in group.get("params", ())}
    return sum(int(p.numel()) for p in params.values()
               if getattr(p, "requires_grad", True) and callable(getattr(p, "numel", None)))


def _flag(loader, name, default=0):
    value = getattr(loader, name, default)
    return int(value) if isinstance(value, (bool, int)) else default


class LoaderWatch:
    def __init__(self, markers):
        self._m = markers
        self._loader = None  # settings text of the main thread's latest loader
        self._batches = 0  # batches the main thread took since the last optimizer step
        self._samples = self._tokens = 0
        self._pending = False  # a mark is due (new settings)
        self.enabled = True

    def on_iter(self, loader):
        """DataLoader.__iter__ on the main thread: its settings (a new epoch of the same loader
        changes nothing)."""
        if not self.enabled or threading.current_thread() is not threading.main_thread():
            return
        bs = getattr(loader, "batch_size", None)
        text = "workers=%d batch_size=%d pin_memory=%d persistent_workers=%d" % (
            _flag(loader, "num_workers"), bs if isinstance(bs, int) else 0,
            _flag(loader, "pin_memory"), _flag(loader, "persistent_workers"))
        if text != self._loader:
            self._loader, self._pending = text, True  # the next full step says it

    def on_batch(self, batch):
        """A batch __next__ returned on the main thread: counted; measured while a mark is due
        (the first batch of the step; a short last batch of an epoch later changes nothing)."""
        if not self.enabled or threading.current_thread() is not threading.main_thread():
            return
        self._batches += 1
        if self._pending and self._batches == 1:
            self._samples, self._tokens = batch_size_of(batch)

    def step_done(self, optimizer=None):
        """The stepping optimizer's step returned: the mark, when one is due and this step
        took a batch."""
        if not self.enabled or threading.current_thread() is not threading.main_thread():
            return
        n, self._batches = self._batches, 0
        if not n or not self._pending:
            return
        self._pending = False
        self._m.mark("dataloader: %s samples=%d tokens=%d batches_per_step=%d params=%d" % (
            self._loader, self._samples * n, self._tokens * n, n, trainable_params(optimizer)))
