#!/usr/bin/env python3
"""Aspen's own models written in Pamela (samples/aspen/): the models pamc is timed on against
Aspen's `runtime` tool (docs/benchmarks.md, "Aspen's own models"). Both must do the same work,
so pamc must give Aspen's answers to Aspen's 12 significant digits, at the model's defaults
and at one other parameter point each.

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

# What Aspen's `runtime` tool printed (Aspen's public copy, repository monil01/mapredict,
# folder aspen/, built with its configure and make), run from aspen/ as
#   tools/prediction/runtime models/APP machine/MACHINE SOCKET [PARAM VALUE]
# for each Pamela port: (port, Aspen's app model, machine, socket, [(parameter point, answer)]).
ASPEN_ANSWERS = [
    ("matmul_m2090", "matmul/matmul.aspen", "keeneland.aspen", "nvidia_m2090",
     [({}, 0.120792939543), ({"n": 2000}, 0.963940895191)]),
    ("fft3d_m2090", "3dfft/3D_FFT.aspen", "fermiCluster.aspen", "nvidia_m2090",
     [({}, 6376.75724825), ({"n": 4096}, 812.040695366), ({"wordSize": 8}, 3421.6133838)]),
    ("minimd_m2090", "md/miniMD.aspen", "fermiCluster.aspen", "nvidia_m2090",
     [({}, 97.1361460793), ({"nAtom": 250000}, 603.651662313), ({"P": 27}, 98.4781825793)]),
    ("comd_x5660", "comd/CoMD.aspen", "keeneland.aspen", "intel_xeon_x5660",
     [({}, 0.0455443714822), ({"nAtom": 262144}, 2.13530466869), ({"nCellsZ": 28}, 0.0381901297367)]),
    ("maxloadstore_simple", "examples/maxloadstore_1.aspen", "simple.aspen", "SimpleCPU",
     [({}, 0.5), ({"n": 12345}, 6.1725)]),
]


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
    for port, app, machine, socket, points in ASPEN_ANSWERS:
        for binds, want in points:
            defs = [a for k, v in binds.items() for a in ("-D", f"{k}={v}")]
            # Simplified at the point (eval's way for one point), and the closed form for
            # every value (what compile prints): both give Aspen's answer.
            for how in ([], ["--closed-form"]):
                rc, out, err = pamc("eval", f"samples/aspen/{port}.pam", *how, *defs)
                where = f"{port} {' '.join(how)} {binds or 'defaults'} (Aspen: {app} on {machine} {socket})"
                check(f"{where} evaluates", rc == 0, err)
                if rc == 0:
                    got = value(out)
                    check(f"{where}: Aspen's {want!r} to 12 digits", f"{got:.12g}" == f"{want:.12g}",
                          f"{got!r} vs {want}")
    sys.exit(harness.summary("aspen checks"))


if __name__ == "__main__":
    main()
