#!/usr/bin/env python3
"""The differential test: every evaluator of a cost model gives the same answer at every point.

For each model (every samples/**/*.pam, tests/golden/*.pam and tests/emit/models/*.pam with
top-level scalar equations and parameters, a model with hostile names, the cases of
tests/crosscheck/cases/*.pam, and --models seeded random models) and parameter points both
valid and invalid (a parameter at 0, negative, fractional or huge; a declared bound broken;
trailing defaulted parameters left out), runs

  pamc eval --closed-form   the closed form for every value, evaluated exactly (the reference)
  pamc eval                 the model simplified at the point (the closed form where a loop
                            stays open there)
  pamc eval --brute-force   the unsimplified time-domain model, every loop unrolled
  the library               pamela_eval (the embedding library's compiled evaluator)
  the Python module         pamela, a point at a time and all points as one NumPy array
  --emit cpp                compiled with g++ (one translation unit per batch of models)
  --emit octave             run in octave-cli (one call for every model)
  pamc simulate             where the model has processes: whether the point has a value

and fails on any disagreement: at each point every evaluator gives the same value within
1e-9 relative (|a - b| <= 1e-9 * max(1, |a|, |b|)), or every evaluator says the point has
no value (an error from pamc, NaN from the others; docs/semantics.md, "Points without a
value"). An infinity where the others say "no value" is a disagreement. A result nobody
can compute in the time allowed (brute force or the simulator past their work budgets, an
exact number too large) is left out of the comparison, and counted. The Python module's
violated_assumptions() must be non-empty exactly where the emitted C++'s
assumptions_hold() is false. The emitted C++ is also compiled with -Wall -Wextra
-Wpedantic -Werror by g++ and clang++ (when installed), as -std=c++17 and -std=gnu++17.

Usage (from the repo root; the build folder is the pamc binary's folder):
  python3 tests/crosscheck/run_crosscheck.py --pamc build/pamc [--models 150] [--seed 1] [-v]
  python3 tests/crosscheck/run_crosscheck.py --pamc build/pamc --only FILE.pam   (its "% points:" and random ones)
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_models import ModelGenerator  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REL = 1e-9
WARN = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
NOVAL = "no value"
# pamc's error kinds that mean "this point has no value" (docs/semantics.md); any other
# error (a work limit, a number too large to hold) leaves the point out of the comparison.
NO_VALUE_KINDS = {"EvaluationError", "DivisionByZero", "DomainError", "NegativeTime", "InvalidMultiplicity",
                  "NonIntegerBound", "EmptyRange", "ParameterOutOfBounds", "InvalidCondition"}
# AliasedResource (two resource families at one position at this point) is checked by
# eval and the simulator only: left out here until the other evaluators check it too.
UNKNOWN_KINDS = {"WorkLimit", "ValueTooLarge", "Interrupted", "AliasedResource"}

# Names that are C++ or Octave words, macros, or the emitted code's own names: a loop's
# bounds (i_lb beside a loop over i), the flag and locals of the emitted functions.
HOSTILE = """numeric parameter int
numeric parameter std >= 1
numeric parameter namespace
numeric parameter __x
numeric parameter M_PI
numeric parameter linux
numeric parameter r
numeric parameter value
numeric parameter i_lb
numeric parameter err
numeric parameter no_value
numeric parameter v
numeric parameter x = 2
numeric parameter int_ = 3
resource s = fcfs(0, 1)
process main = seq (i = 1, int) { delay(std * __x + M_PI) ; use(s, linux + r + namespace + value) }
process evaluate = par (i = 1, std) delay(int_ + x)
numeric Results = sum (i = 1, std) { max (j = 1, i) { i * j mod 3 } } + int_
numeric errno = 3 * int
numeric disp = int / 3
numeric clash = sum (i = i_lb, std) { i * i mod 3 } + err + no_value + v
"""


# ---------------------------------------------------------------- helpers
def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def agree(a, b):
    """Whether two results agree: both no value, or numbers within REL."""
    if a == NOVAL or b == NOVAL:
        return a == b
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b))


def as_result(v):
    """A float from another evaluator: NaN means no value."""
    v = float(v)
    return NOVAL if math.isnan(v) else v


def fmt(v):
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else repr(float(v))


class Model:
    def __init__(self, label, path, include, points):
        self.label = label          # for messages
        self.path = path            # a unique-stem copy in the work folder
        self.include = include      # the original folder, for imports
        self.points = points        # list of {name: value}; a point may leave trailing defaults out
        self.params = []            # declaration order
        self.equations = []         # top-level scalar equations (emitted)
        self.processes = []         # T_ equations the simulator can run
        self.ns = None
        self.results = {}           # backend -> {(point, equation): float, NOVAL}
        self.unknown = {}           # backend -> {(point, equation)}: not computed (budget)
        self.holds = {}             # point -> C++ assumptions_hold()
        self.violated = {}          # point -> Python violated_assumptions()

    def args(self, pt):
        return [pt[p] for p in self.params if p in pt]


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


def invalid_points(rng, params, valid, count, huge):
    """Points outside the model's domain, or at its edges: one or two parameters of a valid
    point set to 0, a negative, a fractional or a huge value."""
    out = []
    names = [p["name"] for p in params]
    for k in range(count):
        p = dict(valid[k % len(valid)])
        for name in rng.sample(names, min(len(names), rng.choice([1, 1, 2]))):
            p[name] = rng.choice([0, 0, -1, -3, 0.5, 2.5, 1.5, huge])
        out.append(p)
    return out


def defaults_point(params, valid):
    """A valid point with the trailing run of defaulted parameters left out (as a caller of
    the emitted C++ or Octave function may), or None when no parameter trails with a default."""
    n = len(params)
    while n > 0 and params[n - 1].get("default") is not None:
        n -= 1
    if n == len(params):
        return None
    return {p["name"]: valid[p["name"]] for p in params[:n]}


def listed_points(text):
    """The points a case was written for, from its line "% points: N=100 P=0 | N=3 P=2.5"."""
    m = re.search(r"^% points:(.*)$", text, re.M)
    if not m:
        return []
    return [dict((kv.split("=")[0], float(kv.split("=")[1])) for kv in pt.split()) for pt in m.group(1).split("|")]


def error_kind(stderr):
    m = re.search(r"\[(\w+)\]\s*$", stderr.strip().splitlines()[0] if stderr.strip() else "")
    if not m:
        m = re.search(r"\[(\w+)\]", stderr)
    return m.group(1) if m else None


def pamc_run(pamc, m, point, extra, timeout=60):
    """One pamc eval/simulate at a point: (json or None, error kind or None)."""
    cmd = [pamc] + extra[:1] + [m.path, "--json", "-I", m.include] + extra[1:]
    for k, v in point.items():
        cmd += ["-D", "%s=%s" % (k, fmt(v))]
    try:
        p = run(cmd, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "Timeout"
    if p.returncode != 0:
        return None, error_kind(p.stderr) or ("exit %d: %s" % (p.returncode, p.stderr[:300]))
    try:
        return json.loads(p.stdout), None
    except json.JSONDecodeError:
        return None, "bad JSON: " + p.stdout[:200]


# ---------------------------------------------------------------- backends
def backend_cpp(compilers, work, models, batch):
    """One g++ run per batch of models: a main that includes their headers and prints every
    equation at every point (and assumptions_hold). Returns problems (warnings are failures)."""
    problems = []
    for start in range(0, len(models), batch):
        group = models[start:start + batch]
        src = ["#include <cstdio>"]
        for m in group:
            src.append('#include "%s.hpp"' % m.ns)
        src.append("int main() {")
        for mi, m in enumerate(group):
            for pi, pt in enumerate(m.points):
                args = ", ".join(fmt(float(x)) + ("" if "." in fmt(float(x)) or "e" in fmt(float(x)) else ".0")
                                 for x in m.args(pt))
                src.append('  std::printf("%d %d assumptions_hold %%d\\n", %s::assumptions_hold(%s) ? 1 : 0);'
                           % (start + mi, pi, m.ns, args))
                for e in m.equations:
                    if (pi, e) in m.unknown.get("library", ()):
                        # the library refused the unsimplified model's loops here (pamela::WorkLimit):
                        # the emitted code would run the same loops, for hours
                        m.unknown.setdefault("cpp", set()).add((pi, e))
                        continue
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
                if c == "g++" and std == "c++17":
                    continue  # compiled above
                q = run([c, "-std=" + std, "-fsyntax-only"] + WARN + ["-I", work, main])
                if q.returncode != 0:
                    problems.append("%s -std=%s rejects the headers of %s:\n%s" % (c, std, [m.label for m in group], q.stderr[:3000]))
        try:
            out = run([exe], timeout=300).stdout
        except subprocess.TimeoutExpired:
            problems.append("the C++ batch of %s ran past 300 s" % [m.label for m in group])
            continue
        for line in out.splitlines():
            mi, pi, e, v = line.split(" ")
            m = models[int(mi)]
            if e == "assumptions_hold":
                m.holds[int(pi)] = v == "1"
            else:
                m.results.setdefault("cpp", {})[(int(pi), e)] = as_result(v)
    return problems


# Octave runs a loop as arrayfun, about 10 microseconds a term: a (point, equation) whose
# loops run more terms than this is left to the other evaluators (at most ~1 s each).
OCTAVE_MAX_TERMS = 100000


def octave_loops_fit(pamc, m, pi, e, cache):
    """Whether the emitted Octave of equation e runs at most OCTAVE_MAX_TERMS loop terms at
    point pi. The emitted code evaluates the closed form where the assumptions hold (C++'s
    assumptions_hold said which) and else the unsimplified model, whose loops are those
    pamc eval --brute-force unrolls: pamc eval's estimate of either, refused ahead of the
    work past --max-terms, says how many terms that is. Where the closed form is used and
    eval fails for another reason (no value: a broken bound), the emitted code stops at the
    same place, before its loops. Where the unsimplified model is used and brute force
    finds no value, its count says nothing: brute force stops at the first position that is
    not a nonnegative integer, while the emitted vector carries NaN to the loop's end (so
    that a zero factor can still cover it), which at N = 10000 was 10^8 Octave terms."""
    key = (m.path, pi, e)
    if key not in cache:
        extra = ["eval", "--target", e, "--max-terms", str(OCTAVE_MAX_TERMS)]
        brute = not m.holds.get(pi, False)
        if brute:
            extra.append("--brute-force")
        doc, err = pamc_run(pamc, m, m.points[pi], extra)
        cache[key] = err not in ("WorkLimit", "Timeout") and not (brute and err is not None)
    return cache[key]


def backend_octave(pamc, work, models, jobs):
    """One octave-cli run for every model: cd into each model's folder of .m files, call
    each equation once per argument count with the points as arrays (vectorized). A point
    with a large parameter where the equation's file has loops is asked first whether its
    loops fit (octave_loops_fit)."""
    script = ["more off;"]
    cache = {}
    risky = []
    for m in models:
        d = os.path.join(work, "oct_" + m.ns)
        for e in m.equations:
            with open(os.path.join(d, m.octave_names[e] + ".m")) as f:
                text = f.read()
            if "pamc_reduce" not in text and "pamc_vmax" not in text:
                continue
            for pi, pt in enumerate(m.points):
                if any(abs(float(x)) > 100 for x in pt.values()):
                    risky.append((m, pi, e))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        fits = list(pool.map(lambda r: octave_loops_fit(pamc, r[0], r[1], r[2], cache), risky))
    too_long = {(id(m), pi, e) for (m, pi, e), ok in zip(risky, fits) if not ok}
    for mi, m in enumerate(models):
        d = os.path.join(work, "oct_" + m.ns)
        script.append("cd('%s'); clear functions;" % d)
        groups = {}
        for pi, pt in enumerate(m.points):
            groups.setdefault(len(m.args(pt)), []).append(pi)
        for n, pis in sorted(groups.items()):
            for e in m.equations:
                long_ones = [pi for pi in pis if (id(m), pi, e) in too_long]
                for pi in long_ones:
                    m.unknown.setdefault("octave", set()).add((pi, e))
                some = [pi for pi in pis if pi not in long_ones]
                if not some:
                    continue
                arrays = ", ".join("[%s]" % " ".join(fmt(m.points[pi][p]) for pi in some) for p in m.params[:n])
                tag = "%d %s" % (mi, ",".join(map(str, some)))
                fn = m.octave_names[e]
                script.append("try; v = %s(%s); printf('%s %s'); printf(' %%.17g', v); printf('\\n'); "
                              "catch err; printf('%s %s ERR %%s\\n', strrep(err.message, char(10), ' ')); end" %
                              (fn, arrays, tag, e, tag, e))
    path = os.path.join(work, "all.m")
    with open(path, "w") as f:
        f.write("\n".join(script) + "\n")
    p = run(["octave-cli", "--no-history", "--quiet", "--norc", "--eval", "source('%s');" % path], timeout=900)
    problems = []
    if p.returncode != 0:
        problems.append("octave-cli failed: " + p.stderr[:2000])
    for line in p.stdout.splitlines():
        parts = line.split(" ")
        if len(parts) < 4:
            continue
        m = models[int(parts[0])]
        pis = [int(x) for x in parts[1].split(",")]
        e = parts[2]
        if parts[3] == "ERR":
            problems.append("octave: %s %s at %s: %s" % (m.label, e, [m.points[i] for i in pis], " ".join(parts[4:])))
            continue
        vals = [as_result(x) for x in parts[3:]]
        if len(vals) != len(pis):
            problems.append("octave: %s %s: %d values for %d points (not vectorized?)" % (m.label, e, len(vals), len(pis)))
            continue
        for pi, v in zip(pis, vals):
            m.results.setdefault("octave", {})[(pi, e)] = v
    return problems


def backend_library(tool, work, models):
    jobs = []
    for m in models:
        jobs.append("model\t%s\t%s" % (m.path, m.include))
        for pt in m.points:
            jobs.append("point " + " ".join(repr(float(x)) for x in m.args(pt)))
    path = os.path.join(work, "jobs.txt")
    with open(path, "w") as f:
        f.write("\n".join(jobs) + "\n")
    p = run([tool, path], timeout=900)
    problems = []
    by_path = {m.path: m for m in models}
    for line in p.stdout.splitlines():
        r = json.loads(line)
        m = by_path[r["model"]]
        if "error" in r:
            problems.append("library: %s: %s" % (m.label, r["error"]))
            continue
        if r["equations"] != m.equations:
            problems.append("library: %s: equations %s, emitted %s" % (m.label, r["equations"], m.equations))
        for pi, row in enumerate(r["values"]):
            for e, v in zip(r["equations"], row):
                if v == "work-limit":  # the unsimplified model's loops refused (pamela::WorkLimit)
                    m.unknown.setdefault("library", set()).add((pi, e))
                    continue
                m.results.setdefault("library", {})[(pi, e)] = NOVAL if v is None else float(v)
    return problems


PYTHON_DRIVER = r"""
import json, math, sys
import numpy as np
import pamela
def out(v):
    return None if math.isnan(v) else (repr(v) if math.isinf(v) else v)
def scalar(f, pt):
    try:
        return out(f(*pt))
    except pamela.WorkLimit:  # the point refused, not computed
        return "work-limit"
for job in json.load(open(sys.argv[1])):
    try:
        m = pamela.Model(job["path"], include_dirs=[job["include"]])
        r = {"scalar": {}, "array": {}, "violated": []}
        for e in job["equations"]:
            f = m.function(e)
            r["scalar"][e] = [scalar(f, pt) for pt in job["points"]]
            r["array"][e] = {}
            for n in sorted({len(pt) for pt in job["points"]}):
                idx = [i for i, pt in enumerate(job["points"]) if len(pt) == n]
                idx = [i for i in idx if r["scalar"][e][i] != "work-limit"]  # refused one by one too
                if not idx:
                    continue
                cols = [np.array([job["points"][i][c] for i in idx]) for c in range(n)]
                vals = f(*cols) if n else np.array([f()] * len(idx))
                vals = np.broadcast_to(np.asarray(vals, dtype=float), (len(idx),))
                for i, v in zip(idx, vals):
                    r["array"][e][str(i)] = out(float(v))
        r["violated"] = [m.violated_assumptions(*pt) if len(pt) == len(m.parameters) else None
                         for pt in job["points"]]
    except Exception as ex:
        r = {"error": "%s: %s" % (type(ex).__name__, ex)}
    print(json.dumps(r))
"""


def backend_python(build, work, models):
    """The Python module in one interpreter: each equation a point at a time (the scalar
    path) and at all points as arrays (the library's evaluate_many)."""
    pydir = os.path.join(build, "python")
    if not glob.glob(os.path.join(pydir, "pamela*.so")):
        return ["the Python module is not built (%s)" % pydir], False
    jobs = [{"path": m.path, "include": m.include, "equations": m.equations,
             "points": [[float(x) for x in m.args(pt)] for pt in m.points]} for m in models]
    path = os.path.join(work, "python_jobs.json")
    with open(path, "w") as f:
        json.dump(jobs, f)
    drv = os.path.join(work, "python_driver.py")
    with open(drv, "w") as f:
        f.write(PYTHON_DRIVER)
    env = dict(os.environ, PYTHONPATH=pydir)
    # The module is built for the first interpreter that imports NumPy (docs/python.md).
    pythons = [x for x in (sys.executable, shutil.which("python3"), "/usr/bin/python3") if x]
    python = next((x for x in pythons if run([x, "-c", "import numpy, pamela"], env=env).returncode == 0), None)
    if not python:
        return ["python: no interpreter among %s imports numpy and pamela" % pythons], True
    p = run([python, drv, path], timeout=900, env=env)
    problems = []
    lines = p.stdout.splitlines()
    if p.returncode != 0 or len(lines) != len(models):
        return ["python: exit %d, %d results for %d models: %s" % (p.returncode, len(lines), len(models), p.stderr[-2000:])], True
    conv = lambda v: NOVAL if v is None else float(v)
    for m, line in zip(models, lines):
        r = json.loads(line)
        if "error" in r:
            problems.append("python: %s: %s" % (m.label, r["error"]))
            continue
        for e in m.equations:
            for pi, v in enumerate(r["scalar"][e]):
                if v == "work-limit":
                    for b in ("python", "python array"):
                        m.unknown.setdefault(b, set()).add((pi, e))
                    continue
                m.results.setdefault("python", {})[(pi, e)] = conv(v)
            for pi, v in r["array"][e].items():
                m.results.setdefault("python array", {})[(int(pi), e)] = conv(v)
        for pi, v in enumerate(r["violated"]):
            if v is not None:
                m.violated[pi] = v
    return problems, True


def backend_pamc(pamc, models, jobs):
    """pamc eval (the closed form, at the point, brute force) and pamc simulate at every point. Where a command
    fails on a point, each equation is asked alone (--target), so that one equation without
    a value does not hide the others' values."""
    problems = []

    def one(m, pi, kind):
        pt = m.points[pi]
        if kind == "simulate":
            eqs = m.processes
            base = ["simulate", "--max-events", "200000"]
        else:
            eqs = m.equations
            base = ["eval"] + {"exact": ["--closed-form"], "point": [], "brute": ["--brute-force"]}[kind]
        res, unk, errs = {}, set(), []

        def record(e, doc, err):
            if doc is not None:
                v = doc.get(e)
                if kind == "simulate" and isinstance(v, dict):
                    v = v.get("mean")
                if isinstance(v, (int, float)):
                    try:
                        res[e] = float(v)
                    except OverflowError:  # an exact integer past a double's range, as C++ gives it
                        res[e] = math.inf if v > 0 else -math.inf
                else:
                    errs.append("%s: no number for %s in %r" % (kind, e, doc))
            elif kind == "simulate" and err == "NegativeTime":
                # A use time that depends on a loop index and is negative at this point
                # (use(cpu(p), N / 2 ^ l) at N = -1): the cost model sums it as it is and the
                # simulator refuses it (docs/semantics.md). Not compared.
                unk.add(e)
            elif err in NO_VALUE_KINDS:
                res[e] = NOVAL
            elif err in UNKNOWN_KINDS or err == "Timeout":
                unk.add(e)
            else:
                errs.append("%s at %s: %s: %s" % (kind, pt, e, err))

        if not eqs:
            return res, unk, errs
        doc, err = pamc_run(pamc, m, pt, base)
        if doc is not None:
            for e in eqs:
                record(e, doc, None)
        elif len(eqs) == 1:
            record(eqs[0], None, err)
        else:
            for e in eqs:
                target = e[2:] if kind == "simulate" else e
                d, r = pamc_run(pamc, m, pt, base + ["--target", target])
                record(e, d, r)
        return res, unk, errs

    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        tasks = []
        for m in models:
            for pi in range(len(m.points)):
                for kind in ("exact", "point", "brute", "simulate"):
                    if kind == "simulate" and not m.processes:
                        continue
                    tasks.append((m, pi, kind, pool.submit(one, m, pi, kind)))
        for m, pi, kind, fut in tasks:
            res, unk, errs = fut.result()
            for e, v in res.items():
                m.results.setdefault(kind, {})[(pi, e)] = v
            for e in unk:
                m.unknown.setdefault(kind, set()).add((pi, e))
            problems += ["%s: %s" % (m.label, x) for x in errs]
    return problems


def check_simulator_position(pamc):
    """The simulator reports a resource position below 0 at its place, as eval --brute-force
    does (it used to simulate a resource fcfs(-1, 1))."""
    case = os.path.join(ROOT, "tests", "crosscheck", "cases", "bad_position.pam")
    p = run([pamc, "simulate", case, "-D", "P=4"])
    want = "bad_position.pam:6:35: error: resource position -1 is not a nonnegative integer [NonIntegerBound]"
    if p.returncode != 1 or want not in p.stderr:
        return ["simulate %s -D P=4: exit %d, expected %r, got %r" % (case, p.returncode, want, p.stderr[:300])]
    return []


# ---------------------------------------------------------------- models
def prepare(pamc, work, label, text, include, ns_hint, points_fn):
    """Copies a model under a unique stem, reads its parameters (JSON) and emits C++ and
    Octave. Returns (Model, None), or (None, why) when it has no parameters or no scalar
    top-level equation (or does not compile)."""
    path = os.path.join(work, ns_hint + ".pam")
    with open(path, "w") as f:
        f.write(text)
    p = run([pamc, "compile", path, "--emit", "json", "-I", include])
    if p.returncode != 0:
        return None, "does not compile: " + (p.stderr.strip().splitlines() or [""])[0]
    info = json.loads(p.stdout)
    params = [x["name"] for x in info["parameters"]]
    eqs = [e["name"] for e in info["equations"] if not e["vector"]]
    if not params or not eqs:
        return None, "no parameters or no scalar top-level equation"
    m = Model(label, path, include, points_fn(info["parameters"]))
    m.params = params
    m.equations = eqs
    # The simulator runs a model's processes (a region counter or a numeric equation is no
    # process); a model with machine or library imports keeps to the evaluators.
    if not re.search(r"^\s*import\b", text, re.M):
        m.processes = [e for e in eqs if e.startswith("T_") and re.search(r"\bprocess\s+%s\b" % re.escape(e[2:]), text)]
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


def compare(models, backends, problems):
    """Every backend against the reference at every (point, equation): any disagreement is a
    problem, none is excused. Returns counts."""
    count = {"values": 0, "no value": 0, "left out": 0}
    per_backend = {b: 0 for b in backends}
    for m in models:
        for pi in range(len(m.points)):
            for e in m.equations:
                key = (pi, e)
                ref = m.results.get("exact", {}).get(key)
                if ref is None:  # exact past its budget: brute force is the reference
                    ref = m.results.get("brute", {}).get(key)
                if ref is None:
                    count["left out"] += 1
                    continue
                count["no value" if ref == NOVAL else "values"] += 1
                for b in backends:
                    if b == "simulate" and e not in m.processes:
                        continue
                    if key in m.unknown.get(b, ()):
                        continue
                    v = m.results.get(b, {}).get(key)
                    if b == "simulate":
                        # The simulator's time is not the cost model's bound: only whether
                        # the point has a value is compared.
                        ok = v is not None and (v == NOVAL) == (ref == NOVAL)
                    else:
                        ok = v is not None and agree(ref, v)
                    if ok:
                        per_backend[b] += 1
                        continue
                    problems.append("%s: %s at %s: exact %r, %s %r" % (m.label, e, m.points[pi], ref, b, v))
            if pi in m.holds and pi in m.violated and m.holds[pi] == bool(m.violated[pi]):
                problems.append("%s at %s: C++ assumptions_hold() is %s, Python violated_assumptions() %r"
                                % (m.label, m.points[pi], m.holds[pi], m.violated[pi]))
    return count, per_backend


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pamc", required=True)
    ap.add_argument("--models", type=int, default=60, help="random models (default 60)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--points", type=int, default=2, help="valid points per model (default 2)")
    ap.add_argument("--invalid", type=int, default=2, help="invalid points per model (default 2)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--only", help="one model file (with -D points) instead of the whole set")
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    build = os.path.dirname(pamc)
    tool = os.path.join(build, "runtime", "pamela_eval")
    if not os.path.exists(tool):
        print("FAIL: the library's pamela_eval (build target pamela_eval) not found at %s" % tool)
        return 1
    if not shutil.which("g++"):
        print("FAIL: g++ not found")
        return 1
    compilers = ["g++"]
    if shutil.which("clang++"):
        compilers.append("clang++")
    else:
        print("note: clang++ not installed; skipping the clang half of the warning check")
    # Every evaluator is compared: without Octave the emitted .m files would go unchecked.
    have_octave = shutil.which("octave-cli") is not None
    if not have_octave:
        print("FAIL: octave-cli not found (./scripts/install-deps.sh test installs it): the emitted Octave is one of the evaluators compared")
        return 1

    work = tempfile.mkdtemp(prefix="pamc-crosscheck-")
    rng = random.Random(args.seed)
    models, notes, problems = [], [], []

    def sample_pts(params, rel=None):
        valid = sample_points(rng, params, args.points)
        if rel == os.path.join("samples", "mrm.pam"):
            valid[0] = {"P": 1000, "N": 1e6}
        d = defaults_point(params, valid[0])
        return valid + invalid_points(rng, params, valid, args.invalid, 10 ** 4) + ([d] if d else [])

    try:
        if args.only:
            with open(args.only) as f:
                text = f.read()
            m, why = prepare(pamc, work, args.only, text, os.path.dirname(os.path.abspath(args.only)), "only",
                             lambda params: listed_points(text) + sample_pts(params))
            if not m:
                print("FAIL: " + why)
                return 1
            models.append(m)
            n_samples = 1
            n_random = n_vector = 0
        else:
            # every model under samples/ (its folders too: aspen/, tzetar_mv/, local/, corpus/),
            # the golden and emit models, and the cases each written for a disagreement once seen
            files = (sorted(glob.glob(os.path.join(ROOT, "samples", "**", "*.pam"), recursive=True)) +
                     sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.pam"))) +
                     sorted(glob.glob(os.path.join(ROOT, "tests", "emit", "models", "*.pam"))) +
                     sorted(glob.glob(os.path.join(ROOT, "tests", "crosscheck", "cases", "*.pam"))))
            for src in files:
                rel = os.path.relpath(src, ROOT)
                stem = re.sub(r"\W", "_", os.path.splitext(rel)[0].replace(os.sep, "_"))
                with open(src) as f:
                    text = f.read()
                listed = listed_points(text)
                m, why = prepare(pamc, work, rel, text, os.path.dirname(src), stem,
                                 lambda params, rel=rel, listed=listed: listed + sample_pts(params, rel))
                if m:
                    models.append(m)
                elif args.verbose:
                    notes.append("skip %s: %s" % (rel, why))
            n_samples = len(models)
            # Hostile names (file stem "1-bad name").
            m, why = prepare(pamc, work, "hostile", HOSTILE, work, "1-bad name", sample_pts)
            if not m:
                problems.append("the hostile-names model: " + why)
            else:
                models.append(m)
            # Random models until --models of them have emitted code. A closed form that keeps
            # a vector inside a scalar has no scalar code form yet: such models are counted.
            n_random = n_vector = 0
            for seed in range(args.seed, args.seed + 4 * args.models):
                if n_random == args.models:
                    break
                gen = ModelGenerator(seed)
                text = gen.model()

                def random_pts(params, gen=gen):
                    valid = gen.points(args.points)
                    return valid + invalid_points(gen.rng, params, valid, args.invalid, 1000)
                m, why = prepare(pamc, work, "random seed %d" % seed, text, work, "random_%04d" % seed, random_pts)
                if m:
                    models.append(m)
                    n_random += 1
                elif "vector-valued" in why:
                    n_vector += 1
                else:
                    problems.append("random seed %d: %s\n%s" % (seed, why, text))
            if n_random < args.models:
                problems.append("only %d random models had emitted code" % n_random)
        problems += backend_library(tool, work, models)  # first: the points it refuses are left out of C++
        problems += backend_cpp(compilers, work, models, 40)
        if have_octave:
            problems += backend_octave(pamc, work, models, args.jobs)
        py_problems, have_python = backend_python(build, work, models)
        problems += py_problems
        problems += backend_pamc(pamc, models, args.jobs)

        backends = (["point", "brute", "library", "cpp"] + (["python", "python array"] if have_python else []) +
                    (["octave"] if have_octave else []) + ["simulate"])
        count, per_backend = compare(models, backends, problems)
        if not args.only:
            problems += check_simulator_position(pamc)
        n_points = sum(len(m.points) for m in models)
        left = {b: len(m.unknown.get(b, ())) for m in models for b in m.unknown}
        left = {b: sum(len(m.unknown.get(b, ())) for m in models) for b in ("exact", "point", "brute", "simulate", "octave", "library", "cpp")}
        print("models: %d samples, golden, emit and case models, 1 hostile-names, %d random (%d more random "
              "models skipped: a vector inside the closed form, no scalar code form); %d points"
              % (n_samples, n_random, n_vector, n_points))
        print("(point, equation) pairs: %d with a value, %d without, %d left out (no reference)"
              % (count["values"], count["no value"], count["left out"]))
        print("agreeing with exact pamc eval: " + ", ".join("%s %d" % (b, n) for b, n in per_backend.items()))
        print("past their budgets (Octave: loops of more than %d terms at the point), not compared: %s"
              % (OCTAVE_MAX_TERMS, ", ".join("%s %d" % kv for kv in left.items())))
        print("C++ headers compiled warning-free by: " + ", ".join(compilers))
        for n in notes:
            print(n)
        if problems:
            for p in (problems if args.verbose else problems[:60]):
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
