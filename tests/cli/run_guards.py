#!/usr/bin/env python3
"""A branch not taken is not evaluated (docs/semantics.md, Conditions): a boundary guard
`if (p > 0) use(link(p - 1), t)` at p = 0 names no link(-1), and `if (k < N) delay(6 / (N - k))`
at k = N divides by nothing. `pamc eval` (closed or open), `eval --brute-force` and
`simulate` give the value counted by hand, and a guard does not hide a real error."""
import argparse, os, shutil, subprocess, tempfile

import harness
from harness import check, pamc

OPEN_POSITIONS = """numeric parameter P
resource link(p) = fcfs(p, 1)
process main = par (p = 0, P - 1) if (p * p mod 5 > 0) use(link(p * p mod 5 - 1), 5)
"""
ELSE_BRANCH = """numeric parameter P
resource a = fcfs(100, 1)
resource link(p) = fcfs(p, 1)
process main = par (p = 0, P - 1) if (p == 0) use(a, 3) else use(link((p * p) mod 5 - 1), 2)
"""
DIVISION = """numeric parameter N
process main = seq (k = 1, N) if (k < N) delay(6 / (N - k)) else delay(1)
"""
EDGES = """numeric parameter P
numeric parameter N
resource cpu(p) = fcfs(p, 1)
resource link(p) = fcfs(P + p, 1)
process main = par (p = 0, P - 1) { if (p > 0) use(link(p - 1), N) ; use(cpu(p), N * N / P) ; if (p < P - 1) use(link(p), N) }
"""


def value(out, name="T_main"):
    for line in out.splitlines():
        if line.startswith("numeric " + name + " = "):
            return float(line.split("= ", 1)[1])
    return None


def agree(tmp, label, text, defines, want, simulated=None):
    path = harness.write(tmp, label.replace(" ", "_") + ".pam", text)
    d = sum((["-D", x] for x in defines), [])
    for how in ("--closed-form", None):  # the closed form, and the model simplified at the point
        rc, out, err = pamc("eval", *([how] if how else []), path, *d)
        check(f"{label}: eval {how or ''}gives {want}", rc == 0 and value(out) == want, f"rc={rc} {out} {err[:300]}")
    rc, out, err = pamc("eval", "--brute-force", path, *d)
    check(f"{label}: brute force gives {want}", rc == 0 and value(out) == want, f"rc={rc} {out} {err[:300]}")
    rc, out, err = pamc("simulate", path, *d)
    sim = None
    for line in out.splitlines():
        if line.startswith("T_main = "):
            sim = float(line.split("= ", 1)[1])
    want_sim = want if simulated is None else simulated
    check(f"{label}: simulate gives {want_sim}", rc == 0 and sim == want_sim, f"rc={rc} {out[:300]} {err[:300]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-guards-")
    # p = 0..6, p^2 mod 5 = 0 1 4 4 1 0 1: link(0) serves p = 1, 4, 6 (15), link(3) p = 2, 3.
    agree(tmp, "open guarded positions", OPEN_POSITIONS, ["P=7"], 15)
    # p = 1..4 use link(0), link(3), link(3), link(0) for 2 each; p = 0 uses a for 3.
    agree(tmp, "else branch", ELSE_BRANCH, ["P=5"], 4)
    # 6/3 + 6/2 + 6/1 + 1
    agree(tmp, "guarded division", DIVISION, ["N=4"], 12)
    # closed: an inner process does N^2/P + 2N = 4 + 4 + 4 at N = 4, P = 4; the simulator
    # queues the neighbours on the shared links (above the bound, as a bound allows).
    path = harness.write(tmp, "edges.pam", EDGES)
    rc, out, err = pamc("compile", path)
    check("edges: closes (no sum or max over p left)", rc == 0 and "sum (" not in out and "max (p" not in out, out)
    agree(tmp, "edges", EDGES, ["P=4", "N=4"], 12, simulated=None)

    # The emitted C++ and Octave add nothing for a zero weight either.
    path = harness.write(tmp, "emitted.pam", OPEN_POSITIONS)
    rc, out, err = pamc("compile", "--emit", "cpp", path, "-o", os.path.join(tmp, "emitted.hpp"))
    main_cpp = harness.write(tmp, "main.cpp", '#include <cstdio>\n#include "emitted.hpp"\n'
                             'int main() { std::printf("%g\\n", emitted::T_main(7)); }\n')
    built = subprocess.run(["c++", "-std=c++17", "-O1", main_cpp, "-o", os.path.join(tmp, "main")],
                           capture_output=True, text=True)
    run = subprocess.run([os.path.join(tmp, "main")], capture_output=True, text=True) if built.returncode == 0 else None
    check("open guarded positions: emitted C++ gives 15", rc == 0 and run is not None and run.stdout.strip() == "15",
          f"rc={rc} {err[:200]} {built.stderr[:300]} {run.stdout if run else ''}")
    if shutil.which("octave-cli"):
        folder = os.path.join(tmp, "oct")
        rc, out, err = pamc("compile", "--emit", "octave", path, "-o", folder)
        oct = subprocess.run(["octave-cli", "--no-gui", "--quiet", "--eval", "disp(T_main(7))"], cwd=folder,
                             capture_output=True, text=True, timeout=120)
        check("open guarded positions: emitted Octave gives 15", rc == 0 and oct.stdout.strip() == "15",
              f"rc={rc} {err[:200]} {oct.stdout[:200]} {oct.stderr[:300]}")

    # A guard that is true does not hide the missing resource: p = 5 has p^2 mod 5 = 0, but
    # the else branch (p != 0) asks for link(-1).
    path = harness.write(tmp, "taken.pam", ELSE_BRANCH)
    for how in ("--closed-form", None):
        rc, out, err = pamc("eval", *([how] if how else []), path, "-D", "P=6")
        check(f"a taken branch at position -1 is still a located error {how or ''}", rc == 1 and "taken.pam:4:" in err and
              "unitvec position -1" in err, f"rc={rc} {out} {err[:300]}")
    return harness.summary("guard checks")


if __name__ == "__main__":
    raise SystemExit(main())
