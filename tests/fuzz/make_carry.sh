#!/usr/bin/env bash
# make_carry.sh [CARRYDIR] [BUILDDIR]
#
# Packs the libFuzzer targets for a campaign (tests/fuzz/campaign.sh) on a machine without
# clang or the libraries' -dev packages (the GPU machine): builds them in BUILDDIR (default
# build-fuzz-static) as .ci/run's fuzz build does (clang, ASan+UBSan+libFuzzer, -O2 -g) but
# with zstd, sqlite3, zlib, libstdc++ and libgcc linked statically, so that they need
# glibc alone; then fills CARRYDIR (default build-fuzzcarry, git-ignored like every build*/):
#   bin/fuzz_TARGET.gz   the seven binaries (campaign.sh unpacks them)
#   seeds/ regress/ dict/  what campaign.sh and fuzz_cli's sandbox read
#   BUILD-INFO.txt       commit, compiler, configure line, sha256 of each binary
# The kept corpus is not packed: campaign.sh takes it from tests/fuzz/corpus/ of the tree it
# runs in. Fails when a binary needs another shared library or the carry passes 60 MB.
set -euo pipefail
cd "$(dirname "$0")/../.."
carry=${1:-build-fuzzcarry}
build=${2:-build-fuzz-static}
lib=/usr/lib/x86_64-linux-gnu
targets="reader analyze cli escape kineto nsys export"

# src/interop links "stdc++" by name (__cxa_demangle): a folder holding only libstdc++.a,
# searched first, makes that -lstdc++ static too.
configure() {
    local cxx
    mkdir -p "$build/static-cxx"
    cxx=$(cd "$build/static-cxx" && pwd)
    ln -sf "$(clang -print-file-name=libstdc++.a)" "$cxx/libstdc++.a"
    CONFIGURE=(cmake -S . -B "$build" -DSTEPSCOPE_FUZZ=ON -DSTEPSCOPE_WERROR=ON
        -DZSTD_LIBRARY=$lib/libzstd.a -DSQLite3_LIBRARY=$lib/libsqlite3.a
        -DZLIB_LIBRARY=$lib/libz.a
        "-DCMAKE_EXE_LINKER_FLAGS=-L$cxx -static-libgcc")
    CC=clang "${CONFIGURE[@]}" >/dev/null
}

# Every shared library a binary needs must be part of glibc.
check_glibc_only() {
    local other
    other=$(ldd "$1" | awk '{ n = $1; sub(/.*\//, "", n) }
        n !~ /^(linux-vdso|libc|libm|libdl|librt|libpthread|ld-linux-x86-64)\.so/ && NF { print n }')
    [ -z "$other" ] || { echo "make_carry: $1 needs $other" >&2; exit 1; }
}

pack() {
    rm -rf "$carry" && mkdir -p "$carry/bin" "$carry/dict"
    local t
    for t in $targets; do
        check_glibc_only "$build/fuzz_$t"
        gzip -9c "$build/fuzz_$t" >"$carry/bin/fuzz_$t.gz"
    done
    cp -r "$build/tests/fuzz/seeds" "$carry/seeds"
    cp -r tests/fuzz/seeds/kineto "$carry/seeds/" # the Kineto seeds live in the source tree
    cp -r tests/fuzz/regress "$carry/regress"
    cp tests/fuzz/cli.dict tests/fuzz/kineto.dict "$carry/dict/"
}

build_info() {
    {
        echo "built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) by tests/fuzz/make_carry.sh"
        echo "tree: $(git rev-parse HEAD)$(git diff --quiet HEAD -- src tools include CMakeLists.txt 'tests/fuzz/*.c' 'tests/fuzz/*.h' || echo ' + uncommitted changes')"
        echo "compiler: $(clang --version | head -n 1)"
        echo "configure: CC=clang ${CONFIGURE[*]}"
        echo "sha256 of the unpacked binaries:"
        (cd "$build" && sha256sum $(for t in $targets; do echo "fuzz_$t"; done))
    } >"$carry/BUILD-INFO.txt"
}

configure
cmake --build "$build" -j"${JOBS:-2}" --target fuzz_all >/dev/null
pack
build_info
mb=$(du -sm "$carry" | cut -f1)
echo "make_carry: $carry: $mb MB ($(du -sh "$carry/bin" | cut -f1) of binaries)"
[ "$mb" -le 60 ] || { echo "make_carry: over 60 MB" >&2; exit 1; }
