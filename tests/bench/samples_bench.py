#!/usr/bin/env python3
"""Benchmark of the seed 002 samples (not run by CTest).

  python3 tests/bench/samples_bench.py --pamc build/pamc [--repeat 3] [--timeout 600]

Per sample: compile time (`pamc compile`, wall clock, best of --repeat) and, at the seed's
sizes, the time of `pamc eval` on the closed form against `pamc eval` on the brute-force
time-domain model (`--stage time --all`, parameters bound, `pamc eval --brute-force`: every
reduction unrolled).
Both include process start-up (a few ms), so for a closed form the ratio understates the
gain; --timeout bounds a brute-force run (reported as '>timeout').
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "samples"))
from run_samples import instantiate, parameters  # noqa: E402

SIZES = {  # seed 002, section 4 (the MRM: section 2)
    "mrm": {"N": 1000000, "P": 1000},
    "matmul": {"N": 1024, "P": 64},
    "adi_i": {"N": 1024, "P": 64},
    "adi_j": {"N": 1024, "P": 64},
    "gauss_block": {"N": 512, "P": 64},
    "gauss_cyclic": {"N": 512, "P": 64},
    "psrs_original": {"N": 819200, "P": 64},
    "psrs_improved": {"N": 819200, "P": 64},
}


def timed(cmd, timeout=None):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr}")
    return dt, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    print(f"{'sample':15} {'size':>16} {'compile':>9} {'residual':>8} {'eval closed':>12} "
          f"{'eval brute':>12} {'ratio':>8}")
    for name, size in SIZES.items():
        path = f"samples/{name}.pam"
        comp = min(timed([pamc, "compile", path])[0] for _ in range(args.repeat))
        _, r = timed([pamc, "compile", path, "--stats"])
        m = re.search(r"^residual reductions: (\d+)", r.stderr, re.M)
        resid = m.group(1) if m else "?"
        dargs = [a for k, v in size.items() for a in ("-D", f"{k}={v}")]
        closed = min(timed([pamc, "eval", path, "--target", "T_main", *dargs])[0]
                     for _ in range(args.repeat))
        params, _ = parameters(pamc, path)
        binds = {p: size.get(p, d) for p, d in params}
        time_model = subprocess.run([pamc, "compile", path, "--stage", "time", "--all"],
                                    capture_output=True, text=True).stdout
        with tempfile.TemporaryDirectory() as tmp:
            brute_path = os.path.join(tmp, f"{name}_time.pam")
            with open(brute_path, "w") as f:
                f.write(instantiate(time_model, binds))
            try:
                brute, _ = timed([pamc, "eval", brute_path, "--target", "T_main", "--brute-force"],
                                 args.timeout)
                brute_s, ratio = f"{brute:.3f} s", f"{brute / closed:.3g}"
            except subprocess.TimeoutExpired:
                brute_s, ratio = f">{args.timeout:.0f} s", f">{args.timeout / closed:.3g}"
        sz = ",".join(f"{k}={v}" for k, v in size.items())
        print(f"{name:15} {sz:>16} {comp * 1e3:7.1f}ms {resid:>8} {closed * 1e3:10.1f}ms "
              f"{brute_s:>12} {ratio:>8}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
