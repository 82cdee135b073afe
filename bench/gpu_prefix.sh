# gpu_prefix.sh — sourced by the device-call scripts (bench/zoo/gpu_batch.sh,
# bench/workloads/whole_run_gpu.sh, bench/workloads/remeasure_gpu.sh), from the repository's
# root: sets SS to the stepscope of the installed prefix that travels packed as PREFIX_TXZ
# (default .lab/prefix.txz, carried: `cmake --install BUILD --prefix $PWD/.lab/prefix && tar
# cJf .lab/prefix.txz -C .lab prefix`), unpacking it once; SS is empty when there is none.
SS=$PWD/.lab/prefix/bin/stepscope
if [ ! -x "$SS" ] && [ -f "${PREFIX_TXZ:-.lab/prefix.txz}" ]; then
  mkdir -p .lab && tar xJf "${PREFIX_TXZ:-.lab/prefix.txz}" -C .lab 2>/dev/null
fi
[ -x "$SS" ] || SS=
