#!/usr/bin/env python3
"""docs/samples.md is the samples' real output, and the seed numbers it states are checked
here, each with the number.

  python3 tests/samples/run_samples_doc.py --pamc build/pamc     (from the repository root)

1. scripts/gen_samples_doc.py --check: the page equals what the template and pamc give.
2. Seed 002: PSRS (original) takes the seed's 300 s at P = 64, N = 819200, with das.pam's
   t_startup, which pamc fit recovers from that one time; GAUSS block beats cyclic at
   das.pam's t_miss / t_hit and the crossover lies at 1.7 - 1.9 t_hit for P = 4 .. 16.
3. Seed 000: tzetar class W counts (725,760 flops, AVL 35) and the trace's 244,916 cycles;
   AVL 31 at size 64 (integer division); Figure 6's factor 4 without the MV score; CG's
   counts and the 4.5 GB/s multi-streamed scalar peak.
4. Seed 004: Table 2's per-phase ratios small / test and medium / test on 16 processors,
   the six data sets, phase 4's communication below phase 2's at P = 2 and above it from
   P = 16 (section 3.3).
5. pamc sweep --heatmap: draws a PNG; without two swept parameters it is a usage error.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok:
        failures.append(msg)


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(abs(a), abs(b))


class Pamc:
    def __init__(self, path):
        self.path = path

    def run(self, *args):
        return subprocess.run([self.path, *args], capture_output=True, text=True, cwd=ROOT)

    def eval(self, model, *args):
        r = self.run("eval", model, "--json", *args)
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        return json.loads(r.stdout)

    def T(self, model, target="T_main", **binds):
        args = ["--target", target] + sum((["-D", f"{k}={v}"] for k, v in binds.items()), [])
        return self.eval(model, *args)[target]


def page(pamc):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_samples_doc.py"), "--pamc", pamc.path,
                        "--check"], capture_output=True, text=True)
    check(r.returncode == 0, "docs/samples.md is the samples' output " + (r.stderr[-1500:] if r.returncode else ""))


def seed002(pamc):
    t = pamc.T("samples/psrs_original.pam", N=819200, P=64)
    check(abs(t - 300) <= 0.001 * 300, f"PSRS original, N = 819200, P = 64: {t:.6g} s = seed 002's 300 s (0.1%)")
    r = pamc.run("fit", "samples/psrs_original.pam", "--data", "samples/data/psrs_original_das.csv",
                 "--fit", "t_startup", "--json")
    fitted = json.loads(r.stdout)["parameters"]["t_startup"]["value"] if r.returncode == 0 else None
    check(fitted is not None and close(fitted, 6.07319086484915e-05, 1e-6),
          f"pamc fit t_startup from the 300 s: {fitted} (6.07319e-5)")
    out = pamc.run("compile", "samples/psrs_original.pam").stdout
    default = float(re.search(r"^numeric parameter t_startup = (\S+)", out, re.M).group(1))
    check(fitted is not None and abs(default - fitted) <= 0.001 * fitted,
          f"das.pam's t_startup {default} is the fitted value to three digits")
    for P in (2, 4, 8, 16, 32, 64):
        b, c = pamc.T("samples/gauss_block.pam", P=P), pamc.T("samples/gauss_cyclic.pam", P=P)
        check(b < c, f"GAUSS N = 512, P = {P}: block {b:.4g} s beats cyclic {c:.4g} s at t_miss = 12.5 t_hit")
    for P in (4, 8, 16):
        lines = {}
        for m in ("gauss_block", "gauss_cyclic"):
            a = pamc.T(f"samples/{m}.pam", P=P, t_miss=0)
            lines[m] = (a, (pamc.T(f"samples/{m}.pam", P=P, t_miss=1e-7) - a) / 1e-7)
        (ab, sb), (ac, sc) = lines["gauss_block"], lines["gauss_cyclic"]
        ratio = (ab - ac) / (sc - sb) / 2e-8
        check(1.7 <= ratio <= 1.9, f"GAUSS P = {P}: block starts to win at t_miss = {ratio:.3f} t_hit (~1.75)")


def seed000(pamc):
    got = pamc.eval("samples/sp_tzetar.pam", "-D", "size=36")
    check(got["tzetar.vector_flops"] == 725760, "tzetar class W: 725,760 vector flops (seed 000 5.2)")
    check(got["tzetar.vector_loadstore"] == 1179360, "tzetar class W: 1,179,360 vector load-stores (seed 000 5.2)")
    check(got["tzetar.avl"] == 35, "tzetar class W: AVL 35 (seed 000 5.2)")
    a64 = pamc.T("samples/sp_tzetar.pam", "tzetar.avl", size=64)
    check(a64 == 31, f"tzetar size 64: AVL {a64} = 63 div 2 = 31, a whole vector length (not 31.5)")
    r = pamc.run("validate", "samples/sp_tzetar.pam", "--trace", "tests/cli/data/tzetar_classW.trace", "-D", "size=36")
    m = re.search(r"^\s*cycles\s+(\S+)\s+(\S+)", r.stdout, re.M)
    check(m is not None and m.group(2) == "244916", "the trace's 244,916 cycles are compared with the loop time")
    if m:
        check(close(float(m.group(1)), got["tzetar.time"] * 1.13e9), f"predicted cycles {m.group(1)} = Tv x 1.13 GHz")
    for size in (12, 36, 64, 102, 162):
        s0 = pamc.T("samples/tzetar_mv/tzetar_mv.pam", size=size, mflag=0)
        nomv = pamc.T("samples/tzetar_mv/tzetar_no_mv.pam", size=size)
        ms = pamc.T("samples/tzetar_mv/tzetar_mv.pam", size=size, mflag=1)
        check(close(s0 / nomv, 4), f"Figure 6, size {size}: without the MV score 4x off the stream0 build ({s0 / nomv:.6g})")
        check(close(ms, nomv), f"size {size}: with MV 3 the two models agree")
    cg = pamc.eval("samples/cg.pam")
    check(cg["conj_grad_dot.vector_flops"] == 2 * 7000 * 81, "CG class W: 2 flops per nonzero, 1,134,000")
    check(cg["conj_grad_dot.vector_loadstore"] == 3 * 7000 * 81, "CG class W: 3 vector loads per nonzero, 1,701,000")
    check(cg["conj_grad_rows.scalar_loadstore"] == 3 * 7000, "CG class W: 3 scalar references per row, 21,000")
    check(cg["conj_grad_rows.mv"] == 2 and cg["conj_grad_dot.mv"] == 3,
          "CG loops 17 (mflag 1, vflag 0) and 18 (mflag 1, vflag 1): MV 2 and 3")
    check(cg["conj_grad_dot.avl"] == 40, "CG AVL: 81 nonzeros in strips of 64, 81 div 2 = 40")
    check(close(cg["conj_grad_rows.time"], 8 * 21000 / 4.5e9),
          "CG's multi-streamed scalar loop streams at bw_scalar_ms_peak, 4.5 GB/s (seed 000 4.2)")


TABLE2 = {2: (41.3, 12.2, 0.632, 161), 3: (664, 134, 1.45, 5285)}
TEST = (6.95, 3.6, 0.574, 31.2)


def seed004(pamc):
    m = "samples/seismic.pam"
    test = [pamc.T(m, f"phase_{k}", dataset=1) for k in (1, 2, 3, 4)]
    for d, phases in TABLE2.items():
        for k in (1, 2, 3, 4):
            got = pamc.T(m, f"phase_{k}", dataset=d) / test[k - 1]
            want = phases[k - 1] / TEST[k - 1]
            # phases 1 and 2 split whole iterations: ceil(its / P) rounds up by < 1 in 594
            check(close(got, want, 2e-3), f"Seismic data set {d}, phase {k}: {got:.6g} x the test set = Table 2's "
                  f"{phases[k - 1]} / {TEST[k - 1]} (to whole iterations)")
    check(close(pamc.T(m, dataset=1), 28.699), "Seismic test set, P = 16: 28.699 s (Table 3 less phase 1's 0.470 s)")
    prev = 0
    for d in range(1, 7):
        t = pamc.T(m, dataset=d, P=2048)
        check(t > prev, f"Seismic data set {d} at P = 2048: {t:.4g} s, more than the smaller set")
        prev = t
    c2, c4 = pamc.T(m, "comm_2", P=2), pamc.T(m, "comm_4", P=2)
    check(c4 < c2, f"section 3.3: phase 4's communication starts lower (P = 2: {c4:.3g} s < {c2:.3g} s)")
    for P in (16, 64, 256, 1024, 2048):
        c2, c4 = pamc.T(m, "comm_2", P=P), pamc.T(m, "comm_4", P=P)
        check(c4 > c2, f"section 3.3: ... then increases more quickly (P = {P}: {c4:.4g} s > {c2:.4g} s)")


def heatmap(pamc):
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "h.png")
        r = pamc.run("sweep", "samples/seismic.pam", "--sweep", "P=1:64:x4", "--sweep", "dataset=1:3",
                     "--target", "comm_4", "--heatmap", "--plot", png)
        ok = r.returncode == 0 and os.path.exists(png)
        check(ok and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n", f"sweep --heatmap draws a PNG {r.stderr}")
        check(r.stdout.startswith("P,dataset,comm_4\n1,1,0\n"), "sweep --heatmap still prints the CSV")
        r = pamc.run("sweep", "samples/seismic.pam", "--sweep", "P=1:64:x4", "--heatmap", "--plot", png + "2.png")
        check(r.returncode == 2 and "--heatmap draws with --plot over exactly two --sweep parameters" in r.stderr
              and not os.path.exists(png + "2.png"), f"one swept parameter: usage error 2 ({r.returncode}: {r.stderr.strip()})")
        r = pamc.run("sweep", "samples/seismic.pam", "--sweep", "P=1:4", "--sweep", "dataset=1:2", "--heatmap")
        check(r.returncode == 2 and "no --plot" in r.stderr, "--heatmap without --plot: usage error 2")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    args = ap.parse_args()
    pamc = Pamc(os.path.abspath(args.pamc))
    for step in (page, seed002, seed000, seed004, heatmap):
        try:
            step(pamc)
        except (RuntimeError, KeyError, ValueError) as e:
            check(False, f"{step.__name__}: {e}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all samples-doc checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
