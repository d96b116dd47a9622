#!/usr/bin/env bash
# Install, build, and run every test with CTest (benchmarks are separate: tests/bench/).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh test
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j"$jobs" "$@"
# Then the Debian package, built in build-deb/ and checked (scripts/build-deb.sh: a few
# minutes more); only for a full run (no ctest arguments), and not with PAMC_SKIP_DEB=1.
if [ $# -eq 0 ] && [ -z "${PAMC_SKIP_DEB:-}" ]; then
  ./scripts/build-deb.sh
fi
