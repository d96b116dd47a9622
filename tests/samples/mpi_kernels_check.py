#!/usr/bin/env python3
"""samples/mpi/mpi_kernels.cpp at 2 and 3 ranks: its kernels compute what a serial run does.

  python3 tests/samples/mpi_kernels_check.py --exe build/samples/mpi/mpi_kernels

1. `check`: the Jacobi grid after 25 sweeps equals one process's (uneven row blocks at 3
   ranks), its residual matches sweep by sweep and decreases; the all-to-all transpose
   has every element right.
2. A timed run prints its machine-readable line, and the residual at 2 ranks is the one
   rank's residual (the decomposition changes the time, never the answer).
3. Bad input: N = 0 is refused with a message and exit 2.
Skipped (exit 77) where the program was not built (no MPI at configure time, or a
sanitizer build) or mpirun is absent. OpenMPI refuses to run as root without --allow-run-as-root, and more ranks than
cores without --oversubscribe: both are passed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

failures = []


def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok:
        failures.append(msg)


def mpirun(ranks, *args):
    cmd = [shutil.which("mpirun"), "--allow-run-as-root", "--oversubscribe", "-np", str(ranks), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default="")
    args = ap.parse_args()
    if not args.exe or not os.path.exists(args.exe):
        print("skipped: mpi_kernels was not built (CMake found no MPI, Debian: libopenmpi-dev; or a sanitizer build)")
        return 77
    if not shutil.which("mpirun"):
        print("skipped: no mpirun (Debian: openmpi-bin)")
        return 77
    for ranks in (2, 3):
        r = mpirun(ranks, args.exe, "check")
        check(r.returncode == 0, f"check at {ranks} ranks exits 0 ({r.returncode}: {r.stderr.strip()[-300:]})")
        check(re.search(rf"check jacobi ranks={ranks} .*grid vs serial max diff 0,.*\(decreasing\)", r.stdout) is not None,
              f"Jacobi at {ranks} ranks: the grid equals the serial run's and the residual decreases")
        check(f"check transpose ranks={ranks} N={6 * ranks}: every element right" in r.stdout,
              f"transpose at {ranks} ranks: every element right")
    line = re.compile(r"^kind=jacobi N=40 S=7 ranks=(\d) median=(\S+) min=(\S+) max=(\S+) repeats=3 residual=(\S+)$", re.M)
    residual = {}
    for ranks in (1, 2):
        r = mpirun(ranks, args.exe, "jacobi", "40", "7", "3")
        m = line.search(r.stdout)
        check(r.returncode == 0 and m is not None and int(m.group(1)) == ranks,
              f"timed Jacobi at {ranks} rank(s) prints its line ({r.stdout.strip()[-200:]})")
        if m:
            med, lo, hi = (float(m.group(i)) for i in (2, 3, 4))
            check(0 < lo <= med <= hi, f"timed Jacobi at {ranks} rank(s): 0 < min <= median <= max")
            residual[ranks] = float(m.group(5))
    if len(residual) == 2:
        check(abs(residual[2] - residual[1]) <= 1e-12 * residual[1] and residual[1] > 0,
              f"residual after 7 sweeps: {residual[2]} at 2 ranks, {residual[1]} at 1")
    r = mpirun(1, args.exe, "jacobi", "0", "7", "3")
    check(r.returncode == 2 and "N must be a positive integer, not '0'" in r.stderr,
          f"N = 0 is refused with exit 2 ({r.returncode}: {r.stderr.strip()[:200]})")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all mpi_kernels checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
