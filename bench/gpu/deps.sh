# Sourced on the GPU machine before configuring: unpacks the .debs that bench/gpu/fetch_deps.sh
# put in .deps/ (carried) into /tmp/ss-deps and points CMake (find_package), pkg-config (yajl)
# and the loader at them. Debian 12's builds run on Ubuntu 24.04 (older glibc symbols).
SS_DEPS=/tmp/ss-deps
mkdir -p "$SS_DEPS"
for f in "${ROOT:-.}"/.deps/*.deb; do [ -f "$f" ] && dpkg -x "$f" "$SS_DEPS"; done
export CMAKE_PREFIX_PATH=$SS_DEPS/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
export PKG_CONFIG_PATH=$SS_DEPS/usr/lib/x86_64-linux-gnu/pkgconfig:$SS_DEPS/usr/share/pkgconfig
export PKG_CONFIG_SYSROOT_DIR=$SS_DEPS
export CPATH=$SS_DEPS/usr/include${CPATH:+:$CPATH} # <yajl/yajl_parse.h>: yajl.pc names include/yajl
export LD_LIBRARY_PATH=$SS_DEPS/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
