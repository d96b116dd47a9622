#!/usr/bin/env bash
# Builds the libFuzzer target (tests/fuzz/) in build-fuzz/ with clang, ASan and UBSan, and
# runs it for DURATION seconds (default 600) on one core: scripts/fuzz.sh [DURATION] [ARGS...]
# (extra ARGS go to libFuzzer). The corpus grows in build-fuzz/corpus/, seeded from every
# model file under samples/ and tests/; crashers and timeouts are written to
# build-fuzz/findings/ (crash-*, timeout-* past 20 s, oom-* past 2 GB). The log is build-fuzz/fuzz.log.
# Reproduce one finding: build-fuzz/pamc_fuzz build-fuzz/findings/crash-...
# Runs niced: the build machine is shared. docs/testing.md says what to do with a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-600}
shift || true
build=build-fuzz
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1
CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPAMC_FUZZ=ON >/dev/null
nice -n 19 cmake --build "$build" -j"${PAMC_FUZZ_BUILD_JOBS:-2}" --target pamc_fuzz
mkdir -p "$build/corpus" "$build/seeds" "$build/findings"
# The seeds: the model files of samples/ and tests/ (names kept, so a seed is traceable).
find samples tests -name '*.pam' -size -4k | while read -r f; do
  cp "$f" "$build/seeds/$(echo "$f" | tr '/' '_')"
done
# Imports in an input resolve against the working directory: run where stdlib/ is.
# ASan: a leak in one input is not a finding here (LeakSanitizer runs on the CLI suite,
# scripts/sanitize.sh); UBSan already stops at the first report (-fno-sanitize-recover).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# libFuzzer stops at its first finding; the loop starts it again on the grown corpus until
# DURATION is used up, so one run collects every finding (each is saved under findings/).
end=$(( $(date +%s) + duration ))
while [ "$(date +%s)" -lt "$end" ]; do
  left=$(( end - $(date +%s) ))
  nice -n 19 "$build/pamc_fuzz" "$build/corpus" "$build/seeds" \
    -dict=tests/fuzz/pamela.dict -max_total_time="$left" -timeout=20 -rss_limit_mb=2048 \
    -max_len=4096 -print_funcs=0 -artifact_prefix="$build/findings/" -print_final_stats=1 \
    "$@" >>"$build/fuzz.log" 2>&1 || echo "fuzz.sh: a finding (see $build/fuzz.log); going on" | tee -a "$build/fuzz.log"
done
ls -l "$build/findings/"
grep -E '^(#[0-9]+|stat::)' "$build/fuzz.log" | tail -12
