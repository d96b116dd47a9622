#!/usr/bin/env python3
"""Synthetic measurements for `pamc hybrid` shaped like seed 001's case study
(docs/predictability.md): four codes (HEAT, HYDRO, HYDROT, SWEEP) on two R10000 machines
(origin2000, powerchallenge), the paper's problem-size ranges, three runs per size.

Per run: cpi = cpi_pipeline + (1 - m0) (h2 T2 + h3 T3) (seed 001, eq. 2) with 0.5%
measurement noise on cpi (0.3% on cpi_pipeline). cpi_pipeline depends on the code only (the paper ran identical
executables on both machines). m0 is constant in size for HEAT, HYDROT and SWEEP and
drifts for HYDRO (more on the Origin 2000, as the paper's Figures 1-2 show). The seed
prints no latencies or hit counts: T2, T3 and h_i here are illustrative.

    python3 generate.py [--seed S] [--runs 3] > r10000.csv"""
import argparse, math, random

CODES = {  # problem sizes (seed 001, section 3.3), cpi_pipeline
    "HEAT": ([50, 60, 70, 80, 90, 100], 0.62),
    "HYDRO": ([50, 100, 150, 200, 250, 300], 0.71),
    "HYDROT": ([50, 100, 150, 200, 250, 300], 0.69),
    "SWEEP": ([50, 75, 100, 125, 150, 175, 200], 0.80),
}
MACHINES = {"origin2000": (11, 61), "powerchallenge": (11, 80)}  # T2, T3 in cycles (illustrative)


def m0(code, machine, size):
    if code == "HYDRO":  # fluctuates as the problem grows (seed 001, Figures 1-2)
        amp = 0.12 if machine == "origin2000" else 0.06
        return 0.30 + amp * math.sin(size / 40.0) + 0.0004 * size
    base = {"HEAT": 0.42, "HYDROT": 0.55, "SWEEP": 0.38}[code]
    return base + (0.05 if machine == "origin2000" else 0.0)  # four outstanding misses vs fewer than two


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=2001)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    print("# synthetic R10000 measurements (samples/hybrid/generate.py --seed %d --runs %d)" % (a.seed, a.runs))
    print("code,machine,size,cpi,cpi_pipeline,h2,T2,h3,T3")
    for code, (sizes, pipe) in CODES.items():
        for machine, (T2, T3) in MACHINES.items():
            for size in sizes:
                for _ in range(a.runs):
                    h2 = 0.02 * (1 + 0.1 * rng.gauss(0, 1)) * (1 + size / 400)
                    h3 = 0.004 * (1 + 0.1 * rng.gauss(0, 1)) * (1 + size / 200)
                    p = pipe * (1 + 0.003 * rng.gauss(0, 1))  # measured: 0.3% counter noise
                    cpi = (p + (1 - m0(code, machine, size)) * (h2 * T2 + h3 * T3)) * (1 + 0.005 * rng.gauss(0, 1))
                    print("%s,%s,%g,%.6f,%.6f,%.6f,%d,%.6f,%d" % (code, machine, size, cpi, p, h2, T2, h3, T3))


if __name__ == "__main__":
    main()
