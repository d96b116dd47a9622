#!/usr/bin/env python3
"""The messages a user meets on the typical mistakes, and the words of the help: each check
names what a new user hit, and fails on a pamc that still answers the old way.

  python3 tests/cli/run_messages.py --pamc build/pamc"""
import harness
from harness import ROOT, check, pamc, write
import argparse, glob, os, re, shutil, subprocess, sys, tempfile

COMMANDS = ["check", "compile", "eval", "simulate", "sweep", "explain", "sensitivity", "validate", "fit",
            "project", "hybrid"]


def run(tmp):
    model = write(tmp, "k.pam", "numeric parameter K\nnumeric parameter N\nprocess main = delay(K * N)\n")

    # -D of a name the model lacks: its own kind, and the parameter meant.
    for cmd, extra in [("eval", ["-D", "N=3"]), ("simulate", ["-D", "N=3"]), ("explain", ["-D", "N=3"]),
                       ("sweep", ["--sweep", "N=1:2"])]:
        rc, out, err = pamc(cmd, model, "-D", "k=10", *extra)
        check(f"{cmd} -D k=10 for a model with K: [UnknownParameter] with 'did you mean K'",
              rc == 1 and "-D k: the model has no parameter 'k'; did you mean 'K'?" in err
              and "[UnknownParameter]" in err and out == "", err)
    rc, out, err = pamc("sweep", model, "-D", "K=1", "--sweep", "n=1:3")
    check("sweep --sweep n for N: the suggestion", rc == 1 and "did you mean 'N'?" in err
          and "[UnknownParameter]" in err, err)
    rc, out, err = pamc("eval", model, "-D", "Q=1", "-D", "K=1", "-D", "N=1")
    check("-D of a name like no parameter: no suggestion", rc == 1 and "no parameter 'Q' [UnknownParameter]" in err, err)

    # -D N = 1000: the one-word form, not Boost's "too many positional options".
    for spaced, joined in [(["N", "=", "1000"], "N=1000"), (["N=", "1000"], "N=1000"), (["N", "=1000"], "N=1000")]:
        rc, out, err = pamc("eval", model, "-D", "K=2", "-D", *spaced)
        check("-D " + " ".join(spaced) + ": says to write -D " + joined,
              rc == 2 and "no spaces around '='" in err and "(-D " + joined + ")" in err
              and "positional" not in err, err)
    rc, out, err = pamc("eval", model, "other.pam", "-D", "K=1", "-D", "N=1")
    check("a second FILE is named, not 'too many positional options'",
          rc == 2 and "'other.pam' is not an option" in err and "positional" not in err, err)

    # Every option of a command's table is in its usage line.
    for cmd in COMMANDS:
        rc, out, err = pamc(cmd, "--help")
        usage = out.splitlines()[0] if out else ""
        listed = set(re.findall(r"^\s+(?:-\w \[ )?(--[\w-]+)", out, re.M)) - {"--help"}
        missing = sorted(o for o in listed if not re.search(re.escape(o) + r"\b", usage)
                         and not (o == "--define" and "-D " in usage)
                         and not (o == "--include" and "-I " in usage)
                         and not (o == "--output" and "-o " in usage))
        check(f"{cmd} --help: every option in the usage line", rc == 0 and listed and not missing,
              f"missing {missing} in {usage!r}")
    # Bash completion offers every option of each command's table.
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for cmd in COMMANDS:
        rc, out, err = pamc(cmd, "--help")
        listed = set(re.findall(r"^\s+(?:-\w \[ )?(--[\w-]+)", out, re.M))
        script = ("source scripts/pamc-completion.bash; COMP_WORDS=(pamc %s --); COMP_CWORD=2; _pamc; "
                  "echo \"${COMPREPLY[*]}\"" % cmd)
        comp = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=root)
        offered = set(comp.stdout.split())
        check(f"bash completion of `pamc {cmd} --` offers every option of --help",
              listed and listed <= offered, f"missing {sorted(listed - offered)}")
    rc, out, err = pamc("simulate", "--help")
    check("simulate's usage line names --max-events and --target",
          "[--max-events N]" in out.splitlines()[0] and "[--target NAME]..." in out.splitlines()[0], out)
    rc, out, err = pamc("fit", "--help")
    check("fit's usage line names --max-iterations", "[--max-iterations N]" in out.splitlines()[0], out)
    rc, out, err = pamc("sweep", "--help")
    check("sweep's usage line names --timing", "[--timing]" in out.splitlines()[0], out)

    # check refuses what compile refuses.
    for name, text, kind in [("neg.pam", "process main = delay(-1)\n", "[NegativeTime]"),
                             ("div.pam", "numeric x = 1 / (2 - 2)\nprocess main = delay(x)\n", "[DivisionByZero]"),
                             ("conflict.pam", "resource a = fcfs(0, 1)\nresource b = fcfs(0, 2)\n"
                                              "process main = use(a, 1) || use(b, 1)\n", "[ResourceConflict]")]:
        path = write(tmp, name, text)
        rc_c, _, err_c = pamc("compile", path)
        rc, out, err = pamc("check", path)
        check(f"check refuses {name} as compile does ({kind})",
              rc_c == 1 and rc == 1 and kind in err and kind in err_c, err + err_c)
        rc, out, err = pamc("check", "--no-lower", path)
        check(f"check --no-lower accepts {name} (parse and check only)", rc == 0, err)

    # The help speaks of papers, not of the project's internal documents.
    internal = re.compile(r"seed \d|seed's|seeds'|SPEC section|issue \d|evaluation room", re.I)
    texts = [pamc("--help")[1]] + [pamc(cmd, "--help")[1] for cmd in COMMANDS]
    found = sorted({m.group(0) for t in texts for m in internal.finditer(t)})
    check("--help of every command: no internal names (seed N, SPEC section, issue N)", not found, str(found))
    # So do README, the docs and the man page ("seed 1" there is a random seed: a paper is
    # never numbered so, "seed 002" is).
    words = re.compile(r"seed 0\d\d|seed's|seeds'|SPEC section|issue \d|evaluation room|seed (?:sample|paper|table)s?", re.I)
    pages = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "docs", "man", "pamc.1")] + \
        sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    found = sorted({"%s: %s" % (os.path.relpath(page, ROOT), m.group(0)) for page in pages
                    for m in words.finditer(open(page).read().replace("\n", " "))})
    check("README, docs/*.md and the man page: no internal names (seed 002, SPEC section 3, issue 13, evaluation room)",
          len(pages) > 20 and not found, str(found))
    rc, out, err = pamc("--help")
    check("--help cites the papers by author and year",
          "Sun and Cameron 2000" in out and "Sharkawi et al. 2009" in out, out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = os.path.abspath(ap.parse_args().pamc)
    tmp = tempfile.mkdtemp(prefix="pamc-messages-")
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return harness.summary("message checks")


if __name__ == "__main__":
    sys.exit(main())
