#!/usr/bin/env python3
"""samples/mpi's page (docs/mpi.md) from the checked-in measurements; CI does not measure.

  python3 tests/samples/run_mpi_page.py --pamc build/pamc     (from the repository root)

1. Recovery: microbenchmark and kernel times made by the models themselves (pamc eval and
   pamc simulate at known constants) go through the script's own fit path (five pamc fits,
   each fixing the constants found before it); it must find every constant again
   (relative 1e-6) and predict every kernel run exactly.
2. The page: docs/mpi.md and samples/mpi/machine.pam are what samples/mpi/measure.py
   writes from samples/mpi/microbench.csv and measurements.csv (`--check`).
   The page states each kernel's held-out error as the script computes it, and says
   "met" exactly when the target holds.
4. With --targets (the CTest test samples: mpi_targets): the figure of merit itself: on
   the held-out runs (sizes and rank counts no fit saw), the simulated prediction's mean
   absolute error is at most 10 % and its worst at most 25 %, for each kernel.
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
         "tc": 2e-10, "t_round": 2.5e-6, "tb_a2a": 1.5e-10, "t_op": 1.6e-9, "f_over": 0.1, "f_halo": 0.4,
         "t_point": 2.3e-9, "t_point_mem": 8e-10, "t_copy": 2.5e-9, "t_copy_mem": 2e-9}
# the cache sizes the models are made with: candidates of the fit's grid, one near 12 MB,
# one near 40 MB, so that the least-squares search can find them exactly
for _kernel, _near in (("jacobi", 12e6), ("transpose", 40e6)):
    _sizes = [n for k, n, p, role in measure.kernel_plan() if k == _kernel and role == "fit"]
    TRUTH["cache_" + _kernel] = min(mpi_models.cache_grid(_kernel, _sizes), key=lambda c: abs(c - _near))


def model_time(pamc, name, inputs, simulate=False):
    args = mpi_models.defines({**inputs, **{k: repr(v) for k, v in TRUTH.items()}, "cores": 2})
    if simulate:
        out = mpi_models.run([pamc, "simulate", mpi_models.MODEL[name]] + args)
        return float(re.search(r"^T_main = (\S+)", out, re.M).group(1))
    out = mpi_models.run([pamc, "eval", mpi_models.MODEL[name], "--target", "T_main"] + args)
    return float(re.search(r"numeric T_main = (\S+)", out).group(1))


def recovery(pamc, work):
    def micro_time(kind, size, ranks):
        if kind in mpi_models.STEPS:
            return model_time(pamc, "steps", {"W": size, "P": ranks, "H": int(kind == "halo_steps")})
        return model_time(pamc, kind, {"n": size, "P": ranks})
    micro = [{"kind": k, "size": b, "ranks": p, "load": 0.0, "seconds": micro_time(k, b, p)}
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
        check(abs(got - value) <= 1e-6 * value, f"recovery: {name} = {got:.9g} (made with {value})")
    worst = max(abs(r["error"]) for r in result["table"])
    check(worst < 1e-6, f"recovery: every kernel run predicted exactly by pamc simulate (worst {worst:.2g} %)")


def held_out(pamc, work):
    """The check run of the script: its exit status and each kernel's (mean, worst)."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "samples", "mpi", "measure.py"),
                        "--pamc", pamc, "--check", "--work", work], capture_output=True, text=True)
    errors = {}
    for kernel in ("jacobi", "transpose"):
        m = re.search(rf"^{kernel}: held-out mean absolute error (\S+) %, worst (\S+) %$", r.stdout, re.M)
        check(m is not None, f"{kernel}: the script states its held-out error")
        if m:
            errors[kernel] = float(m.group(1)), float(m.group(2))
    return r, errors


def meets(mean, worst):
    return mean <= mpi_models.TARGET_MEAN and worst <= mpi_models.TARGET_WORST


def page(pamc, work):
    r, errors = held_out(pamc, work)
    check(r.returncode == 0, "docs/mpi.md and machine.pam are what the checked-in CSVs give "
          f"({r.stderr.strip()[-400:]})")
    with open(os.path.join(ROOT, "docs", "mpi.md")) as f:
        text = f.read()
    for kernel, (mean, worst) in errors.items():
        m = re.search(rf"^\| {kernel} \| \d+ \| (\S+) % \| (\S+) % \| \S+ % \| \S+ % \| (met|NOT met) ", text, re.M)
        check(m is not None and abs(float(m.group(1)) - mean) <= 0.05 and abs(float(m.group(2)) - worst) <= 0.05,
              f"docs/mpi.md states {kernel}'s held-out error as the script computes it ({mean} %, worst {worst} %)")
        if m:
            check((m.group(3) == "met") == meets(mean, worst),
                  f"docs/mpi.md says '{m.group(3)}' for {kernel}, and the target "
                  f"{'holds' if meets(mean, worst) else 'does not hold'}")


def targets(pamc, work):
    _, errors = held_out(pamc, work)
    for kernel, (mean, worst) in errors.items():
        check(meets(mean, worst),
              f"{kernel}: held-out mean absolute error {mean} % (<= {mpi_models.TARGET_MEAN:.0f}), "
              f"worst {worst} % (<= {mpi_models.TARGET_WORST:.0f})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--targets", action="store_true", help="check only the held-out error targets")
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    steps = (("targets", targets),) if args.targets else (("recovery", recovery), ("page", page))
    with tempfile.TemporaryDirectory() as tmp:
        for name, step in steps:
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
