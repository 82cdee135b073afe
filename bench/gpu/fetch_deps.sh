#!/bin/bash
# Run here (the development machine, Debian 12): downloads the build dependencies that the GPU
# machine's image lacks (SQLite, yajl and zlib headers for src/interop) as .deb files into .deps/
# (git-ignored; name it in the device tool's `carry`). On the GPU machine `. bench/gpu/deps.sh`
# unpacks them and points CMake and pkg-config at them.
set -eu
cd "$(dirname "$0")/../.."
grep -qx '/.deps/' .git/info/exclude 2>/dev/null || echo '/.deps/' >> .git/info/exclude
mkdir -p .deps && cd .deps
apt-get download libsqlite3-dev libsqlite3-0 libyajl-dev libyajl2 zlib1g-dev
