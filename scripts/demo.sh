#!/usr/bin/env bash
# The main job on the bundled sample: install what the build needs (nothing when it is
# there), build pamc alone (nothing when it is current), then compile and evaluate van
# Gemund's machine repair model (samples/mrm.pam). The tests' packages and targets are
# scripts/test.sh's.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh build pamc
set -x
build/pamc compile samples/mrm.pam
build/pamc eval samples/mrm.pam -D P=1000 -D N=1000000
