#!/usr/bin/env python3
"""Installs the build (cmake --install) into a temporary prefix, builds tests/consumer/
against it with find_package(pamela), and runs it on the MRM (expects T_main = 1e+08) and
on a broken model (expects the diagnostics, exit 1).

Usage: python3 tests/consumer/run_consumer.py --pamc build/pamc   (from the repo root;
the build folder is the pamc binary's folder)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()
    build = os.path.dirname(os.path.abspath(args.pamc))
    tmp = tempfile.mkdtemp(prefix="pamela-consumer-")
    try:
        prefix = os.path.join(tmp, "prefix")
        steps = [
            ["cmake", "--install", build, "--prefix", prefix],
            ["cmake", "-S", HERE, "-B", os.path.join(tmp, "build"), "-DCMAKE_PREFIX_PATH=" + prefix,
             "-DCMAKE_BUILD_TYPE=Release"],
            ["cmake", "--build", os.path.join(tmp, "build")],
        ]
        for cmd in steps:
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                print("FAIL: " + " ".join(cmd) + "\n" + p.stdout + p.stderr)
                return 1
        for needed in ["include/pamela/pamela.h", "lib/cmake/pamela/pamelaConfig.cmake"]:
            if not os.path.exists(os.path.join(prefix, needed)) and not os.path.exists(
                    os.path.join(prefix, needed.replace("lib/", "lib64/"))):
                print("FAIL: the install has no " + needed)
                return 1
        exe = os.path.join(tmp, "build", "consumer")
        failures = 0
        p = subprocess.run([exe, os.path.join(ROOT, "samples", "mrm.pam"), "P=1000", "N=1e6"],
                           capture_output=True, text=True)
        if p.returncode != 0 or p.stdout.strip() != "T_main = 1e+08":
            print("FAIL: consumer on the MRM gave exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
            failures += 1
        else:
            print("ok: consumer MRM: " + p.stdout.strip() + "; " + p.stderr.strip())
        broken = os.path.join(tmp, "broken.pam")
        with open(broken, "w") as f:
            f.write("numeric parameter N\nnumeric x = N +\n")
        p = subprocess.run([exe, broken, "N=1"], capture_output=True, text=True)
        if p.returncode != 1 or "broken.pam:" not in p.stderr or "[SyntaxError]" not in p.stderr:
            print("FAIL: consumer on a broken model: exit %d\n%s" % (p.returncode, p.stderr))
            failures += 1
        else:
            print("ok: consumer reports diagnostics: " + p.stderr.splitlines()[0])
        return 1 if failures else 0
    finally:
        if args.keep:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
