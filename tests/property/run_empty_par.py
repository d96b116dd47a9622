"""Regression test: an empty `par` range takes no time (SPEC section 2, fine points: "an
empty range (lb > ub) gives ... 0 time and no workload for seq/par"), in the compiled bound
as in the simulator. Found by run_sim_property.py (and fixed independently): the bound lowered
`par (i = l, u) B` to `max(max_i T_B, omega)`, whose `max (i = 1, 0)` was an evaluation
error ("max over an empty range"), and with a symbolic bound the simplifier recorded
`% assumes N >= 1` so that `eval -D N=0` failed; fixed in 8294568 ("An empty par takes no
time").

Expected: each model below evaluates to the simulated value."""
import argparse, json, os, subprocess, sys, tempfile

CASES = [
    ("process main = par (p = 1, 0) delay(1)\n", {}, 0),
    ("process main = { par (p = 1, 0) delay(1) } ; delay(2)\n", {}, 2),
    ("numeric parameter N\nprocess main = par (p = 1, N) delay(1)\n", {"N": 0}, 0),
    ("numeric parameter N\nprocess main = seq (i = 1, 2) { par (p = 1, N) delay(1) ; delay(2) }\n", {"N": 0}, 4),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    pamc = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-emptypar-")
    fails = 0
    for n, (text, params, want) in enumerate(CASES):
        path = os.path.join(tmp, f"case{n}.pam")
        with open(path, "w") as f:
            f.write(text)
        defs = sum((["-D", f"{k}={v}"] for k, v in params.items()), [])
        got = {}
        for cmd in ("eval", "simulate"):
            p = subprocess.run([pamc, cmd, path, "--json", *defs], capture_output=True, text=True, timeout=60)
            if p.returncode != 0:
                got[cmd] = "error: " + p.stderr.strip().splitlines()[0]
            else:
                v = json.loads(p.stdout)["T_main"]
                got[cmd] = v["mean"] if isinstance(v, dict) else v
        ok = all(got[c] == want for c in got)
        fails += not ok
        print(("ok  " if ok else "FAIL"), text.strip().replace("\n", " | "), params, "want", want, got)
        os.remove(path)
    os.rmdir(tmp)
    print(f"{len(CASES)} cases, {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
