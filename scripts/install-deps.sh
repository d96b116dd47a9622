#!/usr/bin/env bash
# Installs the Debian packages pamc builds and tests with (see docs/design.md, "Stack").
# Skips the apt step entirely when every package is already present, so a warm machine
# pays nothing. Needs root (or sudo) and the Debian archive.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  antlr4 default-jre-headless libantlr4-runtime-dev uuid-dev
  libginac-dev libcln-dev ginac-tools
  libboost-program-options-dev
  libgsl-dev
  nlohmann-json3-dev
  doctest-dev
  octave
  clang
  libclang-rt-14-dev
  gnuplot-nox
  python3
  pybind11-dev python3-dev python3-numpy python3-pytest
  python3-sympy
  lintian file
)
# The editor-support tests (docs/editors.md) and the KaTeX check of --emit latex need npm
# (node comes with it) and vim: installed only when the
# command is missing (Node.js from elsewhere brings its own npm, which Debian's conflicts with).
command -v npm >/dev/null || packages+=(npm)
command -v vim >/dev/null || packages+=(vim)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
