#!/bin/bash
# The stages of bench/gpu/plan-2026-12-01-work.txt (one per jobs.py job), so that the plan's
# lines stay short and each stage can be tried on a machine without a GPU (PLAN_DEVICE=cpu).
#   bench/workloads/plan_work.sh STAGE      (run from the repository root; writes into $JOB_OUT)
# Stages:
#   build        stepscope's CLI, collector, markers and CUPTI floor (Release), train_cabi and
#                train_cxx, the C/C++ builds in parallel with stepscope's
#   smoke        every framework program once (its fixed or plain variant), 3 timed steps; the
#                host plants are simple and run first thing in record-core
#   record-core  `stepscope record` of the host-time plants and the C/C++ cadence twins
#   record-c     the same of the C/C++ cadence twins only
#   truth-host   host/make_truth.py: the plants' locations and savings, 3 interleaved reps
#   truth-c      the C and C++ cadence twins, 2 interleaved reps
#   record-fw    `stepscope record` of every framework configuration
#   truth-fw     the framework twins and the compile/graph programs, 2 interleaved reps (no
#                --prime: smoke and record-fw ran every compiled shape before, caches are warm)
# Environment: JOB_OUT (output folder, default ./plan-out/STAGE), JOB_BUDGET_S (seconds left,
# from jobs.py), PLAN_DEVICE (cuda|cpu; cpu: the programs' --device cpu --tiny runs, C/C++
# left out of the runs), PLAN_PYTHON (default python3), TORCH_DIR (torch package folder,
# default: the one PLAN_PYTHON imports), PLAN_BUILD (build folder, default build-gpu),
# PLAN_SKIP_BUILD=1 (use what PLAN_BUILD holds), PLAN_JOBS (build parallelism, default 12).
set -eu
stage=${1:?usage: plan_work.sh build|smoke|record-core|record-c|truth-host|truth-c|record-fw|truth-fw}
device=${PLAN_DEVICE:-cuda}
py=${PLAN_PYTHON:-python3}
bld=${PLAN_BUILD:-build-gpu}
out=${JOB_OUT:-plan-out/$stage}
budget=${JOB_BUDGET_S:-0}
mkdir -p "$out"
torch=${TORCH_DIR:-$("$py" -c 'import os, torch; print(os.path.dirname(torch.__file__))')}
twins=(bench/workloads/run_twins.py --python "$py" --device "$device"
       --cabi "$bld/cabi/train_cabi" --cxx "$bld/cxx/train_cxx" --budget-s "$budget")
# The libraries libtorch_cuda needs from the venv's nvidia-* wheels (as c/build_gpu.sh does).
nv=$(dirname "$torch")/nvidia
export LD_LIBRARY_PATH="$torch/lib$(for d in "$nv"/*/lib "$nv"/lib; do [ -d "$d" ] && printf ':%s' "$d"; done)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

build() {
  if [ "${PLAN_SKIP_BUILD:-0}" = 1 ]; then echo "build skipped (PLAN_SKIP_BUILD=1): using $bld"; return; fi
  local torch_dev=cuda
  [ "$device" = cpu ] && torch_dev=cpu
  { bench/workloads/c/build.sh "$torch" "$bld/cabi" "$torch_dev" &&
    JOBS=4 bench/workloads/cxx/build.sh "$torch" "$bld/cxx" auto "$torch_dev"; } \
    >"$out/build-cxx.log" 2>&1 &
  local cxx_pid=$!
  # shellcheck disable=SC1091
  [ "$device" = cuda ] && [ -f bench/gpu/deps.sh ] && . bench/gpu/deps.sh
  cmake -S . -B "$bld" -DCMAKE_BUILD_TYPE=Release >"$out/build.log" 2>&1
  cmake --build "$bld" -j "${PLAN_JOBS:-12}" --target stepscope stepscope_collector \
    stepscope_markers $([ "$device" = cuda ] && echo cupti_floor) >>"$out/build.log" 2>&1
  wait "$cxx_pid" || { tail -n 20 "$out/build-cxx.log"; echo "C/C++ build failed"; return 1; }
  tail -n 2 "$out/build-cxx.log"
  ls -l "$bld/stepscope" "$bld/cabi/train_cabi" "$bld/cxx/train_cxx"
}

# One variant per framework program: the fixed twin (or the only, plain, one) — for the graph
# program the replay, its less common path — so a broken program shows in the first minutes.
smoke_configs() {
  "$py" -c 'import sys; sys.path.insert(0, "bench/workloads"); import programs as P
print(",".join("%s-%s" % (p.name, "fixed" if "fixed" in p.variants else "plain")
               for p in P.PROGRAMS if p.group == "frameworks"))'
}

case $stage in
  build) build ;;
  smoke) "$py" "${twins[@]}" smoke --programs "$(smoke_configs)" --out "$out" ;;
  record-core) "$py" "${twins[@]}" record --stepscope "$bld/stepscope" --programs host,cabi,cxx --out "$out" ;;
  record-c) "$py" "${twins[@]}" record --stepscope "$bld/stepscope" --programs cabi,cxx --out "$out" ;;
  truth-host) "$py" bench/workloads/host/make_truth.py --reps 3 --device "$device" --python "$py" \
                --budget-s "$budget" --out "$out" ;;
  truth-c) "$py" "${twins[@]}" truth --programs cabi,cxx --reps 2 --out "$out" ;;
  record-fw) "$py" "${twins[@]}" record --stepscope "$bld/stepscope" --programs frameworks --out "$out" ;;
  truth-fw) "$py" "${twins[@]}" truth --programs frameworks --reps 2 --out "$out" ;;
  *) echo "plan_work.sh: unknown stage $stage" >&2; exit 2 ;;
esac
