#!/usr/bin/env python3
"""Aspen's matmul model on Keeneland's NVIDIA M2090, written in Pamela
(samples/aspen/matmul_m2090.pam): the model pamc is timed on against Aspen's `runtime` tool
(docs/benchmarks.md, "Start-up against Aspen"). Both must do the same work, so pamc must
give Aspen's answer, 0.120792939543 s (Aspen prints 12 significant digits).

  python3 tests/samples/run_aspen.py --pamc build/pamc     (from the repository root)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cli"))
import harness  # noqa: E402
from harness import check, pamc  # noqa: E402

MODEL = "samples/aspen/matmul_m2090.pam"
ASPEN = 0.120792939543  # Aspen's runtime: matmul.aspen keeneland.aspen nvidia_m2090


def value(out):
    return float(out.strip().rsplit("=", 1)[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", required=True)
    harness.PAMC = ap.parse_args().pamc
    rc, out, err = pamc("eval", MODEL)
    check("eval exits 0", rc == 0, err)
    got = value(out)
    check("Aspen's answer to 12 digits", f"{got:.12g}" == f"{ASPEN:.12g}", f"{got!r} vs {ASPEN}")
    # The closed form: flops 2 n^3 / (clock 2 SIMD) and three transfers, one strided, each
    # a latency plus bytes over bandwidth, nTimes over.
    rc, out, err = pamc("compile", MODEL)
    check("one closed form in the model's names",
          "numeric T_main = (333 * n ^ 3 + 416 * n ^ 2 * wordSize + 86580) * nTimes / 13852800000000" in out,
          out + err)
    # The same at other sizes: n = 2000 in double precision (wordSize 8), 10 repeats.
    n, w, t = 2000, 8, 10
    clock, simd, bw, lat = 1300e6, 32, 3700e6 * 48 * 0.75, 50e-9 / 32
    transfer = lat + n * n * w / bw
    want = t * (2 * n ** 3 / clock / 2 / simd + 4 * transfer)
    rc, out, err = pamc("eval", MODEL, "-D", f"n={n}", "-D", f"wordSize={w}", "-D", f"nTimes={t}")
    got = value(out)
    check("n = 2000, 8-byte words, 10 repeats", abs(got - want) <= 1e-12 * want, f"{got} vs {want}")
    sys.exit(harness.summary("aspen matmul checks"))


if __name__ == "__main__":
    main()
