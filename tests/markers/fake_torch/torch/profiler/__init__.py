"""FAKE torch.profiler: `profile` on top of torch.autograd.profiler.profile, as in torch 2.11
(_KinetoProfile.prepare_trace -> self.profiler._prepare_trace(), start_trace ->
self.profiler._start_trace(), stop_trace -> self.profiler.__exit__(None, None, None)), with a
schedule: wait, warmup and active steps, repeated."""
import enum

from torch.autograd import profiler as prof


class ProfilerActivity(enum.Enum):
    CPU = "CPU"
    CUDA = "CUDA"


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0):
    def fn(step):
        cycle = wait + warmup + active
        if repeat and step >= cycle * repeat:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return fn


def _always_record(_step):
    return ProfilerAction.RECORD


class profile:
    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None):
        self.activities = set(activities or [ProfilerActivity.CPU, ProfilerActivity.CUDA])
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.profiler = None
        self.step_num = 0
        self.current_action = self.schedule(0)

    # _KinetoProfile
    def prepare_trace(self):
        if self.profiler is None:
            use = "cuda" if ProfilerActivity.CUDA in self.activities else None
            self.profiler = prof.profile(use_device=use, use_kineto=True)
        self.profiler._prepare_trace()

    def start_trace(self):
        self.profiler._start_trace()

    def stop_trace(self):
        self.profiler.__exit__(None, None, None)

    # profile
    def _transit(self, prev, cur):
        A = ProfilerAction
        rec = (A.RECORD, A.RECORD_AND_SAVE)
        if prev == A.NONE and cur == A.WARMUP:
            self.prepare_trace()
        elif prev == A.NONE and cur in rec:
            self.prepare_trace()
            self.start_trace()
        elif prev == A.WARMUP and cur in rec:
            self.start_trace()
        elif prev == A.RECORD_AND_SAVE:
            self.stop_trace()
            if self.on_trace_ready:
                self.on_trace_ready(self)
            if cur == A.WARMUP:
                self.prepare_trace()
            elif cur in rec:
                self.prepare_trace()
                self.start_trace()
        elif prev in rec and cur in (A.NONE, A.WARMUP):
            self.stop_trace()

    def start(self):
        self._transit(ProfilerAction.NONE, self.current_action)

    def stop(self):
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self.stop_trace()
            if self.on_trace_ready and self.current_action == ProfilerAction.RECORD_AND_SAVE:
                self.on_trace_ready(self)
        elif self.current_action == ProfilerAction.WARMUP:
            self.stop_trace()

    def step(self):
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.stop()
