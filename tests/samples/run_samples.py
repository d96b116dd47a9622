#!/usr/bin/env python3
"""The samples of seed 002 (samples/*.pam): closed forms pinned by meaning, the seed's
design rankings, and no residual reductions.

  python3 tests/samples/run_samples.py --pamc build/pamc     (from the repository root)

1. Meaning: at many parameter points (machine constants drawn as small integers, so the
   arithmetic is exact), `pamc eval SAMPLE` (the closed form) must equal the brute force:
   the time-domain model (`pamc compile SAMPLE --stage time --all`, itself a Pamela model)
   with every `numeric parameter X` turned into `numeric X = value`, evaluated by
   `pamc eval --brute-force`, which unrolls every reduction (plain `pamc eval` would
   simplify the instance first).
2. Rankings (seed 002, section 4): GAUSS block beats cyclic; PSRS improved beats original
   at large P; ADI j-axis beats i-axis (see samples/adi_j.pam for why); MATMUL time falls
   with P for N = 256, 512, 1024. Machine constants: the defaults of machines/das.pam.
3. Residual reductions: `pamc compile SAMPLE --stats` must say `residual reductions: 0`.
   Samples in EXPECTED_RESIDUAL are expected to fail that check until the simplifier's
   rules land (shrink the list as they do; a listed sample that reaches 0 is reported so
   the list can shrink, and does not fail the run).
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

# Samples whose cost model still holds reductions, and the rules they wait for.
# Shrink this list as the simplifier learns them.
EXPECTED_RESIDUAL = {}

SAMPLES = ["mrm", "matmul", "adi_i", "adi_j", "gauss_block", "gauss_cyclic",
           "psrs_original", "psrs_improved"]

# Parameter points for the meaning check: (N, P) pairs with P dividing N (block models
# need integer block sizes N / P) and small enough for brute force.
NP_POINTS = [(1, 1), (2, 1), (2, 2), (4, 1), (4, 2), (4, 4), (6, 2), (6, 3), (8, 2),
             (8, 4), (8, 8), (9, 3), (12, 4), (12, 6), (16, 4), (16, 8), (16, 16), (20, 5)]
MACHINE_DRAWS = 2  # machine-constant draws per (N, P)

failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg)


def run(pamc, *args, check=True):
    r = subprocess.run([pamc, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"pamc {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r


def eval_T(pamc, path, binds, target="T_main", brute=False):
    args = ["eval", path, "--target", target] + (["--brute-force"] if brute else ["--closed-form"])
    for k, v in binds.items():
        args += ["-D", f"{k}={v}"]
    out = run(pamc, *args).stdout
    m = re.search(rf"numeric {target} = (\S+)", out)
    if not m:
        raise RuntimeError(f"no {target} in: {out}")
    return float(m.group(1))


PARAM_RE = re.compile(r"^numeric parameter (\w+)(.*)$")


def parameters(pamc, path):
    """(name, default or None) of each parameter of the time-domain model, in order."""
    out = run(pamc, "compile", path, "--stage", "time").stdout
    params = []
    for line in out.splitlines():
        m = PARAM_RE.match(line)
        if m:
            d = re.match(r"\s*=\s*([^<>%]+?)\s*(?:[<>]=?.*)?$", m.group(2))
            params.append((m.group(1), d.group(1) if d else None))
    return params, out


def instantiate(time_model, binds):
    """The time-domain model with parameters replaced by numeric equations."""
    lines = []
    for line in time_model.splitlines():
        m = PARAM_RE.match(line)
        if m:
            lines.append(f"numeric {m.group(1)} = {binds[m.group(1)]}")
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def close(a, b):
    return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))


def check_meaning(pamc, name, rng):
    path = f"samples/{name}.pam"
    params, _ = parameters(pamc, path)
    time_model = run(pamc, "compile", path, "--stage", "time", "--all").stdout
    n = 0
    with tempfile.TemporaryDirectory() as tmp:
        brute = os.path.join(tmp, f"{name}_time.pam")
        for N, P in NP_POINTS:
            for _ in range(MACHINE_DRAWS):
                binds = {}
                for pname, _default in params:
                    if pname == "N":
                        binds[pname] = N
                    elif pname == "P":
                        binds[pname] = P
                    else:
                        binds[pname] = rng.randint(1, 20)
                try:
                    closed = eval_T(pamc, path, binds)
                except RuntimeError as e:
                    if "violates its declared bound" in str(e):
                        break  # e.g. ADI needs N >= 2: skip the point
                    raise
                with open(brute, "w") as f:
                    f.write(instantiate(time_model, binds))
                exact = eval_T(pamc, brute, {}, brute=True)
                n += 1
                if not close(closed, exact):
                    fail(f"{name} at {binds}: closed form {closed!r} != brute force {exact!r}")
                    return n
    return n


def residual(pamc, name):
    err = run(pamc, "compile", f"samples/{name}.pam", "--stats").stderr
    m = re.search(r"^residual reductions: (\d+)", err, re.M)
    return int(m.group(1)) if m else None


def T(pamc, name, **binds):
    return eval_T(pamc, f"samples/{name}.pam", binds)


def check_rankings(pamc):
    # Sizes: the seed's, or a reduced one while the models still carry reductions (brute
    # evaluation of a residual reduction at the seed's size takes tens of seconds).
    def size(seed, reduced, *names):
        return reduced if any(n in EXPECTED_RESIDUAL for n in names) else seed

    # Two variants of one program: the same at P = 1, the better one faster for P >= 2.
    def better_variant(label, better, worse, N, Ps):
        for P in Ps:
            b, w = T(pamc, better, N=N, P=P), T(pamc, worse, N=N, P=P)
            print(f"  {label} N={N} P={P}: {better} {b:.6g} s, {worse} {w:.6g} s")
            if P == 1 and not close(b, w):
                fail(f"{label} P=1: {better} {b} and {worse} {w} should be the same program")
            if P >= 2 and not b < w:
                fail(f"{label} N={N} P={P}: {better} {b} should beat {worse} {w}")

    # GAUSS: block beats cyclic (N = 512 in the seed) for P >= 2; equal at P = 1.
    better_variant("GAUSS", "gauss_block", "gauss_cyclic", size(512, 128, "gauss_block", "gauss_cyclic"),
                   (1, 2, 4, 8, 16, 32, 64))

    # PSRS: improved beats original for P >= 2 (N = 819200 in the seed); equal at P = 1.
    N = size(819200, 51200, "psrs_original", "psrs_improved")
    better_variant("PSRS", "psrs_improved", "psrs_original", N, (1, 2, 8, 32, 64))
    if not T(pamc, "psrs_original", N=N, P=64) > 10 * T(pamc, "psrs_improved", N=N, P=64):
        fail("PSRS P=64: the original's O(NP) bottleneck should cost over 10x the improved")

    # ADI (N = 1024): the j-axis version speeds up, the i-axis version does not.
    N = size(1024, 256, "adi_i", "adi_j")
    ti1, tj1 = T(pamc, "adi_i", N=N, P=1), T(pamc, "adi_j", N=N, P=1)
    for P in (2, 4, 8, 16, 32, 64):
        ti, tj = T(pamc, "adi_i", N=N, P=P), T(pamc, "adi_j", N=N, P=P)
        print(f"  ADI N={N} P={P}: speedup i-axis {ti1 / ti:.3g}, j-axis {tj1 / tj:.3g}")
        if not tj < ti:
            fail(f"ADI N={N} P={P}: j-axis {tj} should beat i-axis {ti}")
        if not ti1 / ti <= 1:
            fail(f"ADI N={N} P={P}: the i-axis version should not speed up ({ti1 / ti})")
    if not tj1 / T(pamc, "adi_j", N=N, P=64) > 8:
        fail("ADI: the j-axis version should speed up well (> 8 at P = 64)")

    # MATMUL: time falls with P for N = 256, 512, 1024.
    for N in (256, 512, 1024):
        prev = None
        for P in (1, 2, 4, 8, 16, 32, 64):
            t = T(pamc, "matmul", N=N, P=P)
            if prev is not None and not t < prev:
                fail(f"MATMUL N={N}: time should fall from P={P // 2} ({prev}) to P={P} ({t})")
            prev = t
        print(f"  MATMUL N={N}: P=1 {T(pamc, 'matmul', N=N, P=1):.6g} s ... P=64 {prev:.6g} s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    rng = random.Random(args.seed)

    print("meaning: closed form vs brute-force time-domain model")
    for name in SAMPLES:
        n = check_meaning(pamc, name, rng)
        print(f"  {name}: {n} points")

    print("rankings (seed 002, section 4)")
    check_rankings(pamc)

    print("residual reductions (pamc compile --stats)")
    for name in SAMPLES:
        r = residual(pamc, name)
        expected = name in EXPECTED_RESIDUAL
        if r is None:
            fail(f"{name}: no 'residual reductions' line from --stats")
        elif r == 0 and expected:
            print(f"  {name}: 0 -- now closed: remove it from EXPECTED_RESIDUAL")
        elif r == 0:
            print(f"  {name}: 0")
        elif expected:
            print(f"  {name}: {r} (expected to fail: {EXPECTED_RESIDUAL[name]})")
        else:
            fail(f"{name}: {r} residual reductions (expected 0)")

    if failures:
        print(f"{len(failures)} sample check(s) failed")
        return 1
    print("all sample checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
