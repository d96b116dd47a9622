#!/usr/bin/env bash
# Builds pamc with AddressSanitizer and UBSan in build-asan/ (gcc by default; CC=clang
# CXX=clang++ for clang) and runs the CTest suite there: scripts/sanitize.sh [CTEST ARGS...]
# (e.g. -R errors for a subset; PAMC_SANITIZE_TARGETS=pamc builds only the command line).
# Any sanitizer report ends the process with exit 86, which no test expects, so the test
# fails. LeakSanitizer checks every pamc run (a sanitizer build of pamc exits through
# exit(), not _Exit, so it can); scripts/lsan.supp lists the leaks that are not bugs.
# docs/testing.md: what it covers and how long it takes.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan
jobs=$(nproc 2>/dev/null || echo 2)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1
# Set before the build too: the build runs the unit tests to list their cases.
# verify_asan_link_order=0: the Python tests load the sanitized module into an interpreter
# that is not (ASan's runtime then comes in with the module).
export ASAN_OPTIONS="detect_leaks=1:exitcode=86:abort_on_error=0:detect_stack_use_after_return=0:strict_string_checks=1:verify_asan_link_order=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:exitcode=86"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
CC=${CC:-gcc} CXX=${CXX:-g++} cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAMC_SANITIZE=ON >/dev/null
# PAMC_SANITIZE_TARGETS: build only these (e.g. "pamc" for the command-line suites, as CI does).
targets=()
for t in ${PAMC_SANITIZE_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j"$jobs" "${targets[@]}"
# tests/consumer builds a program against the installed (sanitized) library: with the same flags.
export CXXFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" LDFLAGS="-fsanitize=address,undefined"
# A sanitized pamc run costs ~0.4 s (LeakSanitizer at exit): a smaller held-out set.
export PAMC_HOSTILE_COUNT=${PAMC_HOSTILE_COUNT:-60}
# and the error cases' time limit five times longer (ASan is 10-30x slower on big expansions).
export PAMC_TIMEOUT_SCALE=${PAMC_TIMEOUT_SCALE:-5}
ctest --test-dir "$build" --output-on-failure -j"$jobs" "$@"
