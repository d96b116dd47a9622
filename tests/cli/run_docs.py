#!/usr/bin/env python3
"""The documentation against pamc itself:

1. Every ```pamela block in docs/*.md and README.md is a complete model: `pamc check`
   must accept it, so the documentation cannot drift from the language.
2. Every session README.md shows (a ``` block of `$ build/pamc ...` lines, each followed by
   the output it prints) is run, from the repository root with the pamc under test, and
   its output must be what README shows: stdout, or stderr when the line sends stdout to
   /dev/null. A line `...` stands for any number of lines. A command that writes a file
   (--plot, -o) and shows no output is run with the file sent to a temporary folder.

  python3 tests/cli/run_docs.py --pamc build/pamc   (from the repository root)"""
import argparse, glob, os, re, shlex, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def check_models(pamc, tmp):
    failures = count = 0
    for md in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + [os.path.join(ROOT, "README.md")]:
        text = open(md).read()
        for n, block in enumerate(re.findall(r"```pamela\n(.*?)```", text, re.S)):
            count += 1
            path = os.path.join(tmp, f"{os.path.basename(md)}_{n}.pam")
            with open(path, "w") as f:
                f.write(block)
            p = subprocess.run([pamc, "check", path], capture_output=True, text=True, timeout=30)
            if p.returncode != 0:
                failures += 1
                print(f"FAIL {md} block {n}:\n{block}\n{p.stderr}")
    print(f"{count - failures} of {count} documentation models check")
    return count, failures


def sessions(text):
    """(command, expected lines) for every `$ build/pamc` line of the plain ``` blocks."""
    out, fence, current = [], None, None
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = line[3:] if fence is None else None  # opening (with its tag) or closing
            current = None
        elif fence == "" and line.startswith("$ "):
            current = (line[2:], [])
            out.append(current)
        elif fence == "" and current is not None:
            current[1].append(line)
    return [(cmd, lines) for cmd, lines in out if cmd.startswith("build/pamc ")]


def matches(expected, actual):
    """Line by line; `...` matches any run of lines (also none)."""
    if not expected:
        return not actual
    if expected[0] == "...":
        return any(matches(expected[1:], actual[k:]) for k in range(len(actual) + 1))
    return bool(actual) and expected[0] == actual[0] and matches(expected[1:], actual[1:])


def check_sessions(pamc, tmp):
    failures = count = 0
    text = open(os.path.join(ROOT, "README.md")).read()
    for cmd, expected in sessions(text):
        while expected and expected[-1] == "":
            expected.pop()
        args = shlex.split(cmd)
        to_null = args[-2:] == [">", "/dev/null"]
        if to_null:
            args = args[:-2]
        args[0] = pamc
        for k, a in enumerate(args[:-1]):  # a file the command writes goes to tmp
            if a in ("--plot", "-o", "--csv"):
                args[k + 1] = os.path.join(tmp, os.path.basename(args[k + 1]))
        count += 1
        p = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=ROOT)
        shown = (p.stderr if to_null else p.stdout).rstrip("\n")
        actual = shown.split("\n") if shown else []
        if p.returncode != 0 or not matches(expected, actual):
            failures += 1
            print(f"FAIL README session `{cmd}` (exit {p.returncode}):\n--- README shows\n" + "\n".join(expected) +
                  "\n--- pamc prints\n" + "\n".join(actual) + ("\n--- stderr\n" + p.stderr if not to_null else ""))
    print(f"{count - failures} of {count} README sessions print what README shows")
    return count, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    pamc = os.path.abspath(ap.parse_args().pamc)
    tmp = tempfile.mkdtemp(prefix="pamc-docs-")
    models, bad_models = check_models(pamc, tmp)
    shown, bad_sessions = check_sessions(pamc, tmp)
    return 1 if bad_models or bad_sessions or models == 0 or shown == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
