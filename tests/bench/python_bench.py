#!/usr/bin/env python3
"""The Python module's vectorized evaluation: the MRM (samples/mrm.pam, T_main =
N * max(0.1 * P, 10.1)) over P = 1 .. --points, N = 1e6, timed inside the process (the
model compiled once, then --runs calls; min and median of wall and CPU time), beside the
same formula written in NumPy and a Python loop over single-point calls (on 10^4 points,
scaled). Target (issue 13): 10^6 points in under 0.1 s.

  PYTHONPATH=build/python python3 tests/bench/python_bench.py [--points 1000000] [--runs 11]
"""
import argparse
import os
import statistics
import time

import numpy as np

import pamela

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(fn, runs):
    walls, cpus = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return walls, cpus


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=10**6)
    ap.add_argument("--runs", type=int, default=11)
    ap.add_argument("--quiet", action="store_true", help="evaluate only (for timing the whole process)")
    args = ap.parse_args()
    m = pamela.Model(os.path.join(ROOT, "samples", "mrm.pam"))
    P = np.arange(1, args.points + 1)
    if args.quiet:
        for _ in range(args.runs):
            m(P=P, N=1e6)
        return
    rows = [("pamela, model(P=array, N=1e6)", lambda: m(P=P, N=1e6), args.points),
            ("NumPy, the formula by hand", lambda: np.maximum(0.1 * P, 10.1) * 1e6, args.points)]
    few = P[:10**4].tolist()
    t = m.function("main")
    rows.append(("Python loop of t(p, 1e6) (10^4 points)", lambda: [t(p, 1e6) for p in few], len(few)))
    print("%-42s %10s %10s %10s %10s %9s" % ("path", "points", "wall min", "wall med", "cpu med", "ns/point"))
    for name, fn, points in rows:
        walls, cpus = timed(fn, args.runs)
        print("%-42s %10d %9.4fs %9.4fs %9.4fs %9.1f" % (name, points, min(walls), statistics.median(walls),
                                                      statistics.median(cpus), 1e9 * min(walls) / points))


if __name__ == "__main__":
    main()
