#!/bin/bash
# gpu_batch.sh — one device call of the zoo (issue #40), from the repository's root on the GPU
# machine. The stepscope to run is an installed prefix packed as PREFIX_TXZ (default
# .lab/prefix.txz, carried: `cmake --install BUILD --prefix $PWD/.lab/prefix && tar cJf
# .lab/prefix.txz -C .lab prefix` here; ~0.4 MB), or, with no pack, a release build made there
# (~1 min of 16 cores).
#
#   ONLY=NAMES bash bench/zoo/gpu_batch.sh new BUDGET_S    # record + measure; resumes /tmp/zoo
#   ONLY=NAMES N=4 TRUTH=DIR bash bench/zoo/gpu_batch.sh more BUDGET_S
#                                          # N more rounds of the noisy variants of DIR's truth
#
# new: a pack of an earlier call (bench/zoo/out/zoo.tar.gz in the tree) is resumed too; the
# programs' truth, logs and traces come back under $OUT/new (zoo.tar.gz, traces-K.tar) after
# every program. more: TRUTH (default .lab/ztruth, carried: a copy of tests/fixtures/zoo/truth
# plus any truth of this machine's /tmp/zoo) -> $OUT/more-truth.tgz (one archive: the device
# tool brings back at most 8 files, and a batch's truths were more: 2026-12-08 lost 5 so,
# fetched by a second call). Each call stays under
# BUDGET_S (the runner skips a program whose estimate does not fit).
set -u
export PYTHONUNBUFFERED=1
mode=${1:?new or more}; budget=${2:?budget in seconds}
. bench/gpu_prefix.sh
if [ -z "$SS" ]; then
  cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build build-gpu -j"$(nproc)" --target stepscope stepscope_collector >/dev/null &&
    SS=$PWD/build-gpu/stepscope || { echo "gpu_batch.sh: no stepscope" >&2; exit 2; }
fi
nvidia-smi --query-gpu=name,clocks.sm,temperature.gpu --format=csv,noheader
case $mode in
  new)
    res=(); [ -f bench/zoo/out/zoo.tar.gz ] && res=(--resume bench/zoo/out/zoo.tar.gz)
    python3 bench/zoo/run_zoo.py --stepscope "$SS" --work /tmp/zoo --pack /tmp/zoo-pack/zoo.tar.gz \
      "${res[@]}" --only "${ONLY:?names}" --budget-s "$budget" 2>&1 | tail -60
    mkdir -p "$OUT/new" && cp /tmp/zoo-pack/* "$OUT/new/" ;;
  more)
    python3 bench/zoo/run_zoo.py --stepscope "$SS" --work /tmp/zoom --pack /tmp/zoom-pack/zoo.tar.gz \
      --more-rounds "${N:-4}" --truth-from "$PWD/${TRUTH:-.lab/ztruth}" --only "${ONLY:?names}" \
      --budget-s "$budget" 2>&1 | tail -40
    tar czf "$OUT/more-truth.tgz" -C /tmp/zoom truth ;;
  *) echo "gpu_batch.sh: new or more, not $mode" >&2; exit 2 ;;
esac
