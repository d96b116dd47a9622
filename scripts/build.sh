#!/usr/bin/env bash
# Builds pamc into build/ after installing what is missing for PURPOSE (build or test;
# scripts/install-deps.sh). Configures only a build folder that has never been configured
# (cmake --build configures again by itself when a CMakeLists.txt changes), and builds
# TARGETS (default: everything, the tests too).
#
#   ./scripts/build.sh [PURPOSE [TARGET...]]
set -euo pipefail
cd "$(dirname "$0")/.."
purpose=${1:-test}
shift || true
./scripts/install-deps.sh "$purpose"
jobs=$(nproc 2>/dev/null || echo 2)
# Debug information as line tables only (-g1: backtraces and profiles keep file and line):
# full -g made the first build of pamc about 40% longer, most of it in writing debug
# information for GiNaC's and Boost's templates (docs/install.md, "How long the first build
# takes"). A folder configured by hand keeps what it was given.
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" >/dev/null
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j"$jobs" "${targets[@]}"
