"""FAKE torch._dynamo.callback, as in torch 2.11: one process-wide counter of pending compiles;
start callbacks when it goes 0 -> 1, end callbacks when it goes 1 -> 0, on whichever thread
that is."""
import enum
import threading
from contextlib import contextmanager
from dataclasses import dataclass


class CallbackTrigger(enum.Enum):
    DYNAMO = 1
    LAZY_BACKWARD = 2
    TRITON_AUTOTUNING = 3
    CUDAGRAPH_RECORDING = 4


@dataclass
class CallbackArgs:
    callback_trigger: CallbackTrigger
    compile_id: str


class CompilationCallbackHandler:
    def __init__(self):
        self.start_callbacks = []
        self.end_callbacks = []
        self._pending = 0
        self._lock = threading.Lock()

    def register_start_callback(self, callback):
        self.start_callbacks.append(callback)
        return callback

    def register_end_callback(self, callback):
        self.end_callbacks.append(callback)
        return callback

    @contextmanager
    def install_callbacks(self, trigger, compile_id):
        args = CallbackArgs(trigger, compile_id)
        try:
            with self._lock:
                self._pending += 1
                if self._pending == 1:
                    for cb in self.start_callbacks:
                        cb(args)
            yield
        finally:
            with self._lock:
                if self._pending == 1:
                    for cb in self.end_callbacks:
                        cb(args)
                self._pending -= 1


callback_handler = CompilationCallbackHandler()


def on_compile_start(callback):
    return callback_handler.register_start_callback(callback)


def on_compile_end(callback):
    return callback_handler.register_end_callback(callback)
