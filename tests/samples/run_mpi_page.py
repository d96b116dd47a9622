#!/usr/bin/env python3
"""samples/mpi's page (docs/mpi.md) from the checked-in measurements; CI does not measure.

  python3 tests/samples/run_mpi_page.py --pamc build/pamc     (from the repository root)

1. Recovery: microbenchmark and kernel times made by the models themselves (pamc eval and
   pamc simulate at known constants) go through the script's own fit path (five pamc fits,
   each fixing the constants found before it); it must find every constant again
   (relative 1e-6) and predict every kernel run exactly.
2. The page: docs/mpi.md and samples/mpi/machine.pam are what samples/mpi/measure.py
   writes from samples/mpi/microbench.csv and measurements.csv (`--check`).
3. The figure of merit: on the held-out runs (sizes and rank counts no fit saw), the
   simulated prediction's mean absolute error is at most 10 % and its worst at most 25 %,
   for each kernel.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "samples", "mpi"))
import measure  # noqa: E402
import mpi_models  # noqa: E402

failures = []


def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok:
        failures.append(msg)


TRUTH = {"ts0": 3e-7, "t_yield": 9e-7, "tb_eager": 4e-10, "ts_rndv": 2e-6, "tb": 1.1e-10,
         "tc": 2e-10, "t_round": 2.5e-6, "tb_a2a": 1.5e-10, "t_op": 1.6e-9, "f_over": 0.4,
         "t_point": 2.3e-9, "t_point_mem": 8e-10, "cache_jacobi": 12e6,
         "t_copy": 2.5e-9, "t_copy_mem": 2e-9, "cache_transpose": 40e6}


def model_time(pamc, name, inputs, simulate=False):
    args = mpi_models.defines({**inputs, **{k: repr(v) for k, v in TRUTH.items()}, "cores": 2})
    if simulate:
        out = mpi_models.run([pamc, "simulate", mpi_models.MODEL[name]] + args)
        return float(re.search(r"^T_main = (\S+)", out, re.M).group(1))
    out = mpi_models.run([pamc, "eval", mpi_models.MODEL[name], "--target", "T_main"] + args)
    return float(re.search(r"numeric T_main = (\S+)", out).group(1))


def recovery(pamc, work):
    micro = [{"kind": k, "size": b, "ranks": p, "load": 0.0,
              "seconds": model_time(pamc, k, {"W" if k == "steps" else "n": b, "P": p})}
             for k, b, p in measure.MICRO_PLAN]
    kernels = []
    for kernel, n, p, role in measure.kernel_plan():
        s = measure.sweeps(n) if kernel == "jacobi" else 0
        inputs = {"N": n, "P": p, **({"S": s} if kernel == "jacobi" else {})}
        kernels.append({"kernel": kernel, "N": n, "S": s, "ranks": p, "role": role, "load": 0.0,
                        "seconds": model_time(pamc, kernel, inputs, simulate=True)})
    result = mpi_models.fit_and_predict(pamc, micro, kernels, {"cores": 2, "cpu": "a test", "mpi": "none"},
                                        "now", work, lambda *_: None)
    for name, value in TRUTH.items():
        got = float(result["consts"][name])
        if name.startswith("cache_"):
            # a breakpoint: found between the fit rows' working sets on either side of it
            kernel = name[len("cache_"):]
            sets = sorted({mpi_models.WORKING_SET[kernel](n) for k, n, p, role in measure.kernel_plan()
                           if k == kernel and role == "fit"})
            below, above = max(x for x in sets if x < value), min(x for x in sets if x > value)
            check(below < got < above, f"recovery: {name} {got:.0f} between {below} and {above} (made with {value:.0f})")
        else:
            check(abs(got - value) <= 1e-6 * value, f"recovery: {name} = {got:.9g} (made with {value})")
    worst = max(abs(r["error"]) for r in result["table"])
    check(worst < 1e-6, f"recovery: every kernel run predicted exactly by pamc simulate (worst {worst:.2g} %)")


def page(pamc, work):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "samples", "mpi", "measure.py"),
                        "--pamc", pamc, "--check", "--work", work], capture_output=True, text=True)
    check(r.returncode == 0, "docs/mpi.md and machine.pam are what the checked-in CSVs give "
          f"({r.stderr.strip()[-400:]})")
    for kernel in ("jacobi", "transpose"):
        m = re.search(rf"^{kernel}: held-out mean absolute error (\S+) %, worst (\S+) %$", r.stdout, re.M)
        check(m is not None, f"{kernel}: the script states its held-out error")
        if m:
            mean, worst = float(m.group(1)), float(m.group(2))
            check(mean <= mpi_models.TARGET_MEAN and worst <= mpi_models.TARGET_WORST,
                  f"{kernel}: held-out mean absolute error {mean} % (<= {mpi_models.TARGET_MEAN:.0f}), "
                  f"worst {worst} % (<= {mpi_models.TARGET_WORST:.0f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    with tempfile.TemporaryDirectory() as tmp:
        for name, step in (("recovery", recovery), ("page", page)):
            d = os.path.join(tmp, name)
            os.makedirs(d)
            try:
                step(pamc, d)
            except (mpi_models.Failure, measure.Failure) as e:
                check(False, f"{name}: {e}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all mpi page checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
