#!/usr/bin/env bash
# Installs the Debian packages pamc needs, by purpose (docs/install.md):
#
#   ./scripts/install-deps.sh build   what the build and the main job need (scripts/demo.sh)
#   ./scripts/install-deps.sh test    that, and what the tests use: Octave, clang's fuzzer
#                                     runtime, gnuplot, NumPy and pytest, lintian, OpenMPI, npm, vim
#                                     (scripts/test.sh; also the default)
#
# Asks dpkg once which are installed and makes no apt call when every one is, so a warm
# machine pays nothing. Needs root (or sudo) and the Debian archive for what is missing.
set -euo pipefail
purpose=${1:-test}

# Configure and build: the compiler, ANTLR's tool (Java) and runtime, GiNaC and CLN, Boost's
# option parser, GSL, nlohmann-json, doctest (CMake asks for it), and the Python module's
# pybind11, headers and NumPy (built by default, for a python3 that imports NumPy:
# runtime/python/CMakeLists.txt).
build_packages=(
  build-essential cmake pkg-config
  antlr4 default-jre-headless libantlr4-runtime-dev uuid-dev
  libginac-dev libcln-dev
  libboost-program-options-dev
  libgsl-dev
  nlohmann-json3-dev
  doctest-dev
  python3 pybind11-dev python3-dev python3-numpy
)
# The tests: emitted Octave is run, the fuzzer and sanitizer builds use clang, plots need
# gnuplot, the Python tests pytest, the package check lintian and file, GiNaC's
# ginsh is a reference, the MPI sample (samples/mpi) needs OpenMPI (headers and mpirun);
# the editor-support tests (docs/editors.md) need npm and vim, which
# are installed only when the command is missing (Node.js from elsewhere brings its own
# npm, which Debian's conflicts with).
test_packages=(
  octave
  clang libclang-rt-14-dev
  gnuplot-nox
  python3-pytest
  lintian file
  ginac-tools
  python3-sympy
  libopenmpi-dev openmpi-bin
)

case "$purpose" in
  build) packages=("${build_packages[@]}") ;;
  test)
    packages=("${build_packages[@]}" "${test_packages[@]}")
    command -v npm >/dev/null || packages+=(npm)
    command -v vim >/dev/null || packages+=(vim)
    ;;
  *) echo "usage: $0 [build|test]" >&2; exit 2 ;;
esac

installed=$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null |
  awk '$NF == "installed" && $(NF-1) == "ok" {print $1}' || true)
missing=()
for p in "${packages[@]}"; do
  grep -qxF "$p" <<<"$installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all $purpose packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
