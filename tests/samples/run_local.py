#!/usr/bin/env python3
"""samples/local end to end (scripts/local_measure.py, docs/local.md); CI does not measure
the held-out figures again, it checks them from the checked-in CSV.

  python3 tests/samples/run_local.py --pamc build/pamc     (from the repository root)
  python3 tests/samples/run_local.py --pamc build/pamc --targets

1. Recovery: timings made by the models themselves (pamc simulate at known constants, one
   cache size) are fitted by the script's own fit path (pamc fit of the microbenchmarks,
   then of the kernels with the microbenchmarks' constants fixed, the cache breakpoint
   search); it must find the constants again (relative 1e-6), the breakpoint between the
   right working sets, and predict every held-out row exactly.
2. Quick run: the kernel is built with the system compiler, timed at tiny sizes, fitted,
   predicted and simulated; the page has a row per point and the plot is a PNG. Times are
   not checked, only that every prediction and simulation is a positive number.
3. The page: docs/local.md is what the script writes from the checked-in
   samples/local/measurements.csv (`--check`); it states each kernel's held-out error as
   the script computes it, and says "met" exactly when the target holds.
4. Bad input: the kernel refuses a non-positive size with a message and exit 2.
5. With --targets (the CTest test samples: local_targets): the figure of merit itself:
   on the held-out rows, pamc simulate's mean absolute error is at most 10 % and its
   worst at most 25 %, for each kernel.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import local_measure as lm  # noqa: E402
import local_page  # noqa: E402

failures = []


def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok:
        failures.append(msg)


def recovery(pamc, work):
    # t_point_mem such that two threads beyond the cache are bound by the shared memory
    # and one thread by its core: both pieces of the stencil's max are fitted through
    truth = {"spawn": {"t_thread": 4e-5},
             "stream": {"t_copy": 1.4e-9, "t_byte": 5e-11, "t_thread": 4e-5},
             "matmul": {"t_fma": 7e-10, "t_thread": 4e-5},  # the spawn runs' t_thread
             "stencil": {"t_point_own": 5.5e-10, "t_point": 7e-10, "t_point_mem": 6e-10, "t_sync": 3e-6,
                         "t_thread": 4e-5, "t_byte": 5e-11, "own_bytes": 1.5 * 2 ** 20, "cache_bytes": 10 * 2 ** 20}}
    rows = []
    for kernel, n, t, role in lm.FULL_PLAN:
        s = lm.sweeps(kernel, n, "full")
        row = {"kernel": kernel, "N": n, "T": t, "S": s, "role": role,
               "min": 0, "max": 0, "repeats": 1, "load": 0, "cpu": 1}
        consts = {k: repr(v) for k, v in truth[kernel].items()}
        _, row["seconds"] = lm.evaluate(pamc, kernel, row, 2, consts)
        rows.append(row)
    fits, consts, table = lm.predict(pamc, rows, 2, work, lambda *_: None)
    for kernel, want in truth.items():
        for name, value in want.items():
            got = float(consts[kernel][name])
            if name in ("own_bytes", "cache_bytes"):
                # the breakpoints lie between the working sets on one core of N = 256 on one
                # thread (1.1 MB) and N = 512 on two (2.1 MB), and between the working sets
                # of N = 512 (4.2 MB) and 1024
                per_core = name == "own_bytes"
                sets = sorted(16 * (n + 2) ** 2 // (min(t, 2) if per_core else 1)
                              for k, n, t, r in lm.FULL_PLAN if k == kernel and r == "fit")
                below = max(x for x in sets if x < value)
                above = min(x for x in sets if x > value)
                check(below < got < above, f"recovery: {name} {got:.0f} between {below} and {above}")
            else:
                check(abs(got - value) <= 1e-6 * value, f"recovery: {kernel} {name} = {got:.9g} (made with {value})")
    worst = max(abs(r["error"]) for r in table)
    check(worst < 1e-6, f"recovery: every row predicted exactly by pamc simulate (worst {worst:.2g} %)")
    closed = max(abs(r["predicted"] - r["simulated"]) / r["simulated"] for r in table if r["T"] <= 2)
    check(closed < 1e-9, f"recovery: pamc eval equals pamc simulate for T <= cores (worst {closed:.2g})")


def quick(pamc, work):
    # Timings on a shared machine can be noisy enough (a new thread waiting a whole time
    # slice for a core) that a fitted constant comes out negative, which no model runs, or
    # that pamc fit cannot separate the unknowns: measure again, at most three times, and
    # then accept pamc fit's located refusal. What is checked is the machinery.
    for attempt in range(1, 4):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "local_measure.py"),
                            "--pamc", pamc, "--quick", "--work", work], capture_output=True, text=True)
        noisy = "a negative time" in r.stderr or "cannot separate" in r.stderr
        if r.returncode == 0 or not noisy:
            break
        print(f"note: attempt {attempt}: the timings were too noisy to fit, measuring again")
    if r.returncode != 0 and noisy:
        located = re.search(r"_fit\.csv(:\d+:\d+)?: error: |(stencil|stream|matmul|spawn)\.pam:\d+:\d+: error: ", r.stderr)
        check(located is not None, "quick run: three noisy measurements, refused with a located pamc diagnostic "
              f"({r.stderr.strip()[-300:]})")
        return
    check(r.returncode == 0, f"quick run exits 0 (got {r.returncode}: {r.stderr.strip()[-400:]})")
    if r.returncode != 0:
        return
    with open(os.path.join(work, "local.md")) as f:
        text = f.read()
    rows = re.findall(r"^\| (spawn|stream|matmul|stencil) \| ([-\d]+) \| (\d+) \| [-\d]+ \| (micro|fit|held-out) \| "
                      r"(\S+) \| \S+ \| (\S+) \| \S+ \| (\S+) \| \S+ \|$", text, re.M)
    check(len(rows) == len(lm.QUICK_PLAN), f"quick page: {len(rows)} rows for {len(lm.QUICK_PLAN)} points")
    check(all(float(x) > 0 for row in rows for x in row[4:]),
          "quick page: every measured, predicted and simulated time is positive")
    check(all(re.search(rf"^\| {k} \| \d+ \| \S+ % \| \S+ % \|", text, re.M) for k in lm.KERNELS),
          "quick page: states each kernel's held-out error")
    with open(os.path.join(work, "local.png"), "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "quick plot: a PNG")


def held_out(pamc, work):
    """The check run of the script: its result and each kernel's (mean, worst)."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "local_measure.py"),
                        "--pamc", pamc, "--check", "--work", work], capture_output=True, text=True)
    errors = {}
    for kernel in lm.KERNELS:
        m = re.search(rf"^{kernel}: held-out mean absolute error (\S+) %, worst (\S+) %$", r.stdout, re.M)
        check(m is not None, f"{kernel}: the script states its held-out error")
        if m:
            errors[kernel] = float(m.group(1)), float(m.group(2))
    return r, errors


def page(pamc, work):
    r, errors = held_out(pamc, work)
    check(r.returncode == 0, "docs/local.md is what samples/local/measurements.csv gives "
          f"({r.stderr.strip()[-300:]})")
    with open(os.path.join(ROOT, "docs", "local.md")) as f:
        text = f.read()
    for kernel, (mean, worst) in errors.items():
        m = re.search(rf"^\| {kernel} \| \d+ \| (\S+) % \| (\S+) % \| \S+ % \| \S+ % \| (met|NOT met) ", text, re.M)
        check(m is not None and abs(float(m.group(1)) - mean) <= 0.05 and abs(float(m.group(2)) - worst) <= 0.05,
              f"docs/local.md states {kernel}'s held-out error as the script computes it ({mean} %, worst {worst} %)")
        if m:
            check((m.group(3) == "met") == local_page.meets(mean, worst),
                  f"docs/local.md says '{m.group(3)}' for {kernel}, and the target "
                  f"{'holds' if local_page.meets(mean, worst) else 'does not hold'}")


def targets(pamc, work):
    _, errors = held_out(pamc, work)
    for kernel, (mean, worst) in errors.items():
        check(local_page.meets(mean, worst),
              f"{kernel}: held-out mean absolute error {mean} % (<= {local_page.TARGET_MEAN:.0f}), "
              f"worst {worst} % (<= {local_page.TARGET_WORST:.0f})")


def bad_input(work):
    exe = lm.build_kernel(os.environ.get("CXX", "c++"), work)
    r = subprocess.run([exe, "matmul", "0", "1", "3"], capture_output=True, text=True)
    check(r.returncode == 2 and "N must be a positive integer, not '0'" in r.stderr,
          f"kernel: N = 0 is refused with exit 2 ({r.returncode}: {r.stderr.strip()})")
    r = subprocess.run([exe, "stream", "-3", "2", "3"], capture_output=True, text=True)
    check(r.returncode == 2 and "N must be a positive integer, not '-3'" in r.stderr,
          f"kernel: a stream of N = -3 is refused with exit 2 ({r.returncode}: {r.stderr.strip()})")
    r = subprocess.run([exe, "fft", "8"], capture_output=True, text=True)
    check(r.returncode == 2 and "usage: local_kernel" in r.stderr, "kernel: an unknown kind prints the usage")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--targets", action="store_true", help="check only the held-out error targets")
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    steps = ((("targets", lambda d: targets(pamc, d)),) if args.targets else
             (("recovery", lambda d: recovery(pamc, d)), ("quick", lambda d: quick(pamc, d)),
              ("page", lambda d: page(pamc, d)), ("bad", bad_input)))
    with tempfile.TemporaryDirectory() as tmp:
        for name, step in steps:
            d = os.path.join(tmp, name)
            os.makedirs(d)
            try:
                step(d)
            except (lm.Failure, local_page.Failure) as e:
                check(False, f"{name}: {e}")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all local checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
