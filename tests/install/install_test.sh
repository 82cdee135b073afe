#!/bin/bash
# install_test.sh CASE CMAKE BUILD_DIR NVTX_PROG SOURCE_DIR WORKDIR — an installed stepscope
# (issue #22), each case in its own process:
#   layout     `cmake --install` into a prefix, the prefix moved elsewhere, then from another
#              folder: record finds the collector, markers library and shim of the moved tree
#              (none of the build tree), records an NVTX program (no GPU needed), and report
#              reads the trace; nothing installed points into the build tree
#   consumers  a C program built against the installed header through find_package(stepscope)
#              (stepscope::markers) and through pkg-config, recorded by the installed CLI:
#              its 6 marked steps are reported
#   deb        CPack's .deb holds the CLI, the collector, the shim, the header, the man pages
#   completion the bash completion offers the CLI's verbs and a verb's options
set -u
case_name=$1 cmake=$2 build=$3 prog=$4 src=$5 work=$6
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() { echo "FAILED [$case_name]: $*" >&2; exit 1; }

# prefix under $work/moved: installed at $work/stage first, then moved (no absolute path of
# the install may matter)
install_moved() {
    "$cmake" --install "$build" --prefix "$work/stage" >"$work/install.log" 2>&1 ||
        fail "cmake --install: $(tail -3 "$work/install.log")"
    mv "$work/stage" "$work/moved" || fail "mv"
    P=$work/moved
    mkdir -p "$work/elsewhere"
}

case $case_name in
layout)
    install_moved
    for f in bin/stepscope lib/stepscope/libstepscope.so lib/stepscope/libstepscope_markers.so \
             lib/stepscope/python/sitecustomize.py lib/stepscope/python/stepscope/_shim.py \
             lib/stepscope/python/stepscope/_settings_rows.py \
             include/stepscope/stepscope.h lib/pkgconfig/stepscope.pc \
             lib/cmake/stepscope/stepscopeConfig.cmake \
             share/bash-completion/completions/stepscope share/zsh/site-functions/_stepscope; do
        [ -e "$P/$f" ] || fail "not installed: $f"
    done
    if grep -q 'man pages are NOT built' "$build/CMakeCache.txt" 2>/dev/null ||
       [ -e "$build/man/stepscope-report.1" ]; then
        [ -e "$P/share/man/man1/stepscope-report.1" ] || fail "no man page installed"
    fi
    # nothing installed names the build tree (RUNPATH, strings)
    for f in "$P/bin/stepscope" "$P"/lib/stepscope/*.so; do
        readelf -d "$f" | grep -E 'RPATH|RUNPATH' | grep -qF "$build" && fail "$f: RUNPATH into the build tree"
    done
    cd "$work/elsewhere" || exit 1
    env -u STEPSCOPE_LIB -u STEPSCOPE_PYTHON_DIR -u STEPSCOPE_MARKERS_LIB \
        "$P/bin/stepscope" record -q -o env -- sh -c \
        'echo "$NVTX_INJECTION64_PATH"; echo "$STEPSCOPE_MARKERS_LIB"; echo "${PYTHONPATH%%:*}"' \
        >"$work/env.txt" 2>"$work/err" ||
        # no trace: where CUDA cannot start (no driver) record exits 3 and says why (issue #41)
        { [ $? = 3 ] && grep -q 'CUDA cannot start here' "$work/err"; } ||
        fail "record sh: $(cat "$work/err")"
    real=$(cd "$P" && pwd -P)
    [ "$(sed -n 1p "$work/env.txt")" = "$real/lib/stepscope/libstepscope.so" ] ||
        fail "collector: $(sed -n 1p "$work/env.txt")"
    [ "$(sed -n 2p "$work/env.txt")" = "$real/lib/stepscope/libstepscope_markers.so" ] ||
        fail "markers library: $(sed -n 2p "$work/env.txt")"
    [ "$(sed -n 3p "$work/env.txt")" = "$real/lib/stepscope/python" ] ||
        fail "shim: $(sed -n 3p "$work/env.txt")"
    env -u STEPSCOPE_LIB "$P/bin/stepscope" record -q -o traces -- "$prog" steps 2>"$work/err" ||
        fail "record nvtx_prog: $(cat "$work/err")"
    "$P/bin/stepscope" report traces >"$work/report.txt" 2>"$work/err" ||
        fail "report: $(cat "$work/err")"
    # all 10 steps found (the first may be set aside as warm-up when a loaded machine slowed it)
    grep -Eq '^  steps      (10|9) of 10 \(step_records' "$work/report.txt" ||
        fail "report: $(cat "$work/report.txt")"
    ;;
consumers)
    install_moved
    "$cmake" -S "$src/tests/install/consumer" -B "$work/cbuild" -DCMAKE_PREFIX_PATH="$P" \
        >"$work/cmake.log" 2>&1 || fail "find_package(stepscope): $(tail -5 "$work/cmake.log")"
    "$cmake" --build "$work/cbuild" >"$work/build.log" 2>&1 ||
        fail "build against stepscope::markers: $(tail -5 "$work/build.log")"
    flags=$(PKG_CONFIG_PATH=$P/lib/pkgconfig pkg-config --cflags --libs stepscope) ||
        fail "pkg-config stepscope"
    # shellcheck disable=SC2086 # the flags are words
    cc -std=c11 -Wall -Werror -o "$work/consumer-pc" "$src/tests/install/consumer/consumer.c" $flags ||
        fail "build with pkg-config's flags ($flags)"
    "$work/consumer-pc" >/dev/null || fail "the pkg-config build does not run"
    if [ -n "${STEPSCOPE_TEST_SANITIZED:-}" ]; then # the sanitized collector needs ASan first
        echo "passed [$case_name] (built; not recorded: the collector is sanitized)"
        exit 0
    fi
    cd "$work/elsewhere" || exit 1
    for exe in "$work/cbuild/consumer" "$work/consumer-pc"; do
        rm -rf traces
        "$P/bin/stepscope" record -q -o traces -- "$exe" >/dev/null 2>"$work/err" ||
            fail "record $exe: $(cat "$work/err")"
        "$P/bin/stepscope" report --warmup 0 traces >"$work/report.txt" 2>&1 || fail "report"
        grep -q '^  steps      6 of 6 (step_records' "$work/report.txt" ||
            fail "$exe: $(cat "$work/report.txt")"
        grep -Eq '^  data +[0-9.]+ +[3-9][0-9]\.' "$work/report.txt" ||
            fail "$exe: no data range: $(cat "$work/report.txt")"
    done
    ;;
deb)
    command -v dpkg-deb >/dev/null || { echo "skipped: no dpkg-deb"; exit 77; }
    (cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg") \
        >"$work/cpack.log" 2>&1 || fail "cpack: $(tail -5 "$work/cpack.log")"
    deb=$(ls "$work"/pkg/stepscope_*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || fail "no .deb: $(ls "$work/pkg")"
    dpkg-deb -c "$deb" >"$work/contents" || fail "dpkg-deb -c"
    for f in ./usr/bin/stepscope ./usr/lib/stepscope/libstepscope.so \
             ./usr/lib/stepscope/python/sitecustomize.py ./usr/include/stepscope/stepscope.h \
             ./usr/share/bash-completion/completions/stepscope; do
        grep -q " $f\$" "$work/contents" || fail "$deb lacks $f"
    done
    if [ -e "$build/man/stepscope-report.1" ]; then
        grep -q 'man1/stepscope-report.1' "$work/contents" || fail "$deb lacks the man pages"
    fi
    dpkg-deb -f "$deb" Depends | grep -q libzstd1 || fail "Depends: $(dpkg-deb -f "$deb" Depends)"
    ;;
completion)
    comp=$src/tools/install/stepscope.bash
    ss=$build/stepscope
    out=$(bash -c '. "$1"; COMP_WORDS=("$2" rep); COMP_CWORD=1; _stepscope; echo "${COMPREPLY[*]}"' \
          _ "$comp" "$ss") || fail "bash completion failed"
    [ "$out" = report ] || fail "verb 'rep': '$out'"
    out=$(bash -c '. "$1"; COMP_WORDS=("$2" report --ve); COMP_CWORD=2; _stepscope; echo "${COMPREPLY[*]}"' \
          _ "$comp" "$ss")
    [ "$out" = --verbose ] || fail "report --ve: '$out'"
    out=$(bash -c '. "$1"; COMP_WORDS=("$2" record -); COMP_CWORD=2; _stepscope; echo "${COMPREPLY[*]}"' \
          _ "$comp" "$ss")
    for o in -o --output --capture --mode --no-python-shim --memory-cap --sample-hz -q --no-report; do
        grep -qw -- "$o" <<<"$out" || fail "record -: no $o in '$out'"
    done
    out=$(bash -c '. "$1"; COMP_WORDS=("$2" export -f n); COMP_CWORD=3; _stepscope; echo "${COMPREPLY[*]}"' \
          _ "$comp" "$ss")
    [ "$out" = "nsys-sqlite nvtxt" ] || fail "export -f n: '$out'"
    # every verb's formats are the ones its --help names (folded came after the script)
    for v in report diff export info dump doctor; do
        want=$("$ss" "$v" --help | grep -o -- '--format [a-z|-]*|[a-z|-]*' | head -1)
        want=$(echo "${want#--format }" | tr '|' ' ')
        out=$(bash -c '. "$1"; COMP_WORDS=("$2" "$3" -f ""); COMP_CWORD=3; _stepscope; echo "${COMPREPLY[*]}"' \
              _ "$comp" "$ss" "$v")
        [ "$out" = "${want:-text json}" ] || fail "$v -f: '$out', --help says '$want'"
    done
    # a record option that takes a value is skipped, the program after it completes as a file
    out=$(bash -c '. "$1"; COMP_WORDS=("$2" record --host-samples 100 --q); COMP_CWORD=4; _stepscope; echo "${COMPREPLY[*]}"' \
          _ "$comp" "$ss")
    [ "$out" = --quiet ] || fail "record --host-samples 100 --q: '$out'"
    out=$(bash -c '. "$1"; COMP_WORDS=("$2" record --capture a); COMP_CWORD=3; _stepscope; echo "${COMPREPLY[*]}"' \
          _ "$comp" "$ss")
    [ "$out" = "auto all" ] || fail "record --capture a: '$out'"
    if command -v zsh >/dev/null; then
        zsh -n "$src/tools/install/_stepscope" || fail "zsh syntax"
    else
        echo "skipped: zsh syntax check (no zsh)"
    fi
    ;;
*)
    fail "unknown case"
    ;;
esac
echo "passed [$case_name]"
exit 0
