#!/usr/bin/env python3
"""Edge points: `pamc eval --closed-form` and `pamc eval` (the model simplified at the point)
against `pamc eval --brute-force` on the corpus models
(samples/corpus/*.pam, written as users write them: plain `numeric parameter`, no bounds)
over a grid of points where every parameter also takes negative, zero, fractional and huge
values, alone and all at once.

A closed form is applied only where its conditions hold (docs/semantics.md): at any point
where the unsimplified model has a value, eval must give that value. The rules per point:

  both give a value             the values must be equal (exactly, or 1e-9 relative)
  brute force fails, a domain   eval must fail too (any error): a value where the model
  error (division by zero, a    has none is a closed form applied outside its domain
  non-integer bound, ...)
  brute force cannot compute    nothing to compare: brute force ran out of work or the
  it (WorkLimit, ValueTooLarge) value is too large for it; counted as not compared
  both fail                     agreement ("no value" on both sides)

KNOWN_WRONG lists the models that give a wrong value today, each with its reason; the
simplifier's fix removes the entry (the test fails on a listed model that is right
everywhere, so the list cannot go stale, and on any mismatch in a model not listed).

Usage: run_edges.py --pamc build/pamc [--only NAME]... [--models DIR] [-v]
"""
import argparse, glob, os, random, re, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "samples", "corpus")
REL = 1e-9

# The values every parameter takes besides ordinary ones: negative, zero, fractional, huge.
EDGES = ["-3", "-1", "0", "0.5", "2.5", "1", "1000000"]
ORDINARY = ["1", "2", "3", "4", "5", "6", "7", "8", "12"]
ALL_AT_EDGES = 10  # points where every parameter is drawn from EDGES
ORDINARY_POINTS = 6  # points of ordinary values only
BRUTE_MAX_TERMS = 3000
TIMEOUT = 20  # seconds per run: eval must end with a value or a WorkLimit error long before
KNOWN_TIMEOUT = 5  # for a model in KNOWN_WRONG, some of whose points run past any limit
# Brute force cannot compute these (not an error of the model): nothing to compare.
CANNOT_COMPUTE = {"WorkLimit", "ValueTooLarge"}

# Models that give a wrong value today, with why; remove an entry once it is fixed.
KNOWN_WRONG = {
    # A closed count or sum applied where its range is empty (ub < lb - 1): a negative count.
    # A value where the model has none.
    "tree_levels.pam": "a value at L < 0, where the loop bound 2 ^ L - 1 is not an integer",
    # Evaluators, not the simplifier: a workload vector of 1e6 positions takes minutes (quadratic).
    "wavefront.pam": "eval runs past the time limit at N = 1e6 with P = 2.5 or -3 (no value there)",
    "tree_cyclic_levels.pam": "eval runs past the time limit at L = 1e6 (2 ^ (L - d) terms)",
    # A use time below zero that depends on an index: brute force gives a negative max, eval
    # fails with a position error; docs/semantics.md says a time is never below zero.
}


def params_of(path):
    return re.findall(r"^numeric parameter (\w+)\s*$", open(path).read(), re.M)


def points_for(name, params):
    """The grid for one model: ordinary points, each parameter alone at every edge value
    (the others ordinary), and points with every parameter at an edge value."""
    rng = random.Random(name)
    ordinary = lambda: {p: rng.choice(ORDINARY) for p in params}
    pts = [ordinary() for _ in range(ORDINARY_POINTS)]
    for p in params:
        for v in EDGES:
            pt = ordinary()
            pt[p] = v
            pts.append(pt)
    for _ in range(ALL_AT_EDGES if params else 0):
        pts.append({p: rng.choice(EDGES) for p in params})
    seen, out = set(), []
    for pt in pts:
        key = tuple(sorted(pt.items()))
        if key not in seen:
            seen.add(key)
            out.append(pt)
    return out


def number(text):
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError):
        return float(text)


def same(a, b):
    x, y = number(a), number(b)
    if isinstance(x, Fraction) and isinstance(y, Fraction):
        return x == y
    x, y = float(x), float(y)
    if x == y:
        return True
    return abs(x - y) <= REL * max(1.0, abs(x), abs(y))


def run_eval(pamc, path, point, how, timeout):
    """how: "closed" (the closed form for every value), "point" (simplified at the point) or
    "brute" (unrolled)."""
    cmd = [pamc, "eval", path, "--target", "T_main"]
    for k, v in point.items():
        cmd += ["-D", f"{k}={v}"]
    if how == "closed":
        cmd += ["--closed-form"]
    if how == "brute":
        # Brute force's vector of workloads grows quadratically with the positions it holds
        # (1e4 positions take 17 s): a huge count is left uncompared (WorkLimit).
        cmd += ["--brute-force", "--max-terms", str(BRUTE_MAX_TERMS)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return ("error", "Timeout", f"still running after {timeout} s")
    if p.returncode == 0:
        m = re.search(r"T_main = (\S+)", p.stdout)
        return ("value", m.group(1)) if m else ("error", "Unparsed", p.stdout)
    errors = [l for l in p.stderr.splitlines() if " error: " in l or l.startswith("pamc: ")]
    first = errors[0] if errors else p.stderr.strip() or f"exit {p.returncode}"
    m = re.search(r"\[(\w+)\]\s*$", first)
    kind = m.group(1) if m and p.returncode == 1 else ("Crash" if p.returncode != 1 else "Unknown")
    return ("error", kind, first)


def judge(fast, brute, name="eval"):
    """'agree', 'not compared' or a mismatch description."""
    for side, r in ((name, fast), ("brute force", brute)):
        if r[0] == "error" and r[1] in ("Timeout", "Crash", "Unknown", "Unparsed"):
            return f"{side}: {r[2]}"
    if brute[0] == "value":
        if fast[0] == "value":
            return "agree" if same(fast[1], brute[1]) else f"{name} {fast[1]}, brute force {brute[1]}"
        return f"{name} fails ({fast[2]}), brute force {brute[1]}"
    if brute[1] in CANNOT_COMPUTE:
        return "not compared"
    if fast[0] == "value":
        return f"{name} {fast[1]}, brute force has no value ({brute[1]}: {brute[2]})"
    return "agree"


def check_model(pamc, path):
    name = os.path.basename(path)
    params = params_of(path)
    rows = []
    timeout = KNOWN_TIMEOUT if name in KNOWN_WRONG else TIMEOUT
    for pt in points_for(name, params):
        brute = run_eval(pamc, path, pt, "brute", timeout)
        closed = run_eval(pamc, path, pt, "closed", timeout)
        verdict = judge(closed, brute, "eval --closed-form")
        if verdict in ("agree", "not compared"):
            point = run_eval(pamc, path, pt, "point", timeout)
            if judge(point, brute, "eval") not in ("agree", "not compared"):
                verdict, closed = judge(point, brute, "eval"), point
        rows.append((pt, verdict, closed, brute))
    return name, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--models", default=CORPUS, help="folder of models (default samples/corpus)")
    ap.add_argument("--only", action="append", default=[], help="check only this model (file name)")
    ap.add_argument("-v", action="store_true", help="print every point")
    a = ap.parse_args()
    paths = sorted(glob.glob(os.path.join(a.models, "*.pam")))
    if a.only:
        paths = [p for p in paths if os.path.basename(p) in a.only]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda p: check_model(a.pamc, p), paths))
    failures, compared, skipped, agree_none, known_seen = [], 0, 0, 0, 0
    for name, rows in results:
        bad = [(pt, verdict) for pt, verdict, _, _ in rows if verdict not in ("agree", "not compared")]
        for pt, verdict, fast, brute in rows:
            if verdict == "not compared":
                skipped += 1
            else:
                compared += 1
                agree_none += verdict == "agree" and fast[0] == "error"
            if a.v:
                print(f"  {name} {pt}: {verdict}")
        at = lambda pt: " ".join(f"{k}={v}" for k, v in pt.items())
        if name in KNOWN_WRONG:
            if bad:
                known_seen += 1
                print(f"known wrong: {name} ({KNOWN_WRONG[name]}): {len(bad)} points, e.g. {at(bad[0][0])}: {bad[0][1]}")
            else:
                failures.append(name)
                print(f"FAIL {name}: listed in KNOWN_WRONG but right at every point now: remove the entry")
            continue
        for pt, verdict in bad:
            failures.append(name)
            print(f"FAIL {name} at {at(pt)}: {verdict}")
    print(f"edge points: {len(results)} models, {compared} points compared ({agree_none} without a value on both "
          f"sides), {skipped} where brute force cannot compute; {known_seen} known-wrong models still wrong")
    print(f"{len(results) - len(set(failures))} passed, {len(set(failures))} failed")
    return 1 if failures or not results else 0


if __name__ == "__main__":
    sys.exit(main())
