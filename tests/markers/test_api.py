"""The explicit Python markers (import stepscope; stepscope.step(), stepscope.range("data")):
run a small loop under the test NVTX tool and check the events it logged.
Usage: test_api.py PYTHON_DIR MARKERS_LIB FAKE_INJECT LOG"""
import os
import subprocess
import sys

py_dir, lib, inject, log = sys.argv[1:5]
prog = """
import sys
import stepscope
assert "ctypes" not in sys.modules, "import stepscope imported ctypes"
for i in range(2):
    with stepscope.step():
        with stepscope.range("data"):
            pass
        with stepscope.range("forward"):
            pass
with stepscope.step(7):
    pass
stepscope.mark("done")
"""
env = dict(os.environ, PYTHONPATH=py_dir, STEPSCOPE_MARKERS_LIB=lib,
           NVTX_INJECTION64_PATH=inject, FAKE_INJECT_LOG=log)
if os.path.exists(log):
    os.remove(log)
subprocess.run([sys.executable, "-c", prog], env=env, check=True)
events = [ln for ln in open(log).read().splitlines() if ln.startswith(("push", "pop", "mark"))]
want = []
for i in (0, 1):
    want += ["push stepscope cat=2 reg:step payload=u64:%d" % i,
             "push stepscope cat=2 reg:data payload=none", "pop stepscope",
             "push stepscope cat=2 ascii:forward payload=none", "pop stepscope", "pop stepscope"]
want += ["push stepscope cat=2 reg:step payload=u64:7", "pop stepscope",
         "mark stepscope cat=2 ascii:done payload=none"]
assert events == want, "events:\n%s\nwanted:\n%s" % ("\n".join(events), "\n".join(want))
# without the library: a warning, no exception
env["STEPSCOPE_MARKERS_LIB"] = "/nonexistent/libstepscope_markers.so"
r = subprocess.run([sys.executable, "-c", prog], env=env, capture_output=True, text=True)
assert r.returncode == 0 and "markers disabled" in r.stderr, r
print("explicit markers: %d events as expected" % len(events))
