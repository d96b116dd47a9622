#!/usr/bin/env bash
# Install, build, and run every test with CTest (benchmarks are separate: tests/bench/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j"$jobs" "$@"
