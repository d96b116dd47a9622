#!/usr/bin/env python3
"""Sweep throughput (points/s) on the MRM, with and without CSV output. Not in CTest.

    python3 tests/bench/sweep_bench.py --pamc build/pamc [--points 10000000]

Uses `pamc sweep --timing`, which times the evaluation (compiled double tape) and the CSV
formatting + writing separately; also reports wall time for the whole command. For scale:
Aspen's tool evaluates ~4,400 points/s."""
import argparse, os, re, subprocess, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MRM = os.path.join(ROOT, "samples", "mrm.pam")


def run(pamc, args, csv):
    t = time.perf_counter()
    p = subprocess.run([pamc, "sweep", MRM, *args, "--timing", "--csv", csv], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if p.returncode != 0:
        raise SystemExit(p.stderr)
    m = re.search(r"sweep: (\d+) points .*evaluation ([\d.]+) s .*writing ([\d.]+) s", p.stderr)
    n, ev, fmt = int(m.group(1)), float(m.group(2)), float(m.group(3))
    return n, ev, fmt, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--points", type=int, default=10_000_000)
    a = ap.parse_args()
    out = os.path.join(tempfile.mkdtemp(prefix="pamc-sweep-bench-"), "out.csv")
    cases = [("1 parameter (P), N fixed", ["-D", "N=1000", "--sweep", f"P=1:{a.points}"]),
             ("grid P x N", ["--sweep", f"P=1:{a.points // 1000}", "--sweep", "N=1:1000"])]
    print(f"{'case':28} {'points':>10} {'eval points/s':>14} {'eval+CSV points/s':>18} {'wall points/s':>14}")
    for name, args in cases:
        n, ev, fmt, wall = run(a.pamc, args, out)
        print(f"{name:28} {n:>10} {n / ev:>14.3g} {n / (ev + fmt):>18.3g} {n / wall:>14.3g}")
        os.remove(out)


if __name__ == "__main__":
    main()
