#!/usr/bin/env python3
"""Draws docs/img/mrm_error.png: the error of the MRM's compiled bound against simulation
(exponential times, fixed seed) as P crosses saturation, for the makespan and the mean
client finish time, with mean value analysis (MVA) as the exact reference for the mean.

    python3 tests/bench/mrm_error_plot.py [--pamc build/pamc] [--n 2000] [--runs 3]

Not a test: it takes a minute or two. The numbers behind docs/simulation.md's plot."""
import argparse, json, os, subprocess, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def mva(P, Z=10.0, S=0.1):
    """Exact MVA of the closed network: P customers, think Z, one FCFS server S.
    Returns the cycle time per iteration, P / X(P)."""
    q = 0.0
    for n in range(1, P + 1):
        r = S * (1 + q)
        x = n / (Z + r)
        q = x * r
    return P / x


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default=os.path.join(ROOT, "build", "pamc"))
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "img", "mrm_error.png"))
    a = ap.parse_args()
    mrm = os.path.join(ROOT, "samples", "mrm.pam")
    ps = [1, 10, 25, 50, 70, 80, 90, 95, 100, 105, 110, 120, 130, 150, 200, 300, 500, 1000]
    rows = []
    for P in ps:
        d = ["-D", f"P={P}", "-D", f"N={a.n}"]
        bound = json.loads(subprocess.run([a.pamc, "eval", mrm, *d, "--json"], capture_output=True,
                                          text=True, check=True).stdout)["T_main"]
        sim = json.loads(subprocess.run([a.pamc, "simulate", mrm, *d, "--json", "--dist", "exp", "--seed", "1",
                                         "--runs", str(a.runs)], capture_output=True, text=True, check=True).stdout)
        makespan = sim["T_main"]["mean"]
        finish = sim["mean_finish"]["mean"]
        exact = mva(P) * a.n
        rows.append((P, 100 * (makespan - bound) / makespan, 100 * (finish - bound) / finish,
                     100 * (exact - bound) / exact))
        print("P=%5d  makespan %6.2f%%  mean finish %6.2f%%  MVA %6.2f%%" % rows[-1])
    tmp = tempfile.mkdtemp(prefix="pamc-plot-")
    data = os.path.join(tmp, "err.dat")
    with open(data, "w") as f:
        for r in rows:
            f.write("%d %.4f %.4f %.4f\n" % r)
    script = f"""
set terminal pngcairo size 800,480 font ',11'
set output '{a.out}'
set title 'MRM: error of the compiled bound vs simulation (exponential times, N = {a.n})'
set xlabel 'P (clients)'
set ylabel 'error (simulated - bound) / simulated  [%]'
set logscale x
set grid
set key top right
plot '{data}' using 1:2 with linespoints title 'makespan (last client)', \\
     '{data}' using 1:3 with linespoints title 'mean client finish time', \\
     '{data}' using 1:4 with lines dashtype 2 lw 2 title 'mean value analysis (exact mean)'
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print("wrote", a.out)


if __name__ == "__main__":
    main()
