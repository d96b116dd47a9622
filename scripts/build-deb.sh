#!/usr/bin/env bash
# Builds the Debian package pamc_<version>-1_<arch>.deb (CPack; packaging/deb.cmake) in its
# own build folder and checks it with scripts/check-deb.sh (docs/install.md).
#
#   ./scripts/build-deb.sh [BUILD_DIR]     (default build-deb; the .deb is left there)
#
# The package is configured as Debian wants it, which the development build is not:
# installed under /usr (the library in lib/<multiarch>), pamc linked against the shared
# GiNaC, CLN, GMP and ANTLR (Debian forbids embedded copies; dpkg-shlibdeps then names
# them as dependencies), man page compressed. Only what the package holds is built.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-deb}
jobs=$(nproc 2>/dev/null || echo 2)
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD}
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_INSTALL_PREFIX=/usr \
  -DPAMC_STATIC_DEPS=OFF -DPAMC_DEBIAN_LAYOUT=ON -DPAMC_PYTHON=ON \
  -DCMAKE_SKIP_INSTALL_ALL_DEPENDENCY=ON > "$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j"$jobs" --target pamc pamela pamela_python pamc_changelog
rm -f "$build"/pamc_*.deb
(cd "$build" && cpack -G DEB > cpack.log 2>&1) || { cat "$build/cpack.log"; exit 1; }
deb=$(ls "$build"/pamc_*.deb)
echo "build-deb: built $deb"
./scripts/check-deb.sh "$deb"
