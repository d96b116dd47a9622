#!/usr/bin/env python3
"""The corpus (samples/corpus/): models written as performance engineers write them, with no
parameter bounds, each with a hand-derived closed form and exact values in its header.

For every model: `pamc compile` must succeed and leave T_main closed (no sum/max/min over
an index), unless samples/corpus/OPEN.txt lists it with a reason; at every `% expect:`
point, `pamc eval --closed-form`, `pamc eval` (simplified at the point), `pamc eval
--brute-force` and the header's own closed form must give
the expected value; and `pamc simulate` at the smallest point must not beat the bound
(T_main is a lower bound)."""
import argparse, glob, os, re, sys, tempfile
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import harness  # noqa: E402
from harness import check, pamc  # noqa: E402

CORPUS = os.path.join(harness.ROOT, "samples", "corpus")
OPEN_REDUCTION = re.compile(r"\b(sum|max|min) \(\w+ =")


NESTED_ROUNDING = re.compile(r"(ceil|floor)\((ceil|floor)\(")


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
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def value_of(stdout):
    m = re.search(r"T_main = (\S+)", stdout)
    return m.group(1) if m else None


def header(path):
    h = {"expect": []}
    for line in open(path):
        if not line.startswith("%"):
            break
        m = re.match(r"% (family|model|closed form|derivation): (.*)", line)
        if m:
            h[m.group(1)] = m.group(2).strip()
        m = re.match(r"% expect: (.*) => (\S+)(.*)", line)
        if m:
            point = dict(kv.split("=") for kv in m.group(1).split())
            h["expect"].append((point, m.group(2), "too large for brute force" in m.group(3)))
    return h


def defines(point):
    return [a for k, v in point.items() for a in ("-D", f"{k}={v}")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    a = ap.parse_args()
    harness.PAMC = a.pamc
    known_open = {}
    open_txt = os.path.join(CORPUS, "OPEN.txt")
    if os.path.exists(open_txt):
        for line in open(open_txt):
            if ":" in line and not line.startswith("#"):
                name, why = line.split(":", 1)
                known_open[name.strip()] = why.strip()
    tmp = tempfile.mkdtemp(prefix="pamc-corpus-")
    models = sorted(glob.glob(os.path.join(CORPUS, "*.pam")))
    closed = 0
    for path in models:
        name = os.path.basename(path)
        h = header(path)
        check(f"{name}: header", "closed form" in h and len(h["expect"]) >= 3 and "family" in h,
              "needs family, closed form and at least three expect lines")
        rc, out, err = pamc("compile", path)
        check(f"{name}: compiles", rc == 0, err)
        t_main = [l for l in out.splitlines() if l.startswith("numeric T_main")]
        is_closed = rc == 0 and t_main and not OPEN_REDUCTION.search(t_main[0])
        if is_closed:
            closed += 1
            if name in known_open:
                print(f"note: {name} now closes; remove it from OPEN.txt")
        else:
            check(f"{name}: T_main closed", name in known_open, t_main[0] if t_main else err)
        if t_main:
            check(f"{name}: no rounding of a rounding", not NESTED_ROUNDING.search(t_main[0]), t_main[0])
        # The header's closed form, as a model of its own.
        params = re.findall(r"^numeric parameter (\w+)", open(path).read(), re.M)
        form = os.path.join(tmp, name)
        with open(form, "w") as f:
            f.write("".join(f"numeric parameter {p}\n" for p in params))
            f.write(f"numeric T_main = {h.get('closed form', '0').split('=', 1)[-1].strip()}\n")
        for point, want, too_large in h["expect"]:
            at = " ".join(f"{k}={v}" for k, v in point.items())
            for how in (["--closed-form"], []):  # the closed form, and the model simplified at the point
                rc, out, err = pamc("eval", path, "--target", "T_main", *how, *defines(point))
                got = value_of(out)
                check(f"{name} at {at}: eval {' '.join(how)}", rc == 0 and got is not None and same(got, want),
                      f"want {want}, got {out or err}")
            if not too_large:
                rc, out, err = pamc("eval", path, "--target", "T_main", "--brute-force", *defines(point))
                got = value_of(out)
                check(f"{name} at {at}: brute force", rc == 0 and got is not None and same(got, want),
                      f"want {want}, got {out or err}")
            rc, out, err = pamc("eval", form, *defines(point))
            got = value_of(out)
            check(f"{name} at {at}: header's closed form", rc == 0 and got is not None and same(got, want),
                  f"want {want}, got {out or err}")
        # The bound against a deterministic simulation at the smallest point.
        if h["expect"]:
            point, want, _ = min(h["expect"], key=lambda pw: sum(abs(float(v)) for v in pw[0].values()))
            rc, out, err = pamc("simulate", path, "--target", "main", "--max-events", "2000000", *defines(point))
            if rc == 0:
                m = re.search(r"= (\S+)", out)
                check(f"{name}: simulate >= bound", m is not None and float(m.group(1)) >= float(want) * (1 - 1e-9) - 1e-12,
                      f"bound {want}, simulated {out.strip()}")
    # A printed form a person would write: the wavefront, with N >= 1 declared, in at most
    # 120 characters (its sums over diagonals collected over their counts (a + 1)).
    wave = open(os.path.join(CORPUS, "wavefront.pam")).read().replace("numeric parameter N\n", "numeric parameter N >= 1\n")
    wave_path = os.path.join(tmp, "wavefront_n1.pam")
    with open(wave_path, "w") as f:
        f.write(wave)
    rc, out, err = pamc("compile", wave_path)
    form = [l.split("=", 1)[1].strip() for l in out.splitlines() if l.startswith("numeric T_main")]
    check("wavefront with N >= 1: T_main in <= 120 characters", rc == 0 and form and len(form[0]) <= 120,
          form[0] if form else err)
    print(f"corpus: {closed} of {len(models)} closed")
    check("corpus has at least 30 models", len(models) >= 30, str(len(models)))
    return harness.summary("corpus checks")


if __name__ == "__main__":
    sys.exit(main())
