#!/usr/bin/env python3
"""Ablation over the corpus (samples/corpus/): no rule is needed for a right value.

For every corpus model, the rules that fire while it compiles are read from the
simplifier's trace (PAMC_TRACE_RULES). Then, for each such rule, the model is compiled and
evaluated at every `% expect:` point with that rule left out (PAMC_DISABLE_RULES): the value
must still be the expected one (a closed form by other rules, or the unsimplified model),
and the compile must still succeed. The script fails on any wrong value or failed command.

It also reports, per rule, the models that stay open without it: a rule that closes models
no other rule closes is load-bearing (a lemma the general path does not cover yet). That
table is what the load algebra's "shape rules become lemmas" step is measured by; it is
printed, not enforced.

  run_ablation.py [--pamc build/pamc] [--only NAME.pam]
"""
import argparse, glob, os, re, subprocess, sys
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import harness  # noqa: E402
from harness import check  # noqa: E402

CORPUS = os.path.join(harness.ROOT, "samples", "corpus")
OPEN_REDUCTION = re.compile(r"\b(sum|max|min) \(\w+ =")


def run(args, disabled=None, trace=False):
    env = dict(os.environ)
    env.pop("PAMC_TRACE_RULES", None)
    env.pop("PAMC_DISABLE_RULES", None)
    if disabled:
        env["PAMC_DISABLE_RULES"] = disabled
    if trace:
        env["PAMC_TRACE_RULES"] = "1"
    p = subprocess.run([harness.PAMC, *args], capture_output=True, text=True, timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr


def same(a, b):
    try:
        x, y = Fraction(a), Fraction(b)
        return x == y
    except (ValueError, ZeroDivisionError):
        x, y = float(a), float(b)
        return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def expects(path):
    out = []
    for line in open(path):
        if not line.startswith("%"):
            break
        m = re.match(r"% expect: (.*) => (\S+)", line)
        if m:
            out.append((dict(kv.split("=") for kv in m.group(1).split()), m.group(2)))
    return out


def is_closed(stdout):
    t = [l for l in stdout.splitlines() if l.startswith("numeric T_main")]
    return bool(t) and not OPEN_REDUCTION.search(t[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--only")
    a = ap.parse_args()
    harness.PAMC = a.pamc
    models = sorted(glob.glob(os.path.join(CORPUS, "*.pam")))
    if a.only:
        models = [m for m in models if os.path.basename(m) == a.only]
    load_bearing = {}  # rule -> models that stay open without it
    runs = 0
    refused = []  # points too large to evaluate once a rule is left out
    for path in models:
        name = os.path.basename(path)
        rc, out, err = run(["compile", path], trace=True)
        check(f"{name}: compiles", rc == 0, err[-500:])
        fired = sorted(set(re.findall(r"^rule (\w+)", err, re.M)))
        closed = is_closed(out)
        points = expects(path)
        for rule in fired:
            rc, out2, err2 = run(["compile", path], disabled=rule)
            check(f"{name} without {rule}: compiles", rc == 0, err2[-300:])
            if closed and not is_closed(out2):
                load_bearing.setdefault(rule, []).append(name)
            for point, want in points:
                defs = [x for k, v in point.items() for x in ("-D", f"{k}={v}")]
                rc, out3, err3 = run(["eval", path, "--target", "T_main", *defs], disabled=rule)
                m = re.search(r"T_main = (\S+)", out3)
                at = " ".join(f"{k}={v}" for k, v in point.items())
                runs += 1
                # Left open, the model may be too large to evaluate term by term: a located
                # refusal is no wrong value (counted apart).
                if rc == 1 and "[WorkLimit]" in err3:
                    refused.append(f"{name} without {rule} at {at}")
                    continue
                check(f"{name} without {rule} at {at}", rc == 0 and m is not None and same(m.group(1), want),
                      f"want {want}, got {out3 or err3}")
    print(f"ablation: {runs} values checked with one rule left out; {len(refused)} refused as too large"
          f" to evaluate unsimplified ({', '.join(refused[:3])}{', ...' if len(refused) > 3 else ''})")
    print("rules that some corpus model needs to close (no other rule closes it yet):")
    for rule, names in sorted(load_bearing.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  {rule}: {len(names)} ({', '.join(names[:6])}{', ...' if len(names) > 6 else ''})")
    return harness.summary("ablation checks")


if __name__ == "__main__":
    sys.exit(main())
