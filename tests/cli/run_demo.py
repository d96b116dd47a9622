#!/usr/bin/env python3
"""The first README command, ./scripts/demo.sh, as a new user meets it: it installs only
what the build and the main job need (the tests' packages are scripts/test.sh's), makes no
apt call when everything is installed, configures only a build folder never configured,
builds pamc alone, and prints van Gemund's MRM formula and its value.

The scripts run in a copy of the repository's scripts/ and samples/mrm.pam, with apt-get,
sudo, dpkg-query and cmake replaced by stubs that record their arguments, so the test
neither installs nor builds anything; build/pamc there is the pamc under test.

  python3 tests/cli/run_demo.py --pamc build/pamc"""
import harness
from harness import ROOT, check
import argparse, os, shutil, stat, subprocess, sys, tempfile

# What scripts/test.sh adds for the tests (scripts/install-deps.sh): never the demo's.
TEST_ONLY = ["octave", "lintian", "gnuplot-nox", "python3-pytest", "clang", "libclang-rt-14-dev", "libopenmpi-dev"]

STUB = """#!/bin/sh
echo "$(basename "$0") $*" >> "{log}"
{extra}
"""
# dpkg-query -W -f=... PKG...: every package installed, or none (an empty answer).
DPKG_ALL = 'for p in "$@"; do case "$p" in -*) ;; *) echo "$p install ok installed";; esac; done'


def make_repo(tmp, pamc, configured):
    """A copy of the scripts and the sample, build/pamc linked to the pamc under test."""
    repo = os.path.join(tmp, "repo")
    os.makedirs(os.path.join(repo, "build"))
    shutil.copytree(os.path.join(ROOT, "scripts"), os.path.join(repo, "scripts"))
    os.makedirs(os.path.join(repo, "samples"))
    shutil.copy(os.path.join(ROOT, "samples", "mrm.pam"), os.path.join(repo, "samples"))
    os.symlink(pamc, os.path.join(repo, "build", "pamc"))
    if configured:
        open(os.path.join(repo, "build", "CMakeCache.txt"), "w").close()
    return repo


def make_stubs(tmp, log, installed):
    bin_dir = os.path.join(tmp, "stubs")
    os.makedirs(bin_dir)
    for name, extra in [("apt-get", ""), ("sudo", '"$@"'), ("cmake", ""),
                        ("dpkg-query", DPKG_ALL if installed else "")]:
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write(STUB.format(log=log, extra=extra))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return bin_dir


def run_script(tmp, pamc, script, args, installed, configured):
    """Runs scripts/SCRIPT in a fresh copy: (exit code, output, the stubs' calls)."""
    case = tempfile.mkdtemp(dir=tmp)
    log = os.path.join(case, "calls.log")
    open(log, "w").close()
    repo = make_repo(case, pamc, configured)
    env = dict(os.environ, PATH=make_stubs(case, log, installed) + os.pathsep + os.environ.get("PATH", ""))
    p = subprocess.run([os.path.join(repo, "scripts", script)] + args, capture_output=True, text=True, env=env,
                       cwd=case, timeout=120)
    calls = [line.split(" ") for line in open(log).read().splitlines()]
    return p.returncode, p.stdout + p.stderr, [c for c in calls if c[0] != "dpkg-query"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    pamc = os.path.abspath(ap.parse_args().pamc)
    tmp = tempfile.mkdtemp(prefix="pamc-demo-")
    try:
        # A warm machine: everything installed, the build folder configured.
        rc, out, calls = run_script(tmp, pamc, "demo.sh", [], installed=True, configured=True)
        check("demo.sh with every package installed: no apt call",
              rc == 0 and not [c for c in calls if c[0] in ("apt-get", "sudo")], f"{calls}\n{out}")
        builds = [c for c in calls if c[0] == "cmake"]
        check("demo.sh with a configured build: no configure, one build of the pamc target alone",
              len(builds) == 1 and builds[0][1:3] == ["--build", "build"] and builds[0][-2:] == ["--target", "pamc"],
              f"{builds}")
        check("demo.sh prints the MRM's formula and its value at P = 1000, N = 10^6",
              rc == 0 and "numeric T_main = N * max(0.1 * P, 10.1)" in out and "numeric T_main = 100000000" in out, out)
        # A fresh clone: the build folder is configured once, then pamc built.
        rc, out, calls = run_script(tmp, pamc, "demo.sh", [], installed=True, configured=False)
        builds = [c for c in calls if c[0] == "cmake"]
        check("demo.sh on a fresh clone: configures build/ (RelWithDebInfo, line tables only), then builds the pamc target alone",
              rc == 0 and len(builds) == 2 and builds[0][1:5] == ["-S", ".", "-B", "build"]
              and "-DCMAKE_BUILD_TYPE=RelWithDebInfo" in builds[0] and builds[1][-2:] == ["--target", "pamc"]
              and "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG" in " ".join(builds[0]),
              f"{builds}\n{out}")
        # A fresh machine: what the demo installs is what the build needs, no test tool.
        rc, out, calls = run_script(tmp, pamc, "install-deps.sh", ["build"], installed=False, configured=True)
        install = next((c for c in calls if c[0] == "apt-get" and "install" in c), [])
        check("install-deps.sh build on a fresh machine: one apt-get install of the build packages",
              rc == 0 and "libginac-dev" in install and "antlr4" in install and "cmake" in install, f"{calls}\n{out}")
        check("install-deps.sh build installs no test-only package (" + ", ".join(TEST_ONLY) + ")",
              install and not [p for p in TEST_ONLY if p in install], f"{install}")
        rc, out, calls = run_script(tmp, pamc, "install-deps.sh", ["test"], installed=False, configured=True)
        install = next((c for c in calls if c[0] == "apt-get" and "install" in c), [])
        check("install-deps.sh test installs the test packages too (Octave, lintian, gnuplot, pytest)",
              rc == 0 and all(p in install for p in ["octave", "lintian", "gnuplot-nox", "python3-pytest", "libginac-dev"]),
              f"{install}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return harness.summary("first-run checks")


if __name__ == "__main__":
    sys.exit(main())
