#!/usr/bin/env python3
"""Every unit test case can be run by CTest under its own name.

CTest's test list is a CMake list, so a `;` in a doctest TEST_CASE name cuts the name there:
CTest then runs the binary with a filter that matches no test case, and doctest, finding
nothing to run, reports success. Nine test cases were silently never run that way (one of
them had been failing since the parser made a chain of `;` one node). This check fails,
naming the file and line, on any TEST_CASE name with a `;`.

  run_test_names.py [--pamc build/pamc]   (--pamc is accepted and unused: CTest passes it)
"""
import argparse, glob, os, re, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.parse_args()
    bad, seen = [], 0
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "unit", "*.cpp"))):
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            for name in re.findall(r'TEST_CASE\("((?:[^"\\]|\\.)*)"', line):
                seen += 1
                if ";" in name:
                    bad.append(f"{os.path.relpath(path, ROOT)}:{n}: TEST_CASE name has a ';' (CTest cuts it there): {name}")
    if seen < 100:
        print(f"run_test_names: only {seen} TEST_CASE names found; the pattern no longer matches the tests")
        return 1
    for b in bad:
        print(b)
    print(f"run_test_names: {seen} test case names, {len(bad)} with a ';'")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
