#!/usr/bin/env python3
"""Command-line contract tests (SPEC section 4): spellings, exit codes, JSON shapes,
diagnostics, and that errors never leave an output file behind."""
import harness
from harness import MRM, ROOT, check, pamc, write
import argparse, json, os, re, shutil, stat, subprocess, sys, tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-cli-")

    rc, out, err = pamc("--version")
    check("--version prints the version", rc == 0 and re.match(r"pamc \d+\.\d+", out), out)
    rc, out, err = pamc("--help")
    check("--help lists the subcommands", rc == 0 and all(c in out for c in ["check", "compile", "eval", "simulate", "sweep"]), out)
    for sub in ["check", "compile", "eval", "simulate", "sweep", "validate", "fit"]:
        rc, out, err = pamc(sub, "--help")
        check(f"{sub} --help", rc == 0 and f"pamc {sub}" in out, err)
    rc, out, err = pamc()
    check("no command is a usage error", rc == 2)
    rc, out, err = pamc("frobnicate", MRM)
    check("unknown command exits 2", rc == 2 and "unknown command" in err, err)
    rc, out, err = pamc("eval", MRM, "--no-such-option")
    check("unknown option exits 2", rc == 2, err)
    rc, out, err = pamc("compile", MRM, "--stage", "bogus")
    check("bad --stage exits 2", rc == 2 and "stage" in err, err)
    rc, out, err = pamc("eval", MRM, "-D", "P")
    check("-D without = exits 2", rc == 2, err)
    rc, out, err = pamc("eval", MRM, "-D", "P=abc", "-D", "N=1")
    check("-D with a non-number exits 2", rc == 2 and "not a number" in err, err)
    rc, out, err = pamc("check", os.path.join(tmp, "missing.pam"))
    check("a missing file exits 1 with the file name", rc == 1 and "missing.pam" in err, err)

    rc, out, err = pamc("check", MRM)
    check("check accepts the MRM silently", rc == 0 and out == "" and err == "", out + err)

    rc, out, err = pamc("eval", MRM, "-D", "P=1000", "-D", "N=1000000")
    check("eval prints the seed's value", rc == 0 and out == "numeric T_main = 100000000\n", out + err)
    rc, out, err = pamc("eval", MRM, "-D", "P=1000", "-D", "N=1e6", "--json")
    check("eval --json", rc == 0 and json.loads(out) == {"T_main": 100000000}, out + err)
    rc, out, err = pamc("eval", MRM)
    check("one error names every unbound parameter",
          rc == 1 and "P, N" in err and "[UnboundParameter]" in err, err)
    rc, out, err = pamc("eval", MRM, "-D", "P=1", "-D", "N=1", "--target", "nothing")
    check("unknown --target exits 1", rc == 1 and "nothing" in err and "[UnknownTarget]" in err, err)
    rc, out, err = pamc("eval", MRM, "--target", "P", "-D", "P=3", "-D", "N=2")
    check("--target of a parameter says it is a parameter", rc == 1 and "'P' is a parameter" in err, err)
    rc, out, err = pamc("eval", MRM, "-D", "P=1", "-D", "N=1", "-D", "Q=3")
    check("-D of a name that is no parameter exits 1", rc == 1 and "Q" in err, err)

    bounded = write(tmp, "bounded.pam", "numeric parameter P >= 1\nprocess main = par (p = 1, P) delay(1)\n")
    rc, out, err = pamc("eval", bounded, "-D", "P=0")
    check("a value violating a declared bound is an error", rc == 1 and "P >= 1" in err, err)

    loop = write(tmp, "loop.pam", "numeric parameter N\nprocess main = seq (i = 1, N) delay(1)\n")
    rc, out, err = pamc("eval", loop, "-D", "N=2.5")
    check("a non-integer loop bound is an evaluation error, not rounded",
          rc == 1 and "integer" in err, out + err)

    # Errors never leave an output file behind, and never a partial one.
    bad = write(tmp, "bad.pam", "numeric parameter N\nprocess main = seq (i = 1, N) delay(t_unknown)\n")
    target = os.path.join(tmp, "out.txt")
    rc, out, err = pamc("compile", bad, "-o", target)
    check("compile error exits 1", rc == 1 and re.search(r"bad\.pam:2:\d+: error: .*\[UndefinedName\]", err), err)
    check("compile error leaves no output file", not os.path.exists(target), "file exists")
    check("the diagnostic shows the source line and a caret",
          "delay(t_unknown)" in err and re.search(r"^\s*\^\s*$", err, re.M), err)
    rc, out, err = pamc("compile", MRM, "-o", target)
    check("compile -o writes the model", rc == 0 and "T_main" in open(target).read(), err)

    rc, out, err = pamc("compile", MRM, "--stats")
    check("--stats reports residual reductions", rc == 0 and "residual reductions: 0" in err, err)

    # The same bytes every run, for every sample, as text and as JSON (GiNaC's term order
    # follows its hash seeds, which must not move between runs).
    import glob
    for model in sorted(glob.glob(os.path.join(ROOT, "samples", "*.pam"))):
        for form in (["--all"], ["--emit", "json", "--all"]):
            runs = {pamc("compile", model, *form)[1] for _ in range(3)}
            check(f"compile {' '.join(form)} of {os.path.basename(model)} is the same bytes every run",
                  len(runs) == 1 and "" not in runs, f"{len(runs)} different outputs")

    # The emitted header says where its closed forms hold: P >= 1, N and P integers.
    hdr = os.path.join(tmp, "mrm.hpp")
    rc, out, err = pamc("compile", MRM, "--emit", "cpp", "-o", hdr)
    drv = write(tmp, "assume.cpp", '#include "mrm.hpp"\n#include <cstdio>\nint main() { std::printf("%d %d %d %.17g\\n", '
                'mrm::assumptions_hold(1000, 1e6), mrm::assumptions_hold(0, 1e6), mrm::assumptions_hold(10, 2.5), '
                'mrm::T_main(1000, 1e6)); }\n')
    exe = os.path.join(tmp, "assume")
    c = subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I", tmp, drv, "-o", exe],
                       capture_output=True, text=True)
    got = subprocess.run([exe], capture_output=True, text=True).stdout.strip() if c.returncode == 0 else c.stderr
    check("emitted assumptions_hold(P, N) is true at the seed's point, false at P = 0 and N = 2.5",
          rc == 0 and got == "1 0 0 100000000", got)

    # Two models emitted into one Octave folder keep apart in their packages (+mrm/, +matmul/).
    if shutil.which("octave-cli"):
        od = os.path.join(tmp, "oct")
        rc1 = pamc("compile", MRM, "--emit", "octave", "-o", od)[0]
        rc2 = pamc("compile", os.path.join(ROOT, "samples", "matmul.pam"), "--emit", "octave", "-o", od)[0]
        o = subprocess.run(["octave-cli", "--no-history", "--quiet", "--norc", "--eval",
                            f"addpath('{od}'); printf('%.17g %.17g\\n', mrm.T_main(1000, 1e6), "
                            "matmul.T_main(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1))"],
                           capture_output=True, text=True, timeout=120)
        got = o.stdout.strip().splitlines()[-1:] or [o.stderr]
        check("two models in one Octave folder: mrm.T_main and matmul.T_main both callable",
              rc1 == 0 and rc2 == 0 and got == ["100000000 5.75"], got[0][:200])

    # Output files (issue 16): a device is written in place, never replaced; a write error is
    # exit 1; a symlink is written through; no temporary is left behind.
    rc, out, err = pamc("compile", MRM, "--emit", "cpp", "-o", "/dev/full")
    check("-o /dev/full: exit 1, and /dev/full stays a device",
          rc == 1 and "cannot write" in err and stat.S_ISCHR(os.stat("/dev/full").st_mode), err)
    rc, out, err = pamc("compile", MRM, "--emit", "cpp", "-o", "/dev/null")
    check("-o /dev/null: exit 0, and /dev/null stays a device", rc == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode), err)
    real = write(tmp, "real.hpp", "old\n")
    link = os.path.join(tmp, "link.hpp")
    os.symlink("real.hpp", link)
    rc, out, err = pamc("compile", MRM, "--emit", "cpp", "-o", link)
    check("-o through a symlink writes the file it names and keeps the link",
          rc == 0 and os.path.islink(link) and "namespace mrm" in open(real).read(), err)
    check("no temporary left next to the outputs", not [f for f in os.listdir(tmp) if "pamc-" in f], os.listdir(tmp))
    rc, out, err = pamc("compile", tmp)
    check("a directory as the model: exit 1 with a message", rc == 1 and "is a directory" in err, err)
    neg = write(tmp, "negative.pam", "numeric parameter N\nprocess main = delay(N - 5)\n")
    rc, out, err = pamc("eval", neg, "-D", "N=1")
    check("a time that is negative at the point: located error, exit 1",
          rc == 1 and "negative.pam:2:" in err and "N - 5 = -4" in err and out == "", err)
    rc, out, err = pamc("eval", neg, "-D", "N=7")
    check("the same time at a point where it is positive", rc == 0 and out == "numeric T_main = 2\n", out + err)

    # A sweep over a model left open runs the compiled loops: no "slow" note, and every row
    # is pamc eval's value.
    opn = write(tmp, "open_pairs.pam", "numeric parameter N\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
                "process main = par (i = 0, N - 1) par (j = 0, N - 1) use(cpu((i + j) mod P), 1)\n")
    rc, out, err = pamc("sweep", opn, "--sweep", "N=1:30", "--sweep", "P=1:5")
    rows = [r.split(",") for r in out.strip().splitlines()[1:]] if rc == 0 else []
    picks = [rows[k] for k in (0, 37, 101, 149)] if len(rows) == 150 else []
    same = all(pamc("eval", opn, "-D", "N=" + n, "-D", "P=" + p)[1].strip() == "numeric T_main = " + t for n, p, t in picks)
    check("sweep of an open model: compiled, no slow note, rows equal pamc eval",
          rc == 0 and len(rows) == 150 and bool(picks) and same and "slow" not in err, err + str(picks))

    # The man page renders without warnings; bash completion completes subcommands, --emit
    # values, machine names and .pam files.
    if shutil.which("man"):
        m = subprocess.run(["man", "--warnings", "-l", os.path.join(ROOT, "docs", "man", "pamc.1")],
                           capture_output=True, text=True, env={**os.environ, "MANWIDTH": "80", "MANPAGER": "cat"})
        check("man -l docs/man/pamc.1 renders without warnings",
              m.returncode == 0 and "EXIT STATUS" in m.stdout and m.stderr.strip() == "", m.stderr[:300])
    # The binary under test names the machines folder (its ../machines), whichever build it is.
    binary = os.path.abspath(harness.PAMC)
    script = ("source scripts/pamc-completion.bash; out=; "
              f"for words in 'pamc ev' '{binary} compile --emit oc' '{binary} eval --machine x1' 'pamc eval samples/mr'; do "
              "read -ra COMP_WORDS <<< \"$words\"; COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _pamc; out=\"$out${COMPREPLY[*]};\"; done; "
              "echo \"$out\"")
    comp = subprocess.run(["bash", "-c", script], capture_output=True, text=True, cwd=ROOT)
    check("bash completion: subcommand, --emit value, machine name, model file",
          comp.stdout.strip() == "eval;octave;x1e;samples/mrm.pam;", comp.stdout + comp.stderr)

    # Two names for one server are a warning with both places (exit 0, the value unchanged).
    alias = write(tmp, "alias.pam", "resource s = fcfs(0, 1)\nresource bus = fcfs(0, 1)\nresource cpu(p) = fcfs(p, 1)\n"
                  "process main = use(s, 1) || use(bus, 2)\n")
    rc, out, err = pamc("eval", alias)
    check("aliased resources: warnings at both names, with the other's place; the value as before",
          rc == 0 and out == "numeric T_main = 3\n" and "alias.pam:2:10: warning: resource 'bus' is fcfs(0, ...) like 's' (" in err
          and "same server as cpu(0)" in err and "[AliasedResource]" in err, err)
    rc, out, err = pamc("check", MRM)
    check("no warning for the seed's MRM", rc == 0 and err == "", err)
    # simulate names servers as the model does where the text fixes the name
    rc, out, err = pamc("simulate", MRM, "-D", "P=3", "-D", "N=2")
    check("simulate names the MRM's server 's'", rc == 0 and "resource s = fcfs(0, 1): utilization" in out, out + err)
    fam = write(tmp, "family.pam", "resource bus = fcfs(0, 1)\nresource cpu(p) = fcfs(p + 1, 1)\n"
                "process main = par (p = 0, 1) { use(cpu(p), 2) ; use(bus, 1) }\n")
    rc, out, err = pamc("simulate", fam)
    check("simulate names family members cpu(0), cpu(1) and the bus",
          rc == 0 and "resource bus = fcfs(0, 1)" in out and "resource cpu(1) = fcfs(2, 1)" in out, out + err)
    halo = os.path.join(ROOT, "samples", "corpus", "halo_edges.pam")
    rc, out, err = pamc("simulate", halo, "-D", "P=3", "-D", "N=2")
    check("a family whose index depends on a parameter is named at its value (link(p) = fcfs(P + p, 1): link(0))",
          rc == 0 and "resource link(0) = fcfs(3, 1)" in out and "cpu(3)" not in out, out + err)

    # A formal or loop index that shares a global's name does not hide the global from the
    # results: f stays a top-level equation (it used to vanish from compile and eval).
    shadow = write(tmp, "shadow.pam", "numeric h(f) = f * 2\nnumeric f = 3\nnumeric g = h(4)\n"
                   "numeric s = sum (g = 1, 3) { g }\n")
    rc, out, err = pamc("compile", shadow)
    check("a formal named like a global leaves the global a result",
          rc == 0 and "numeric f = 3" in out and "numeric g = 8" in out and "numeric s = 6" in out, out + err)
    rc, out, err = pamc("eval", shadow, "--target", "f")
    check("eval --target of that global", rc == 0 and out.strip() == "numeric f = 3", out + err)

    # A subterm two equations both name is named once: `a = floor(N / P)`, not `a` then `b`.
    two = write(tmp, "two_named.pam", "numeric parameter N\nnumeric parameter P\n"
                "process main = seq (j = 1, N) delay(ceil(j / P) * j)\n"
                "process rev = seq (k = 0, N - 1) delay(ceil((N - k) / P) * (N - k))\n")
    rc, out, err = pamc("compile", two)
    defs = [l for l in out.splitlines() if re.match(r"numeric [a-z] = ", l)]
    check("a repeated subterm shared by two equations has one name",
          rc == 0 and defs == ["numeric a = floor(N / P)"] and out.count("(a + 1)") >= 2
          and "floor(N / P)" not in out.replace("numeric a = floor(N / P)", ""), out + err)
    # A vector whose last element sits at 10^18 prints sparse, at once, as text and JSON.
    far = write(tmp, "far.pam", "numeric w = [1, 2] + 10 * unitvec(1e18)\n")
    rc, out, err = pamc("eval", far, timeout=10)
    check("a vector ending at position 10^18 prints sparse", rc == 0 and
          out == "numeric w = [1, 2] + 10 * unitvec(1000000000000000000)\n", out + err)
    rc, out, err = pamc("eval", far, "--json", timeout=10)
    ok = rc == 0 and json.loads(out) == {"w": {"length": 10**18 + 1, "elements": {"0": 1, "1": 2, "1000000000000000000": 10}}}
    check("... and as JSON: its length and its nonzero elements", ok, out + err)
    return harness.summary("CLI checks")


if __name__ == "__main__":
    sys.exit(main())
