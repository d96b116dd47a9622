#!/usr/bin/env python3
"""Golden tests: every tests/golden/*.pam is compiled at each stage and the output compared
with <name>.<stage>.out beside it; `% eval:` lines in the model give evaluations and their
exact expected output:

    % eval: -D P=1000 -D N=1000000 => numeric T_main = 100000000
    % eval-json: --target T_main => {"T_main": 100000000}

Run with --update to rewrite the .out files (review the diff before committing)."""
import argparse, difflib, glob, os, re, shlex, subprocess, sys

STAGES = ["parsed", "normalized", "time", "simplified"]


def run(pamc, args):
    p = subprocess.run([pamc, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    models = a.models or sorted(glob.glob(os.path.join(here, "*.pam")))
    failures = 0
    checks = 0
    for model in models:
        base = model[:-4]
        rel = os.path.relpath(model)
        for stage in STAGES:
            rc, out, err = run(a.pamc, ["compile", model, "--stage", stage, "--all"])
            checks += 1
            if rc != 0:
                print(f"FAIL {rel} --stage {stage}: exit {rc}\n{err}")
                failures += 1
                continue
            expected_path = f"{base}.{stage}.out"
            if a.update:
                with open(expected_path, "w") as f:
                    f.write(out)
                continue
            if not os.path.exists(expected_path):
                print(f"FAIL {rel} --stage {stage}: no {os.path.relpath(expected_path)} (run with --update)")
                failures += 1
                continue
            expected = open(expected_path).read()
            if out != expected:
                diff = "".join(difflib.unified_diff(expected.splitlines(True), out.splitlines(True),
                                                    "expected", "got"))
                print(f"FAIL {rel} --stage {stage}:\n{diff}")
                failures += 1
        for line in open(model, encoding="utf-8", errors="replace"):
            m = re.match(r"\s*%\s*eval(-json)?:\s*(.*?)\s*=>\s*(.*?)\s*$", line)
            if not m:
                continue
            checks += 1
            args = ["eval", model, *shlex.split(m.group(2))]
            if m.group(1):
                args.append("--json")
            rc, out, err = run(a.pamc, args)
            got = out.strip()
            want = m.group(3).replace(" ; ", "\n")
            if rc != 0 or got != want:
                print(f"FAIL {rel}: pamc {' '.join(args[2:])}\n  want: {want!r}\n  got:  {got!r} (exit {rc}) {err.strip()}")
                failures += 1
    print(f"{checks - failures} of {checks} golden checks passed over {len(models)} models")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
