"""Fake torch.optim.optimizer: global step post hooks called after every Optimizer.step(), as in
torch >= 2.0 (torch/optim/optimizer.py: profile_hook_step)."""
import functools

_global_optimizer_post_hooks = {}


class _Handle:
    def __init__(self, key):
        self.key = key

    def remove(self):
        _global_optimizer_post_hooks.pop(self.key, None)


def register_optimizer_step_post_hook(hook):
    key = len(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[key] = hook
    return _Handle(key)


def _with_hooks(step):
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        out = step(self, *args, **kwargs)
        for hook in list(_global_optimizer_post_hooks.values()):
            hook(self, args, kwargs)
        return out

    return wrapper


class Optimizer:
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _with_hooks(cls.__dict__["step"])

    def __init__(self, params):
        self.params = list(params)
        self.param_groups = [{"params": self.params}]  # as torch's: one group here
