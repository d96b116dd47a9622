#!/usr/bin/env bash
# The main job on the bundled sample: install, build, then compile and evaluate the seed's
# machine repair model (samples/mrm.pam).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
set -x
build/pamc compile samples/mrm.pam
build/pamc eval samples/mrm.pam -D P=1000 -D N=1000000
