#!/usr/bin/env python3
"""Property test: the compiled bound against the simulator (SPEC sections 3 and 5).

Random, seeded Pamela models are evaluated with `pamc eval` (the compiled bound T_L) and
simulated with `pamc simulate --json` at several parameter points each. Four classes:

  contended    predicate conditions only (0/1 comparisons), uses on a few shared
               resources: simulated >= bound (relative 1e-9), every run.
  uncontended  predicate conditions only, and no resource is ever requested by two
               activities at once, by construction: every static `use` site owns a
               disjoint block of resource indices and its index is an injective
               function of the enclosing `par` indices (helper calls get the index as
               an argument). Then simulated == bound (relative 1e-9).
  prob         as contended, plus `if` conditions that are probabilities: the mean
               over R runs must not fall below the bound by more than Z standard
               errors (E[sim] >= bound; see TOLERANCE below).
  seqprob      probabilistic conditions, uses, `seq` loops and `;` only (no `par`,
               no `||`): T is linear in the branch probabilities, so E[sim] == bound;
               the mean must lie within Z standard errors of the bound on either side.

Many processes go into one file (every top-level process is a "model": `pamc eval`
prints all top-level T_, `pamc simulate` simulates each), so the pamc start-up cost is
paid once per file and parameter point, not once per model.

TOLERANCE (prob, seqprob). Each run is an independent draw of the makespan, so by the
central limit theorem the mean of R = 200 runs is within Z = 4.5 standard errors of the
expectation except with probability ~3.4e-6 (one side); over the ~1200 such checks made
here the chance of a false alarm is < 1%, and since everything is seeded a failure
reproduces exactly. The standard error is the sample std / sqrt(R), plus a 1e-9 relative
floor. The sample std is only trustworthy if every outcome that matters is actually
drawn: a rare branch with a large duration that no run drew gives a mean below the
expectation and a small std (seen with nested `if (0.2) if (1/(P+1)) ...`: probability
1/150, never drawn in 200 runs). So the generator nests probabilistic conditions only
while the least probability of any path of draws stays >= MIN_REACH = 0.1: an outcome
that can happen is then missing from all 200 runs with probability <= 0.9^200 < 1e-9.

EMPTY_PAR_NOTE. `par`, `seq` and reduction ranges may be empty at some parameter points.
This test found that the bound of an empty `par` was an evaluation error instead of 0
(fixed in 8294568; run_empty_par.py is its regression test). NONEMPTY_PAR = True
restores the workaround (non-empty `par` ranges only) for binaries older than that fix.

Usage: run_sim_property.py --pamc build/pamc [--seed S] [--files F] [--keep DIR]
"""
import argparse, json, math, os, random, shutil, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

PROCS_PER_FILE = 10
RUNS = 200
Z = 4.5
REL = 1e-9
MIN_REACH = 0.1
NONEMPTY_PAR = False  # True: generate only non-empty par ranges (EMPTY_PAR_NOTE)
RADIX = 8  # par index values are in [0, RADIX - 1] at every parameter point below

# Parameter points: integers so every loop bound is an integer; all values < RADIX.
POINTS = [
    {"N": 0, "P": 1, "K": 3},
    {"N": 1, "P": 2, "K": 0},
    {"N": 3, "P": 1, "K": 2},
    {"N": 2, "P": 3, "K": 3},
    {"N": 4, "P": 4, "K": 1},
    {"N": 5, "P": 2, "K": 3},
    {"N": 3, "P": 5, "K": 2},
]
N_POINTS = 3


class Gen:
    """Generates one file of PROCS_PER_FILE top-level processes of a class."""

    def __init__(self, rng, cls):
        self.rng = rng
        self.cls = cls
        self.nidx = 0
        self.next_base = 100  # uncontended: next free block of resource indices
        self.reach = 1.0  # least probability of reaching the current point (prob classes)

    def r(self, lo, hi):
        return self.rng.randint(lo, hi)

    def pick(self, xs):
        return xs[self.rng.randrange(len(xs))]

    def fresh(self):
        self.nidx += 1
        return f"i{self.nidx}"

    # --- numeric expressions -------------------------------------------------------
    def var(self, scope):
        names = [s[0] for s in scope]
        if names and self.r(0, 2):
            return self.pick(names)
        return self.pick(["N", "P", "K"])

    def pred(self, scope, depth=2):
        v, w = self.var(scope), self.var(scope)
        k = self.r(0, 9 if depth > 0 else 5)
        if k == 0: return f"{v} mod 2 == 0"
        if k == 1: return f"{v} < {w}"
        if k == 2: return f"{v} >= {self.r(1, 3)}"
        if k == 3: return f"{v} != {w}"
        if k == 4: return f"{v} <= {w} + 1"
        if k == 5: return f"({v} + {w}) mod 3 == 1"
        if k == 6: return f"not ({self.pred(scope, depth - 1)})"
        if k == 7: return f"({self.pred(scope, depth - 1)}) and ({self.pred(scope, depth - 1)})"
        if k == 8: return f"({self.pred(scope, depth - 1)}) or ({self.pred(scope, depth - 1)})"
        return f"{v} == {w}"

    # Each probability template with q: the least non-zero value of min(c, 1 - c) it can
    # take at the parameter points (P in 1..5, N in 0..5), i.e. the least probability of
    # an outcome that can happen at all.
    def prob(self, scope):
        k = self.r(0, 6)
        if k == 0: return self.pick([("0.5", 0.5), ("0.25", 0.25), ("0.75", 0.25), ("0.3", 0.3), ("1/3", 1 / 3)])
        if k == 1: return "1 / (P + 1)", 1 / 6
        if k == 2: return f"0.5 * ({self.pred(scope, 1)})", 0.5  # 0 or 0.5
        if k == 3: return f"({self.pred(scope, 1)}) or 0.4", 0.4  # 0.4 or 1
        if k == 4: return f"0.6 and not ({self.pred(scope, 1)})", 0.4  # 0.6 or 0
        if k == 5: return "(N + 1) / (N + 2)", 1 / 7
        return self.pick([("0.2", 0.2), ("0.8", 0.2), ("2/3", 1 / 3)])

    def cond(self, scope):
        """A condition and the least probability of either outcome (1 for predicates).
        Probabilistic conditions are nested only while every path of draws keeps a
        probability >= MIN_REACH (see TOLERANCE)."""
        if self.cls in ("prob", "seqprob") and self.r(0, 2) > 0:
            c, q = self.prob(scope)
            if self.reach * q >= MIN_REACH:
                return c, q
        return self.pred(scope), 1.0

    def dur(self, scope, depth=2):
        """A duration: >= 0 for every index value >= 0 and parameter value >= 0."""
        v, w = self.var(scope), self.var(scope)
        k = self.r(0, 15 if depth > 0 else 9)
        if k == 0: return self.pick(["1", "2", "0.5", "3", "0.1", "10", "0"])
        if k == 1: return v
        if k == 2: return f"{v} + 1"
        if k == 3: return f"0.5 * {v} + 0.25"
        if k == 4: return f"({v} mod 3) + 1"
        if k == 5: return f"{v} * {w}"
        if k == 6: return f"max({v}, 2)"
        if k == 7: return f"min({v}, {w}) + 0.125"
        if k == 8: return f"ceil({v} / 2)"
        if k == 9: return f"{v} div 2 + 1"
        if k == 10: return f"sqrt({v} + 1)"
        if k == 11: return f"(if ({self.pred(scope, 1)}) ({self.dur(scope, depth - 1)}) else ({self.dur(scope, depth - 1)}))"
        if k == 12: j = self.fresh(); return f"sum ({j} = 1, {v}) {{ {j} + 1 }}"
        if k == 13: return f"({self.dur(scope, depth - 1)}) + ({self.dur(scope, depth - 1)})"
        if k == 14: return f"({v} + 1) ^ 2 / 4"
        return f"max ({self.fresh()} = 0, {v}) {{ {self.dur(scope, 0)} }}"

    def rng_bounds(self, scope, nonempty=False):
        if nonempty:  # see EMPTY_PAR_NOTE
            k = self.r(0, 4)
            if k == 0: return "1", "N + 1"
            if k == 1: return "0", "K"
            if k == 2: return "1", str(self.r(1, 3))
            if k == 3: return "1", "P"
            if scope: return "0", scope[-1][0]  # triangular, values <= the outer index
            return "2", "N + 2"
        k = self.r(0, 5)
        if k == 0: return "1", "N"
        if k == 1: return "0", "K - 1" if self.cls != "uncontended" else "K"
        if k == 2: return "1", str(self.r(0, 3))
        if k == 3: return "1", "P"
        if k == 4:
            if scope: return scope[-1][0], "N"  # triangular
            return "2", "N + 1"
        return "0", "P div 2"

    # --- resources -----------------------------------------------------------------
    def uncontended_index(self, scope, span):
        """A fresh block of indices, addressed injectively by the enclosing par indices."""
        pars = [s[0] for s in scope if s[1] == "par"]
        base = self.next_base
        self.next_base += RADIX ** len(pars) * span + 1
        terms = [str(base)] + [f"{p}" if i == 0 else f"{RADIX ** i} * {p}" for i, p in enumerate(pars)]
        return " + ".join(terms)

    def use(self, scope):
        d = self.dur(scope)
        if self.cls == "uncontended":
            k = self.r(0, 3)
            if k == 0:
                return f"work({d}, {self.uncontended_index(scope, 1)})"
            return f"use(fcfs({self.uncontended_index(scope, 1)}, {self.r(1, 3)}), {d})"
        k = self.r(0, 5)
        if k == 0: return f"work({d})"
        if k == 1: return f"use(cpu({self.var(scope)} mod 3), {d})"
        return f"use({self.pick(['r0', 'r1', 'r2', 'r0'])}, {d})"

    # --- processes -----------------------------------------------------------------
    def process(self, depth, scope):
        if depth <= 0 or self.r(0, 6) == 0:
            return f"delay({self.dur(scope)})" if self.r(0, 2) == 0 else self.use(scope)
        d = depth - 1
        seq_only = self.cls == "seqprob"
        k = self.r(0, 9)
        if k <= 1:
            return f"{{ {self.process(d, scope)} ; {self.process(d, scope)} }}"
        if k <= 3 and not seq_only:
            return f"{{ {self.process(d, scope)} || {self.process(d, scope)} }}"
        if k <= 5 or (k <= 3 and seq_only):
            j = self.fresh()
            lo, hi = self.rng_bounds(scope)
            return f"seq ({j} = {lo}, {hi}) {{ {self.process(d, scope + [(j, 'seq')])} }}"
        if k <= 7 and not seq_only:
            j = self.fresh()
            lo, hi = self.rng_bounds(scope, nonempty=NONEMPTY_PAR)
            return f"par ({j} = {lo}, {hi}) {{ {self.process(d, scope + [(j, 'par')])} }}"
        c, q = self.cond(scope)
        saved = self.reach
        self.reach *= q
        if self.r(0, 1):
            body = f"if ({c}) {self.process(d, scope)}"
        else:
            body = f"if ({c}) {self.process(d, scope)} else {self.process(d, scope)}"
        self.reach = saved
        return body

    def file(self):
        out = [f"% generated by tests/property/run_sim_property.py (class {self.cls})",
               "numeric parameter N", "numeric parameter P >= 1", "numeric parameter K = 3"]
        if self.cls == "uncontended":
            out.append("process work(x, k) = { delay(0.5) ; use(fcfs(k, 2), x) }")
        else:
            out += ["resource r0 = fcfs(0, 1)", "resource r1 = fcfs(1, 2)",
                    "resource r2 = fcfs(2, 1)", "resource cpu(p) = fcfs(p + 10, 1)",
                    "process work(x) = { delay(1) ; use(r0, x) }"]
        names = []
        for n in range(PROCS_PER_FILE):
            name = f"m{n}"
            names.append(name)
            out.append(f"process {name} = {self.process(self.r(2, 4), [])}")
        return "\n".join(out) + "\n", names


def run(pamc, args):
    p = subprocess.run([pamc, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


# Edge points: N, P and K also negative, zero, fractional or large. The simulator's classes
# need small integer points (RADIX), so there eval is compared with eval --brute-force
# instead: where the unsimplified model has a value eval must give it, where brute force
# reports a domain error eval must give none; brute force out of work is no verdict.
EDGES = [-3, -1, 0, 0.5, 2.5, 100]
EDGE_POINTS = 2
CANNOT_COMPUTE = ("[WorkLimit]", "[ValueTooLarge]")
# Files whose models give a wrong value at an edge point today (a closed count applied where
# its range is empty: N or K < 0). Remove an entry once fixed; a listed file that is right
# at every edge point fails the test, so the list stays true.
KNOWN_EDGE_WRONG = set()


def edge_mismatches(pamc, path, names, seed):
    rng = random.Random(seed * 7 + 3)
    fails = []
    for _ in range(EDGE_POINTS):
        pt = {k: rng.choice(EDGES) for k in ("N", "P", "K")}
        defs = sum((["-D", f"{k}={v}"] for k, v in pt.items()), [])
        rc, out, err = run(pamc, ["eval", path, "--json", *defs])
        brc, bout, berr = run(pamc, ["eval", path, "--json", "--brute-force", "--max-terms", "4000", *defs])
        if brc != 0:
            if any(k in berr for k in CANNOT_COMPUTE):
                continue
            if rc == 0:
                fails.append(f"{path} {pt}: eval gives a value where brute force has none ({berr.strip()[:200]})")
            continue
        if rc != 0:
            fails.append(f"{path} {pt}: eval fails ({err.strip()[:200]}) where brute force has a value")
            continue
        got, want = json.loads(out), json.loads(bout)
        for name in names:
            key = f"T_{name}"
            g, w = got.get(key), want.get(key)
            if g is None or w is None or abs(float(g) - float(w)) > REL * max(1.0, abs(float(w))):
                fails.append(f"{path} {pt} {key}: eval {g!r}, brute force {w!r}")
    return fails


def check_file(pamc, path, cls, names, points, seed):
    """Returns (checks, failures: list of str, strict: checks where simulated > bound,
    random: checks where the runs differed, nonzero: checks with bound > 0)."""
    fails, checks, strict, rand, nonzero = [], 0, 0, 0, 0
    for pt in points:
        defs = sum((["-D", f"{k}={v}"] for k, v in pt.items()), [])
        rc, out, err = run(pamc, ["eval", path, "--json", *defs])
        if rc != 0:
            fails.append(f"{path} {pt}: eval failed: {err.strip()}")
            continue
        bound = json.loads(out)
        sim_args = ["simulate", path, "--json", *defs]
        if cls in ("prob", "seqprob"):
            sim_args += ["--runs", str(RUNS), "--seed", str(seed)]
        rc, out, err = run(pamc, sim_args)
        if rc != 0:
            fails.append(f"{path} {pt}: simulate failed: {err.strip()}")
            continue
        sim = json.loads(out)
        for name in names:
            key = f"T_{name}"
            if key not in bound or key not in sim:
                fails.append(f"{path} {pt}: {key} missing (eval has {key in bound}, simulate has {key in sim})")
                continue
            b, s = float(bound[key]), sim[key]
            mean, std = s["mean"], s["std"]
            tol = REL * max(1.0, abs(b))
            checks += 1
            strict += mean > b + tol
            rand += std > 0
            nonzero += b > 0
            if cls == "contended":
                ok, what = s["min"] >= b - tol, f"simulated {s['min']!r} < bound {b!r}"
            elif cls == "uncontended":
                ok, what = abs(mean - b) <= tol, f"simulated {mean!r} != bound {b!r}"
            else:
                se = std / math.sqrt(RUNS) + tol
                if cls == "prob":
                    ok, what = mean >= b - Z * se, f"mean {mean!r} < bound {b!r} - {Z} * se {se:.3g}"
                else:
                    ok, what = abs(mean - b) <= Z * se, f"mean {mean!r} != bound {b!r} +- {Z} * se {se:.3g}"
            if not ok:
                fails.append(f"{path} {pt} {key}: {what}")
    edge = edge_mismatches(pamc, path, names, seed)
    name = os.path.basename(path)
    if name in KNOWN_EDGE_WRONG:
        if not edge:
            fails.append(f"{name} is right at every edge point now: remove it from KNOWN_EDGE_WRONG")
    else:
        fails += edge
    return checks, fails, strict, rand, nonzero


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--seed", type=int, default=20261121)
    ap.add_argument("--files", type=int, default=20, help="files per class (x%d models)" % PROCS_PER_FILE)
    ap.add_argument("--keep", help="write the generated models here (default: a temp dir, removed on success)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    a = ap.parse_args()
    pamc = os.path.abspath(a.pamc)
    tmp = a.keep or tempfile.mkdtemp(prefix="pamc-simprop-")
    os.makedirs(tmp, exist_ok=True)
    t0 = time.time()
    classes = ["contended", "uncontended", "prob", "seqprob"]
    jobs = []
    for ci, cls in enumerate(classes):
        for f in range(a.files):
            seed = a.seed * 1000 + ci * 100 + f
            rng = random.Random(seed)
            text, names = Gen(rng, cls).file()
            path = os.path.join(tmp, f"{cls}_{f:03d}.pam")
            with open(path, "w") as fh:
                fh.write(text)
            points = rng.sample(POINTS, N_POINTS)
            jobs.append((path, cls, names, points, seed))
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        results = list(ex.map(lambda j: check_file(pamc, *j), jobs))
    per_class = {c: [0] * 6 for c in classes}  # models, checks, failures, strict, random, nonzero
    all_fails = []
    for (path, cls, names, points, seed), (checks, fails, strict, rand, nonzero) in zip(jobs, results):
        for i, v in enumerate([len(names), checks, len(fails), strict, rand, nonzero]):
            per_class[cls][i] += v
        all_fails += fails
    for f in all_fails[:40]:
        print("FAIL", f)
    total_models = sum(v[0] for v in per_class.values())
    for cls in classes:
        m, c, f, st, ra, nz = per_class[cls]
        print(f"{cls:12s} {m:4d} models, {c:5d} checks, {f} failures "
              f"(bound > 0: {nz}; simulated > bound: {st}; runs differ: {ra})")
    print(f"{total_models} models, {sum(v[1] for v in per_class.values())} checks "
          f"({N_POINTS} parameter points each), {len(all_fails)} failures, "
          f"{len(jobs) * N_POINTS * 2} pamc runs, {time.time() - t0:.1f} s")
    if all_fails:
        print(f"models kept in {tmp}")
        return 1
    if not a.keep:
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
