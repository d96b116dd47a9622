#!/usr/bin/env python3
"""Dominated arms in the corpus's closed forms (run on demand; not a CTest test).

For every corpus model whose T_main closes with a max or min, `pamc explain --json` is run
at 40 random points where each parameter is negative, zero, fractional, small or huge; an
arm of a max that is at or below another arm at every point where both have a value (of a
min: at or above) is reported. Such an arm is most likely redundant (the simplifier could
not prove it so); a legitimately needed arm wins somewhere among these points.

  python3 tests/corpus/dominated_arms.py [build/pamc]
"""
import glob, json, os, random, re, subprocess, sys
PAMC = sys.argv[1] if len(sys.argv) > 1 else "build/pamc"
OPEN = re.compile(r"\b(sum|max|min) \(\w+ =")
rng = random.Random(7)
flag = 0; models = 0
for path in sorted(glob.glob("samples/corpus/*.pam")):
    out = subprocess.run([PAMC, "compile", path], capture_output=True, text=True).stdout
    t = [l for l in out.splitlines() if l.startswith("numeric T_main")]
    if not t or OPEN.search(t[0]) or "max(" not in out and "min(" not in out: continue
    params = re.findall(r"^numeric parameter (\w+)", open(path).read(), re.M)
    models += 1
    arms = {}  # (node, k) -> list of (value, others)
    for _ in range(40):
        pt = {p: rng.choice([-3, 0, 0.5, 1, 2, 3, 4, 5, 7, 8, 12, 16, 30, 64, 100, 1000, 1000000]) for p in params}
        args = [PAMC, "explain", path, "--json"] + sum([["-D", f"{k}={v}"] for k, v in pt.items()], [])
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode: continue
        try: j = json.loads(r.stdout)
        except Exception: continue
        for eq in j.values():
            for x in eq.get("extrema", []):
                vals = [a.get("value") for a in x["args"]]
                if any(v is None for v in vals): continue
                key = (x["expression"], x["kind"])
                arms.setdefault(key, []).append(vals)
    for (expr, kind), rows in arms.items():
        n = len(rows[0])
        for a in range(n):
            for b in range(n):
                if a == b or any(len(r) != n for r in rows): continue
                if kind == "max" and all(r[a] <= r[b] for r in rows) or kind == "min" and all(r[a] >= r[b] for r in rows):
                    flag += 1
                    print(f"{os.path.basename(path)}: {kind} arm {a} dominated by {b} at {len(rows)} points: {expr[:160]}")
                    break
print(f"{flag} dominated arms in {models} models")
