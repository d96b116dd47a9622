#!/usr/bin/env python3
"""Cross-check: every way of evaluating a cost model gives the same numbers.

For each model (every samples/**/*.pam and tests/golden/*.pam with top-level scalar equations and
parameters, a model with hostile names, and --models seeded random models) and a few
parameter points each (and two edge points, where parameters are also negative, zero,
fractional or large: there brute force is not compared, see EDGES), compares

  pamc eval            exact (the reference)
  pamc eval --brute-force   the unsimplified time-domain model, every loop unrolled
  --emit cpp           compiled with g++ (one translation unit per batch of models)
  --emit octave        run in octave-cli (one call for every model)
  the library          pamela_eval (the embedding library's compiled evaluator)

within 1e-9 relative (|a - b| <= 1e-9 * max(1, |a|, |b|)). Points where the exact
evaluation has no value (a bound or an assumption fails, a max over an empty range) are
skipped; so are points where brute force runs out of work budget. The emitted C++ is also
compiled with -Wall -Wextra -Wpedantic -Werror by g++ and clang++ (when installed; else a
message says the clang half is skipped), as -std=c++17 and -std=gnu++17.

Usage (from the repo root; the build folder is the pamc binary's folder):
  python3 tests/crosscheck/run_crosscheck.py --pamc build/pamc [--models 200] [--seed 1] [-v]
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REL = 1e-9
WARN = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]


# ---------------------------------------------------------------- random models
class ModelGenerator:
    """The Python twin of tests/unit/passes_property.cpp's generator."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.next_index = 0
        self.in_f = False
        self.in_work = False

    def u(self, lo, hi):
        return self.rng.randint(lo, hi)

    def pick(self, xs):
        return xs[self.u(0, len(xs) - 1)]

    def var(self, scope):
        if scope and self.u(0, 2) > 0:
            return self.pick(scope)
        return self.pick(["N", "P", "K", "c", "B", "M", "Q"])

    def fresh(self):
        self.next_index += 1
        return "i%d" % self.next_index

    def range_(self, scope):
        k = self.u(0, 9)
        if k == 0: return "1", "N"
        if k == 1: return "0", "K - 1"
        if k == 2: return "1", str(self.u(0, 3))
        if k == 3: return "1", "P"
        if k == 4: return "0", "N - 1"
        if k == 5: return "1", "M"
        if k == 6: return str(self.u(0, 2)), str(self.u(0, 9))
        if k == 7: return ("1", scope[-1]) if scope else ("1", "Q")
        if k == 8: return (scope[-1] + " + 1", "N") if scope else ("0", "Q - 1")
        return (scope[-1], "N") if scope else ("2", "N + 1")

    def predicate(self, i):
        k = self.u(0, 8)
        p = self.pick
        if k == 0: return "(%s mod %s == %s)" % (i, p(["2", "3", "P", "Q"]), p(["0", "1", "2"]))
        if k == 1: return "(%s mod %s != %s)" % (i, p(["2", "3"]), p(["0", "1"]))
        if k == 2: return "(%s <= %s)" % (i, p(["N", "P", "3", "K", "c"]))
        if k == 3: return "(%s < %s)" % (i, p(["N", "M", "2", "c * 2"]))
        if k == 4: return "(%s < %s)" % (p(["N", "P", "2"]), i)
        if k == 5: return "(2 * %s >= %s)" % (i, p(["N", "P", "3"]))
        if k == 6: return "(%s == %s)" % (i, p(["N", "P", "3", "c"]))
        if k == 7: return "(%s != %s)" % (i, p(["N", "2"]))
        return "((%s + 1) mod %s == 1)" % (i, p(["2", "3"]))

    def numeric(self, depth, scope):
        if depth <= 0 or self.u(0, 5) == 0:
            return str(self.u(0, 5)) if self.u(0, 1) else self.var(scope)
        d = depth - 1
        n = lambda: self.numeric(d, scope)
        p = self.pick
        k = self.u(0, 19)
        if k == 0: return n() + " + " + n()
        if k == 1: return n() + " - " + n()
        if k == 2: return "(%s) * (%s)" % (n(), n())
        if k == 3: return "(%s) / %s" % (n(), p(["2", "4", "(P + 1)"]))
        if k == 4: return "(%s) ^ %s" % (n(), p(["2", "3"]))
        if k == 5: return "(%s) mod %s" % (n(), p(["2", "3", "P"]))
        if k == 6: return "(%s) div %s" % (n(), p(["2", "3", "P"]))
        if k == 7: return "(%s %s %s)" % (n(), p(["==", "!=", "<", "<=", ">", ">="]), n())
        if k == 8: return "(%s < 2 %s not %s > 1)" % (n(), p(["and", "or"]), n())
        if k == 9: return "%s(%s, %s)" % ("max" if self.u(0, 1) else "min", n(), n())
        if k in (10, 11):
            lb, ub = self.range_(scope)
            i = self.fresh()
            inner = scope + [i]
            body = self.predicate(i) if self.u(0, 3) == 0 else self.numeric(d, inner)
            if self.u(0, 5) == 0:
                body = self.predicate(i) + " * (" + self.numeric(d, inner) + ")"
            return "%s (%s = %s, %s) { %s }" % (p(["sum", "sum", "max", "min"]), i, lb, ub, body)
        if k == 12: return "(if (%s > 2) (%s) else (%s))" % (n(), n(), n())
        if k == 13: return "%s((%s) / 3)" % (p(["floor", "ceil", "abs"]), n())
        if k == 14: return "sqrt(%s ^ 2 + 1)" % n()
        if k == 15: return "max([%s, %s, 1] * 2)" % (n(), n())
        if k == 16: return n() if self.in_f else "f(%s)" % n()
        if k == 17: return "max(%s * unitvec(2) + [1, 2])" % n()
        return "%s * %d" % (self.var(scope), self.u(1, 4))

    def resource(self, scope):
        i = scope[-1] if scope else self.pick(["0", "1"])
        k = self.u(0, 6)
        p = self.pick
        if k == 0: return "r0"
        if k == 1: return "r1"
        if k in (2, 3): return "cpu(%s%s mod %s)" % (i, p(["", "", " + 1"]), p(["P", "2", "3", "Q"]))
        if k == 4: return "cpu(%s%s div %s)" % (i, p(["", "", " - 1"]), p(["B", "B", "2", "3"]))
        if k == 5: return "cpu(%s)" % (scope[-2] + " mod P" if len(scope) >= 2 else i + " div B")
        return "cpu(%s)" % i

    def process(self, depth, scope):
        if depth <= 0 or self.u(0, 6) == 0:
            if self.u(0, 1):
                return "delay(%s)" % self.numeric(1, scope)
            return "use(%s, %s)" % (self.resource(scope), self.numeric(1, scope))
        d = depth - 1
        k = self.u(0, 8)
        if k == 0: return "{ %s ; %s }" % (self.process(d, scope), self.process(d, scope))
        if k == 1: return "{ %s || %s }" % (self.process(d, scope), self.process(d, scope))
        if k in (2, 3):
            lb, ub = self.range_(scope)
            i = self.fresh()
            return "%s (%s = %s, %s) %s" % ("seq" if self.u(0, 1) else "par", i, lb, ub, self.process(d, scope + [i]))
        if k == 4:
            return "if (%s) %s else %s" % (self.pick(["0.25", "0.5", "1", "0"]), self.process(d, scope), self.process(d, scope))
        if k == 5:
            if scope and self.u(0, 1):
                return "if %s %s" % (self.predicate(scope[-1]), self.process(d, scope))
            return "if (%s mod 2 == 0) %s" % (self.var(scope), self.process(d, scope))
        if k == 6:
            if self.in_work:
                return "delay(%s)" % self.numeric(1, scope)
            return "work(%s)" % self.numeric(1, scope)
        return "use(%s, %s)" % (self.resource(scope), self.numeric(d, scope))

    def model(self):
        out = ["numeric parameter N", "numeric parameter P >= 1", "numeric parameter K = 3",
               "numeric parameter B >= 1", "numeric parameter M >= P", "numeric parameter Q >= 2 <= 5",
               "numeric c = " + self.pick(["0.5", "2", "1.25", "3"]),
               "resource r0 = fcfs(0, 1)", "resource r1 = fcfs(1, %s)" % self.pick(["1", "2", "3"]),
               "resource cpu(p) = fcfs(p + 2, 1)"]
        self.in_work = True
        out.append("process work(x) = " + self.process(2, ["x"]))
        self.in_work = False
        self.in_f = True
        out.append("numeric f(y) = " + self.numeric(2, ["y"]))
        self.in_f = False
        out.append("process main = " + self.process(3, []))
        out.append("numeric value = " + self.numeric(3, []))
        return "\n".join(out) + "\n"

    def points(self, count):
        pts = []
        for _ in range(count):
            p = {"N": self.u(0, 6), "P": self.u(1, 5), "K": self.u(0, 4), "B": self.u(1, 4), "Q": self.u(2, 5)}
            p["M"] = p["P"] + self.u(0, 3)
            pts.append(p)
        return pts


HOSTILE = """numeric parameter int
numeric parameter std >= 1
numeric parameter namespace
numeric parameter __x
numeric parameter M_PI
numeric parameter linux
numeric parameter r
numeric parameter value
numeric parameter x = 2
numeric parameter int_ = 3
resource s = fcfs(0, 1)
process main = seq (i = 1, int) { delay(std * __x + M_PI) ; use(s, linux + r + namespace + value) }
process evaluate = par (i = 1, std) delay(int_ + x)
numeric Results = sum (i = 1, std) { max (j = 1, i) { i * j mod 3 } } + int_
numeric errno = 3 * int
numeric disp = int / 3
"""


# ---------------------------------------------------------------- helpers
def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def close(a, b):
    if a is None or b is None:
        return False
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b))


def fmt(v):
    return repr(float(v))


class Model:
    def __init__(self, label, path, include, points):
        self.label = label          # for messages
        self.path = path            # a unique-stem copy in the work folder
        self.include = include      # the original folder, for imports
        self.points = points        # list of {name: value}
        self.params = []            # declaration order
        self.equations = []         # top-level scalar equations (emitted)
        self.ns = None
        self.results = {}           # backend -> [point][equation] value or None


def parse_number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def sample_points(rng, params, count):
    """Small integer points for a sample: parameters whose default is a plain number keep
    it half of the time (timings such as t_hit), others get 1..8."""
    pts = []
    for k in range(count):
        p = {}
        for prm in params:
            d = parse_number(prm.get("default"))
            if d is not None and (d != int(d) or (abs(d) <= 8 and rng.random() < 0.3)):
                p[prm["name"]] = d
            else:
                p[prm["name"]] = rng.randint(1, 8)
        pts.append(p)
    return pts


# Edge points: each parameter negative, zero, fractional or large half of the time. The
# backends must agree with exact pamc eval there too (each checks the closed form's
# assumptions and falls back as eval does); eval against brute force at such points is
# tests/cli/run_edges.py's and the unit property tests' to judge, with their lists of
# models known wrong today, so brute force is not compared at them here.
EDGES = [-3, -1, 0, 0.5, 2.5, 100]
EDGE_POINTS = 2


def edge_points(name, points, params):
    rng = random.Random(name)
    base = points[0] if points else {}
    out = []
    for _ in range(EDGE_POINTS):
        pt = {}
        for prm in params:
            n = prm["name"]
            pt[n] = rng.choice(EDGES) if rng.random() < 0.5 or n not in base else base[n]
        out.append(pt)
    return out


def pamc_eval(pamc, m, point, brute):
    cmd = [pamc, "eval", m.path, "--json", "-I", m.include]
    for k, v in point.items():
        cmd += ["-D", "%s=%s" % (k, fmt(v) if not float(v).is_integer() else str(int(v)))]
    if brute:
        cmd.append("--brute-force")
    try:
        p = run(cmd, timeout=30)
    except subprocess.TimeoutExpired:
        return None
    if p.returncode != 0:
        return None
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        return None


# ---------------------------------------------------------------- backends
def backend_cpp(compilers, work, models, batch, log):
    """One g++ run per batch of models: a main that includes their headers and prints every
    equation at every point. Returns problems (warnings are failures)."""
    problems = []
    for start in range(0, len(models), batch):
        group = models[start:start + batch]
        src = ["#include <cstdio>"]
        for m in group:
            src.append('#include "%s.hpp"' % m.ns)
        src.append("int main() {")
        for mi, m in enumerate(group):
            for pi, pt in enumerate(m.points):
                args = ", ".join(fmt(pt[p]) for p in m.params)
                for e in m.equations:
                    src.append('  std::printf("%d %d %s %%.17g\\n", %s::%s(%s));' % (start + mi, pi, e, m.ns, m.cpp_names[e], args))
        src.append("  return 0;\n}")
        main = os.path.join(work, "batch%d.cpp" % start)
        with open(main, "w") as f:
            f.write("\n".join(src) + "\n")
        exe = os.path.join(work, "batch%d" % start)
        p = run(["g++", "-std=c++17", "-O1"] + WARN + ["-I", work, main, "-o", exe])
        if p.returncode != 0:
            problems.append("g++ failed on models %s:\n%s" % ([m.label for m in group], p.stderr[:3000]))
            continue
        for c in compilers:
            for std in ["c++17", "gnu++17"]:
                q = run([c, "-std=" + std, "-fsyntax-only"] + WARN + ["-I", work, main])
                if q.returncode != 0:
                    problems.append("%s -std=%s rejects the headers of %s:\n%s" % (c, std, [m.label for m in group], q.stderr[:3000]))
        out = run([exe]).stdout
        for line in out.splitlines():
            mi, pi, e, v = line.split(" ")
            m = models[int(mi)]
            m.results.setdefault("cpp", {})[(int(pi), e)] = float(v)
    return problems


def backend_octave(work, models, log):
    """One octave-cli run for every model: cd into each model's folder of .m files, call
    each equation once with the points as arrays (vectorized)."""
    script = ["more off;"]
    for mi, m in enumerate(models):
        d = os.path.join(work, "oct_" + m.ns)
        script.append("cd('%s'); clear functions;" % d)
        arrays = ", ".join("[%s]" % " ".join(fmt(pt[p]) for pt in m.points) for p in m.params)
        for e in m.equations:
            fn = m.octave_names[e]
            script.append("try; v = %s(%s); printf('%d %s'); printf(' %%.17g', v); printf('\\n'); "
                          "catch err; printf('%d %s ERR %%s\\n', strrep(err.message, char(10), ' ')); end" %
                          (fn, arrays, mi, e, mi, e))
    path = os.path.join(work, "all.m")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    p = run(["octave-cli", "--no-history", "--quiet", "--norc", "--eval", "source('%s');" % path], timeout=600)
    problems = []
    if p.returncode != 0:
        problems.append("octave-cli failed: " + p.stderr[:2000])
    for line in p.stdout.splitlines():
        parts = line.split(" ")
        if len(parts) < 3:
            continue
        m = models[int(parts[0])]
        e = parts[1]
        if parts[2] == "ERR":
            problems.append("octave: %s %s: %s" % (m.label, e, " ".join(parts[3:])))
            continue
        vals = [float(x) for x in parts[2:]]
        if len(vals) != len(m.points):
            problems.append("octave: %s %s: %d values for %d points (not vectorized?)" % (m.label, e, len(vals), len(m.points)))
            continue
        for pi, v in enumerate(vals):
            m.results.setdefault("octave", {})[(pi, e)] = v
    return problems


def backend_library(tool, work, models, notes):
    jobs = []
    for m in models:
        jobs.append("model\t%s\t%s" % (m.path, m.include))
        for pt in m.points:
            jobs.append("point " + " ".join(fmt(pt[p]) for p in m.params))
    path = os.path.join(work, "jobs.txt")
    with open(path, "w") as f:
        f.write("\n".join(jobs) + "\n")
    p = run([tool, path], timeout=600)
    problems = []
    by_path = {m.path: m for m in models}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        m = by_path[r["model"]]
        if "error" in r:
            if "vector-valued" in r["error"]:
                # The library's evaluator has no resource vectors yet (issue 12): noted, and
                # the other back ends still compare.
                notes.append("library: %s: %s" % (m.label, r["error"]))
                m.no_library = True
            else:
                problems.append("library: %s: %s" % (m.label, r["error"]))
            continue
        if r["equations"] != m.equations:
            problems.append("library: %s: equations %s, emitted %s" % (m.label, r["equations"], m.equations))
        m.valid = r["valid"]
        for pi, row in enumerate(r["values"]):
            for e, v in zip(r["equations"], row):
                m.results.setdefault("library", {})[(pi, e)] = float("nan") if v is None else v
    return problems


def backend_pamc(pamc, models, jobs):
    tasks = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for m in models:
            for pi, pt in enumerate(m.points):
                for brute in (False, True):
                    tasks.append((m, pi, brute, pool.submit(pamc_eval, pamc, m, pt, brute)))
        for m, pi, brute, fut in tasks:
            r = fut.result()
            if r is None:
                continue
            key = "brute" if brute else "exact"
            for e in m.equations:
                v = r.get(e)
                if isinstance(v, (int, float)):
                    m.results.setdefault(key, {})[(pi, e)] = float(v)


# ---------------------------------------------------------------- main
def prepare(pamc, work, label, src_path, text, include, ns_hint, points_fn):
    """Copies a model under a unique stem, reads its parameters (JSON) and emits C++ and
    Octave. Returns a Model, or None when it has no parameters or no scalar top-level
    equation (or does not compile)."""
    path = os.path.join(work, ns_hint + ".pam")
    with open(path, "w") as f:
        f.write(text)
    p = run([pamc, "compile", path, "--emit", "json", "-I", include])
    if p.returncode != 0:
        return None, "does not compile: " + p.stderr.strip().splitlines()[0] if p.stderr.strip() else "does not compile"
    info = json.loads(p.stdout)
    params = [x["name"] for x in info["parameters"]]
    eqs = [e["name"] for e in info["equations"] if not e["vector"]]
    if not params or not eqs:
        return None, "no parameters or no scalar top-level equation"
    points = points_fn(info["parameters"])
    m = Model(label, path, include, points + edge_points(ns_hint, points, info["parameters"]))
    m.edge_from = len(points)
    m.params = params
    m.equations = eqs
    hpp = run([pamc, "compile", path, "--emit", "cpp", "-I", include])
    if hpp.returncode != 0:
        return None, "--emit cpp failed: " + hpp.stderr
    text_h = hpp.stdout
    m.ns = re.search(r"^namespace (\w+) \{", text_h, re.M).group(1)
    with open(os.path.join(work, m.ns + ".hpp"), "w") as f:
        f.write(text_h)
    # Emitted names (they may differ from the model's when reserved): from the Results struct.
    fields = re.findall(r"^  double (\w+) = 0\.0;$", text_h, re.M)
    m.cpp_names = dict(zip(eqs, fields))
    od = os.path.join(work, "oct_" + m.ns)
    q = run([pamc, "compile", path, "--emit", "octave", "-o", od, "-I", include])
    if q.returncode != 0:
        return None, "--emit octave failed: " + q.stderr
    m.octave_names = {}
    for fn in os.listdir(od):
        if not fn.endswith(".m"):  # the +model/ package holds the same files again
            continue
        with open(os.path.join(od, fn)) as f:
            first = f.read().splitlines()[1]
        orig = re.match(r"\s*% ([\w.]+) of ", first).group(1)  # region counters: tzetar.avl
        m.octave_names[orig] = fn[:-2]
    if sorted(m.octave_names) != sorted(eqs) or sorted(m.cpp_names) != sorted(eqs):
        return None, "emitted equations differ from the JSON's: %s %s %s" % (eqs, m.cpp_names, m.octave_names)
    return m, None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pamc", required=True)
    ap.add_argument("--models", type=int, default=200, help="random models (default 200)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--points", type=int, default=4, help="points per model (default 4)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    build = os.path.dirname(pamc)
    tool = os.path.join(build, "runtime", "pamela_eval")
    for needed, what in [(tool, "the library's pamela_eval (build target pamela_eval)")]:
        if not os.path.exists(needed):
            print("FAIL: %s not found at %s" % (what, needed))
            return 1
    if not shutil.which("g++"):
        print("FAIL: g++ not found")
        return 1
    compilers = ["g++"]
    if shutil.which("clang++"):
        compilers.append("clang++")
    else:
        print("note: clang++ not installed; skipping the clang half of the warning check")
    have_octave = shutil.which("octave-cli") is not None
    if not have_octave:
        print("note: octave-cli not installed; skipping the Octave backend")

    work = tempfile.mkdtemp(prefix="pamc-crosscheck-")
    rng = random.Random(args.seed)
    models, notes, problems = [], [], []
    try:
        # Samples and golden models.
        # every model under samples/ (its folders too: aspen/, tzetar_mv/, local/, corpus/)
        files = (sorted(glob.glob(os.path.join(ROOT, "samples", "**", "*.pam"), recursive=True)) +
                 sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.pam"))) +
                 sorted(glob.glob(os.path.join(ROOT, "tests", "emit", "models", "*.pam"))))
        for src in files:
            rel = os.path.relpath(src, ROOT)
            stem = re.sub(r"\W", "_", os.path.splitext(rel)[0].replace(os.sep, "_"))
            with open(src) as f:
                text = f.read()
            npts = args.points

            def pts(params, npts=npts):
                out = sample_points(rng, params, npts)
                if rel == os.path.join("samples", "mrm.pam"):
                    out[0] = {"P": 1000, "N": 1e6}
                return out
            m, why = prepare(pamc, work, rel, src, text, os.path.dirname(src), stem, pts)
            if m:
                models.append(m)
            elif args.verbose:
                notes.append("skip %s: %s" % (rel, why))
        n_samples = len(models)
        # Hostile names (file stem "1-bad name").
        m, why = prepare(pamc, work, "hostile", None, HOSTILE, work, "1-bad name",
                         lambda params: [{p["name"]: rng.randint(1, 6) for p in params} for _ in range(args.points)])
        if not m:
            problems.append("the hostile-names model: " + why)
        else:
            models.append(m)
        # Random models.
        # Random models until --models of them have emitted code. A closed form that keeps a
        # vector inside a scalar (max over a workload vector whose positions stay symbolic)
        # has no scalar code form yet: such models are counted, not failed.
        n_random = n_vector = 0
        for seed in range(args.seed, args.seed + 4 * args.models):
            if n_random == args.models:
                break
            gen = ModelGenerator(seed)
            text = gen.model()
            m, why = prepare(pamc, work, "random seed %d" % seed, None, text, work, "random_%04d" % seed,
                             lambda params, gen=gen: gen.points(args.points))
            if m:
                # K has a default: the points bind it explicitly like every other parameter.
                models.append(m)
                n_random += 1
            elif "vector-valued" in why:
                n_vector += 1
            else:
                problems.append("random seed %d: %s\n%s" % (seed, why, text))
        if n_random < args.models:
            problems.append("only %d random models had emitted code" % n_random)
        problems += backend_cpp(compilers, work, models, 40, notes)
        if have_octave:
            problems += backend_octave(work, models, notes)
        problems += backend_library(tool, work, models, notes)
        backend_pamc(pamc, models, args.jobs)

        backends = ["brute", "cpp", "library"] + (["octave"] if have_octave else [])
        compared = skipped = invalid = 0
        per_backend = {b: 0 for b in backends}
        for m in models:
            for pi in range(len(m.points)):
                for e in m.equations:
                    ref = m.results.get("exact", {}).get((pi, e))
                    outside = not getattr(m, "valid", [True] * len(m.points))[pi]
                    if ref is None:
                        skipped += 1
                        continue
                    if outside:
                        # The closed form's assumptions fail here: eval, the emitted C++ and
                        # Octave and the library fall back to the unsimplified model.
                        invalid += 1
                    else:
                        compared += 1
                    for b in backends:
                        if outside and b not in ("cpp", "octave", "library"):
                            continue
                        if b == "brute" and pi >= getattr(m, "edge_from", len(m.points)):
                            continue  # an edge point: run_edges.py judges eval against brute force
                        v = m.results.get(b, {}).get((pi, e))
                        if v is None and b == "brute":
                            continue  # brute force ran out of budget
                        if b == "library" and getattr(m, "no_library", False):
                            continue  # noted above: the library has no resource vectors yet
                        if v is None or not close(ref, v):
                            problems.append("%s: %s at %s: exact %r, %s %r" % (m.label, e, m.points[pi], ref, b, v))
                        else:
                            per_backend[b] += 1
        print("models: %d samples/golden, 1 hostile-names, %d random (%d more random models skipped: a vector "
              "inside the closed form, no scalar code form); %d (model, point, equation) values compared, "
              "%d skipped (no exact value), %d more where the closed form's assumptions fail (compared for C++, Octave and the library)"
              % (n_samples, n_random, n_vector, compared, skipped, invalid))
        print("agreeing with exact pamc eval: " + ", ".join("%s %d" % (b, n) for b, n in per_backend.items()))
        print("C++ headers compiled warning-free by: " + ", ".join(compilers))
        for n in notes:
            print(n)
        if problems:
            for p in problems[:40]:
                print("FAIL " + p)
            print("%d problems" % len(problems))
            return 1
        print("ok")
        return 0
    finally:
        if args.keep:
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
