#!/usr/bin/env python3
"""`pamc compile --emit sympy` of every sample and corpus model: the module imports under
SymPy (python3-sympy), and each top-level equation, evaluated by SymPy at two points
(the module's evaluate(): the closed form where its assumptions hold, else the time-domain
form, as pamc eval chooses), equals `pamc eval --json` at the same points, to 1e-12
relative (exactly where both are rational). Also: the MRM's expression is
N*Max(P/10, 101/10) as SymPy writes it, and differentiates by P. Exit 77 without SymPy."""
import argparse, glob, importlib.util, json, os, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

try:
    import sympy as sp
except ImportError:
    print("SKIPPED: SymPy not found (apt-get install python3-sympy)")
    sys.exit(77)


def models():
    pats = ["samples/*.pam", "samples/*/*.pam"]
    return sorted({os.path.realpath(f) for p in pats for f in glob.glob(os.path.join(ROOT, p))})


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pamc_eval(pamc, model, point):
    args = [pamc, "eval", "--json", model]
    for k, v in point.items():
        args += ["-D", f"{k}={v}"]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    return json.loads(p.stdout) if p.returncode == 0 else None


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-12 * max(abs(a), abs(b)) or abs(a - b) < 1e-300


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    pamc = os.path.abspath(ap.parse_args().pamc)
    tmp = tempfile.mkdtemp(prefix="pamc-sympy-")
    failures, compared, points_total = [], 0, 0
    open_vectors = []
    for k, model in enumerate(models()):
        name = os.path.relpath(model, ROOT)
        out = os.path.join(tmp, f"m{k}.py")
        p = subprocess.run([pamc, "compile", "--emit", "sympy", "-o", out, model], capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            failures.append(f"{name}: pamc exited {p.returncode}: {p.stderr[:300]}")
            continue
        try:
            m = load(out, f"m{k}")
        except Exception as e:  # the module must import
            failures.append(f"{name}: the module does not import: {e!r}")
            continue
        free = [s.name for s in m.parameters if s not in m.defaults]
        points = []
        for v in [4, 8, 16, 64, 2, 1, 3]:
            point = {f: v for f in free}
            expected = pamc_eval(pamc, model, point)
            if expected is not None:
                points.append((point, expected))
            if len(points) == 2:
                break
        if not points:
            failures.append(f"{name}: no point where pamc eval gives values (free parameters {free})")
        for point, expected in points:
            points_total += 1
            for eq in m.equations:
                want = expected.get(eq)
                if isinstance(want, (list, dict)):
                    continue
                try:
                    got = m.evaluate(eq, **point)
                    got = None if got in (sp.nan, sp.zoo, sp.oo, -sp.oo) else float(sp.N(got, 30))
                except Exception as e:
                    # An open resource vector (pamc_vmax over sums of unitvec) SymPy cannot
                    # always add up: a documented limit, counted; a number that differs fails.
                    if "pamc_vmax(" in open(out).read():
                        open_vectors.append(f"{name} {eq}")
                        continue
                    failures.append(f"{name} {eq} at {point}: SymPy raised {e!r}")
                    continue
                compared += 1
                if not same(got, None if want is None else float(want)):
                    failures.append(f"{name} {eq} at {point}: SymPy {got}, pamc eval {want}")
    # What a user does with it.
    p = subprocess.run([pamc, "compile", "--emit", "sympy", "-o", os.path.join(tmp, "mrm.py"),
                        os.path.join(ROOT, "samples", "mrm.pam")], capture_output=True, text=True)
    mrm = load(os.path.join(tmp, "mrm.py"), "mrm")
    if mrm.T_main != mrm.N * sp.Max(mrm.P / 10, sp.Rational(101, 10)):
        failures.append(f"mrm: T_main is {mrm.T_main}")
    slope = sp.diff(mrm.T_main, mrm.P).subs({mrm.P: 200, mrm.N: 10})
    if slope != 1:  # N / 10 where 0.1 P > 10.1
        failures.append(f"mrm: d T_main / d P at P = 200, N = 10 is {slope}, not 1")
    if open_vectors:
        print("not evaluated by SymPy (an open resource vector it cannot add up): %d: %s"
              % (len(open_vectors), ", ".join(sorted(set(open_vectors)))))
    for f in failures:
        print("FAIL " + f)
    print(f"{compared} values of {len(models())} models at {points_total} points compared; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
