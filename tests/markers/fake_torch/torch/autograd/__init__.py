"""FAKE torch.autograd: the profiler (see profiler.py) and backward(), which counts its calls
(the real Tensor.backward looks torch.autograd.backward up at each call)."""
from . import profiler  # noqa: F401

backward_calls = 0


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    global backward_calls
    if tensors == "raise":
        raise RuntimeError("backward failed")
    backward_calls += 1
