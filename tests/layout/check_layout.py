#!/usr/bin/env python3
"""pamc's printed cost model must not depend on the executable's layout.

GiNaC seeds its hashes with the addresses of type names, so its canonical term order
(and with it the form factor() and expand() return, and the order a rule meets operands
in) changes whenever code or data before GiNaC in the executable changes size. The
printer and the rules must not let that show (docs/design.md, "Deterministic output").
pamc_layout_probe is pamc with 12 KB of data linked in ahead of GiNaC; this compiles every
sample, every golden model and a generated 300-process model with both and compares the
output of `compile --all` (phi_, delta_, omega_ and T_ of every process) byte for byte.

  check_layout.py --pamc build/pamc --probe build/pamc_layout_probe
"""
import argparse, glob, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
import compile_bench  # noqa: E402  (the generated benchmark models)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--probe", default="build/pamc_layout_probe")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="pamc-layout-")
    generated = os.path.join(tmp, "generated300.pam")
    with open(generated, "w") as f:
        f.write(compile_bench.model(300))
    models = sorted(glob.glob(os.path.join(ROOT, "samples", "*.pam"))) + \
        sorted(glob.glob(os.path.join(ROOT, "samples", "corpus", "*.pam"))) + \
        sorted(glob.glob(os.path.join(ROOT, "tests", "emit", "models", "*.pam"))) + \
        sorted(glob.glob(os.path.join(ROOT, "tests", "golden", "*.pam"))) + [generated]
    failures = 0
    for m in models:
        outs = []
        for exe in (a.pamc, a.probe):
            p = subprocess.run([exe, "compile", "--all", m], capture_output=True, text=True, timeout=300)
            outs.append((p.returncode, p.stdout, p.stderr))
        if outs[0] != outs[1]:
            failures += 1
            print(f"FAIL {os.path.relpath(m, ROOT)}: compile --all differs between pamc and the probe")
            for x, y in zip(outs[0][1].splitlines(), outs[1][1].splitlines()):
                if x != y:
                    print(f"  pamc:  {x[:300]}\n  probe: {y[:300]}")
                    break
    print(f"{len(models) - failures} of {len(models)} models print the same from both layouts")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
