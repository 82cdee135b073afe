#!/usr/bin/env bash
# Tests for `stepscope doctor`. One case per ctest test:
#   doctor_tests.sh CASE STEPSCOPE WORKDIR
# The machine's own state (GPU or not, torch or not) varies, so the cases check the shape
# of the output and the checks they control (environment, --data, fake helper programs).
set -u
CASE=$1
SS=$2
WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK" && cd "$WORK" || exit 1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}exitcode=86"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:exitcode=87"
unset CUDA_LAUNCH_BLOCKING WORLD_SIZE LOCAL_WORLD_SIZE SLURM_NNODES STEPSCOPE_DOCTOR_TIMEOUT_S
unset OMP_NUM_THREADS CUDA_VISIBLE_DEVICES PYTORCH_CUDA_ALLOC_CONF PYTORCH_NO_CUDA_MEMORY_CACHING
for v in $(env | sed -n 's/^\(NCCL_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done

# Every check id, in table order (docs/doctor.md lists the same).
CHECKS="cuda_driver cuda_runtime driver_runtime collector cudnn torch torch_settings launch_blocking
omp_threads visible_devices nccl_env alloc_conf open_files tcp_buffers cpu_cores cpu_governor gpu
data_fs data_free data_device data_read"

fail() {
    echo "FAIL [$CASE]: $*" >&2
    exit 1
}
run() {
    "$@" >out 2>err
    rc=$?
    if grep -qE 'Sanitizer|runtime error:' err; then fail "sanitizer report from: $*: $(head -c 2000 err)"; fi
    [ "$rc" -lt 128 ] || fail "killed by signal $((rc - 128)): $*"
}
expect_rc() {
    [ "$rc" = "$1" ] || fail "expected exit $1, got $rc from: $2; stderr: $(head -c 600 err)"
}
expect_out() { grep -qE -- "$1" out || fail "stdout lacks /$1/: $(head -c 3000 out)"; }
expect_err() { grep -qF -- "$1" err || fail "stderr lacks '$1': $(head -c 600 err)"; }
# The exit status follows the lines: 1 exactly when a check failed.
expect_rc_matches_fails() {
    if grep -q '^fail ' out; then expect_rc 1 "$1"; else expect_rc 0 "$1"; fi
}
# The text line of one check: "STATUS  ID  VALUE [fix: ...]".
line_of() { grep -E "^(pass|warn|fail|skip)  $1 " out; }
# Python does the JSON checks (python3 is available wherever the suite runs).
pycheck() { python3 -c "$1" "${@:2}" || fail "python check failed"; }

case_text_lines() {
    run "$SS" doctor
    expect_rc_matches_fails "stepscope doctor"
    [ "$(grep -cE '^(pass|warn|fail|skip)  ' out)" = "$(echo $CHECKS | wc -w)" ] ||
        fail "not one line per check: $(cat out)"
    for c in $CHECKS; do
        [ "$(line_of "$c" | wc -l)" = 1 ] || fail "no single line for $c: $(cat out)"
    done
    # warn and fail lines carry their fix; pass and skip lines none.
    grep -E '^(warn|fail)  ' out | grep -vq '\[fix: ' && fail "a warn/fail line without a fix"
    grep -E '^(pass|skip)  ' out | grep -q '\[fix: ' && fail "a pass/skip line with a fix"
    expect_out '^[0-9]+ pass, [0-9]+ warn, [0-9]+ fail, [0-9]+ skip$'
    line_of data_read | grep -q 'no --data DIR given' || fail "data checks not skipped"
    [ ! -s err ] || fail "stderr not empty: $(head -c 600 err)"
}

case_json_keys() {
    run "$SS" doctor --json
    pycheck '
import json, sys
d = json.load(open("out"))
assert int(sys.argv[2]) == (1 if d["summary"]["fail"] else 0), ("exit status", sys.argv[2])
assert d["schema"] == "stepscope.doctor/1", d["schema"]
assert set(d) == {"schema", "data_dir", "multi_node", "summary", "checks"}, sorted(d)
assert d["data_dir"] is None and d["multi_node"] is False
ids = [c["id"] for c in d["checks"]]
assert ids == sys.argv[1].split(), ids
for c in d["checks"]:
    assert set(c) == {"id", "title", "status", "value", "fix"}, c
    assert c["status"] in ("pass", "warn", "fail", "skip"), c
    assert c["value"], c
    assert (c["fix"] is not None) == (c["status"] in ("warn", "fail")), c
for s in ("pass", "warn", "fail", "skip"):
    assert d["summary"][s] == sum(c["status"] == s for c in d["checks"]), (s, d["summary"])
' "$CHECKS" "$rc"
}

case_launch_blocking() {
    CUDA_LAUNCH_BLOCKING=1 run "$SS" doctor
    expect_rc 1 "CUDA_LAUNCH_BLOCKING=1 stepscope doctor"
    line_of launch_blocking | grep -q '^fail .*\[fix: unset CUDA_LAUNCH_BLOCKING' ||
        fail "launch_blocking did not fail: $(line_of launch_blocking)"
    CUDA_LAUNCH_BLOCKING=0 run "$SS" doctor --json
    pycheck '
import json
c = {c["id"]: c for c in json.load(open("out"))["checks"]}["launch_blocking"]
assert c["status"] == "pass", c'
}

# The checks doctor shares with `stepscope report` (src/analysis/ssa_env_checks.c), judged on
# this process's own environment and limits.
case_env_checks() {
    run "$SS" doctor --json
    pycheck '
import json
c = {c["id"]: c for c in json.load(open("out"))["checks"]}
for i in ("omp_threads", "visible_devices", "nccl_env", "alloc_conf", "launch_blocking"):
    assert c[i]["status"] == "pass", c[i]
assert c["visible_devices"]["value"] == "not set: every GPU is visible", c["visible_devices"]'
    OMP_NUM_THREADS=100000 NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO \
        PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:64 run "$SS" doctor
    line_of omp_threads | grep -q '^warn .*OMP_NUM_THREADS=100000, more than the [0-9]* usable CPUs.*\[fix: OMP_NUM_THREADS=' ||
        fail "omp_threads: $(line_of omp_threads)"
    line_of nccl_env | grep -q '^warn .*NCCL_P2P_DISABLE=1: GPU-to-GPU traffic.*\[fix: unset NCCL_P2P_DISABLE' ||
        fail "nccl_env: $(line_of nccl_env)"
    line_of nccl_env | grep -q 'NCCL_DEBUG' && fail "NCCL_DEBUG=INFO warned: $(line_of nccl_env)"
    line_of alloc_conf | grep -q '^warn .*max_split_size_mb:64' || fail "alloc_conf: $(line_of alloc_conf)"
    CUDA_VISIBLE_DEVICES= run "$SS" doctor
    expect_rc 1 "CUDA_VISIBLE_DEVICES= stepscope doctor"
    line_of visible_devices | grep -q "^fail .*CUDA_VISIBLE_DEVICES='': no GPU is visible" ||
        fail "visible_devices: $(line_of visible_devices)"
    (ulimit -Sn 1024 && "$SS" doctor >out 2>err)
    line_of open_files | grep -q '^warn .*open files soft limit 1024 .*\[fix: ulimit -n 65536' ||
        fail "open_files: $(line_of open_files)"
    hard=$(ulimit -Hn)
    if [ "$hard" = unlimited ] || [ "$hard" -ge 4096 ]; then
        (ulimit -Sn 4096 && "$SS" doctor >out 2>err)
        line_of open_files | grep -q '^pass .*open files soft limit 4096 ' ||
            fail "open_files at 4096: $(line_of open_files)"
    fi
    line_of driver_runtime | grep -qE '^(pass|warn|fail|skip)  driver_runtime ' ||
        fail "driver_runtime: $(line_of driver_runtime)"
}

case_data_dir() {
    mkdir -p data/sub
    head -c 3000000 /dev/urandom >data/sub/big.bin
    head -c 1000 /dev/urandom >data/small.bin
    run "$SS" doctor --data data
    expect_rc_matches_fails "stepscope doctor --data data"
    line_of data_fs | grep -qE '^(pass|warn)  data_fs +[a-z0-9]+ \(|filesystem type 0x' ||
        fail "no filesystem: $(line_of data_fs)"
    line_of data_free | grep -q 'GiB free of' || fail "no free space: $(line_of data_free)"
    line_of data_device | grep -qE '^(pass|warn|skip) ' || fail "data_device: $(line_of data_device)"
    line_of data_read | grep -qE '^pass  data_read +[0-9]+ MB/s: 2\.9 MiB from 2 files' ||
        fail "no read speed: $(line_of data_read)"
    run "$SS" doctor --json -d data
    pycheck '
import json
d = json.load(open("out"))
assert d["data_dir"] == "data", d["data_dir"]
c = {c["id"]: c for c in d["checks"]}
assert c["data_read"]["status"] == "pass" and "MB/s" in c["data_read"]["value"], c["data_read"]
assert c["data_fs"]["status"] in ("pass", "warn"), c["data_fs"]'
    ln -s data link # a folder given through a link is read too
    run "$SS" doctor --data link
    line_of data_read | grep -qE '^pass  data_read +[0-9]+ MB/s: 2\.9 MiB from 2 files' ||
        fail "link: $(line_of data_read)"
    mkdir empty
    run "$SS" doctor --data empty
    line_of data_read | grep -q '^skip .*no regular files' || fail "empty: $(line_of data_read)"
}

case_data_missing() {
    run "$SS" doctor --data no/such/folder
    expect_rc 1 "stepscope doctor --data no/such/folder"
    [ "$(wc -l <err)" = 1 ] || fail "expected one stderr line: $(cat err)"
    expect_err "stepscope doctor: no/such/folder: cannot open the data folder: No such file"
    [ ! -s out ] || fail "checks printed for a missing folder: $(head -c 300 out)"
}

case_data_not_dir() {
    echo x >file
    run "$SS" doctor --data file
    expect_rc 1 "stepscope doctor --data file"
    expect_err "stepscope doctor: file: the data folder is not a folder"
}

case_usage() {
    run "$SS" doctor --bogus
    expect_rc 2 "stepscope doctor --bogus"
    expect_err "stepscope doctor:"
    expect_err "--help"
    run "$SS" doctor extra
    expect_rc 2 "stepscope doctor extra"
    run "$SS" doctor --data
    expect_rc 2 "stepscope doctor --data"
    run "$SS" doctor --help
    expect_rc 0 "stepscope doctor --help"
    expect_out "^usage: stepscope doctor"
}

# A fake python3 that answers the torch probe like a CUDA build of torch with TF32 off.
case_fake_torch() {
    mkdir bin
    cat >bin/python3 <<'PY'
#!/bin/sh
printf 'version=2.5.1+cu124\ncuda=12.4\ncudnn=90100\nmkl=1\ncuda_available=1\n'
printf 'cudnn_benchmark=0\ntf32_matmul=0\ntf32_cudnn=1\nthreads=8\n'
PY
    chmod +x bin/python3
    PATH="$PWD/bin:$PATH" run "$SS" doctor
    line_of torch | grep -q '^pass  torch .*torch 2.5.1+cu124, built for CUDA 12.4, cuDNN 90100, MKL yes' ||
        fail "torch: $(line_of torch)"
    line_of torch_settings | grep -q '^warn .*matmul.allow_tf32=0.*threads=8.*\[fix: .*allow_tf32 = True' ||
        fail "torch_settings: $(line_of torch_settings)"
    printf '#!/bin/sh\necho missing=ModuleNotFoundError\n' >bin/python3
    PATH="$PWD/bin:$PATH" run "$SS" doctor
    line_of torch | grep -q '^skip .*no torch' || fail "missing torch not a skip: $(line_of torch)"
    printf '#!/bin/sh\necho version=2.5.1\necho cuda=None\n' >bin/python3
    PATH="$PWD/bin:$PATH" run "$SS" doctor
    line_of torch | grep -q '^warn .*CPU-only' || fail "CPU-only torch: $(line_of torch)"
}

# The real python3 runs the probe against a stand-in torch module: the probe's own Python
# must run and print every key the checks read.
case_torch_module() {
    mkdir -p py/torch
    cat >py/torch/__init__.py <<'PY'
import types
__version__ = "9.9.0"
version = types.SimpleNamespace(cuda="12.8")
class _Cudnn:
    benchmark = False
    allow_tf32 = True
    @staticmethod
    def version(): return 91000
    @staticmethod
    def is_available(): return True
backends = types.SimpleNamespace(
    cudnn=_Cudnn, mkl=types.SimpleNamespace(is_available=lambda: False),
    cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=True)))
cuda = types.SimpleNamespace(is_available=lambda: False)
def get_num_threads(): return 3
PY
    PYTHONPATH="$PWD/py" run "$SS" doctor
    line_of torch | grep -q '^pass  torch .*torch 9.9.0, built for CUDA 12.8, cuDNN 91000, MKL no' ||
        fail "torch: $(line_of torch)"
    line_of torch_settings |
        grep -q '^pass .*cudnn.benchmark=0, matmul.allow_tf32=1, cudnn.allow_tf32=1, threads=3, cuda.is_available=0' ||
        fail "torch_settings: $(line_of torch_settings)"
}

# A python3 that hangs: the probe is killed at the time limit and says so.
case_fake_torch_hang() {
    mkdir bin
    printf '#!/bin/sh\nsleep 50 &\nexec sleep 50\n' >bin/python3
    chmod +x bin/python3
    start=$(date +%s)
    STEPSCOPE_DOCTOR_TIMEOUT_S=1 PATH="$PWD/bin:$PATH" run "$SS" doctor
    [ $(($(date +%s) - start)) -lt 10 ] || fail "the probe was not killed at its time limit"
    line_of torch | grep -q "^warn .*did not finish in 1 s" || fail "hang: $(line_of torch)"
}

# A fake nvidia-smi: two GPUs, one without persistence mode and on half its PCIe lanes.
case_fake_nvidia_smi() {
    mkdir bin
    cat >bin/nvidia-smi <<'SMI'
#!/bin/sh
echo "Enabled, 1980 MHz, 1980 MHz, 5, 5, 16, 16"
echo "Disabled, 345 MHz, 1980 MHz, 1, 5, 8, 16"
SMI
    chmod +x bin/nvidia-smi
    PATH="$PWD/bin:$PATH" run "$SS" doctor
    line_of gpu | grep -q '^warn  gpu .*0: persistence Enabled, SM 1980 MHz of 1980 MHz, PCIe gen 5 of 5 x16 of x16; 1: persistence Disabled' ||
        fail "gpu: $(line_of gpu)"
    line_of gpu | grep -q 'fix: GPU 1 runs x8 of x16' || fail "gpu fix: $(line_of gpu)"
    printf '#!/bin/sh\necho "NVIDIA-SMI has failed"\nexit 9\n' >bin/nvidia-smi
    PATH="$PWD/bin:$PATH" run "$SS" doctor
    line_of gpu | grep -q '^skip .*nvidia-smi failed' || fail "failing nvidia-smi: $(line_of gpu)"
}

"case_$CASE" || exit 1
echo "ok [$CASE]"
