#!/usr/bin/env python3
"""Every ```pamela block in docs/*.md and README.md is a complete model: `pamc check`
must accept it, so the documentation cannot drift from the language."""
import argparse, glob, os, re, subprocess, sys, tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    a = ap.parse_args()
    files = sorted(glob.glob("docs/*.md")) + ["README.md"]
    failures = count = 0
    tmp = tempfile.mkdtemp(prefix="pamc-docs-")
    for md in files:
        if not os.path.exists(md):
            continue
        text = open(md).read()
        for n, block in enumerate(re.findall(r"```pamela\n(.*?)```", text, re.S)):
            count += 1
            path = os.path.join(tmp, f"{os.path.basename(md)}_{n}.pam")
            with open(path, "w") as f:
                f.write(block)
            p = subprocess.run([a.pamc, "check", path], capture_output=True, text=True, timeout=30)
            if p.returncode != 0:
                failures += 1
                print(f"FAIL {md} block {n}:\n{block}\n{p.stderr}")
    print(f"{count - failures} of {count} documentation models check")
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
