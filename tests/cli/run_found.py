#!/usr/bin/env python3
"""Issue 13's "Found" list, what a new user hit trying pamc as an installed tool: one
check (or a few) per bullet, each named after its bullet, each failing before its fix.
Where a bullet's full test lives elsewhere it is named in the check's comment.

  python3 tests/cli/run_found.py --pamc build/pamc"""
import harness
from harness import MRM, ROOT, check, pamc, write
import argparse, glob, json, os, re, shutil, subprocess, sys, tempfile

FOUND_INSTALL = "Found: cmake --install leaves out stdlib/ and machines/ and pamc searches the source tree's"
FOUND_MISSING = "Found: no Debian package, man page, completion, editor highlighting, Python access; README points outside"
FOUND_EXPLAIN_DEPENDS = "Found: explain says 'model constants only' and crossover_depends_on is [] when the crossover moves"
FOUND_EXPLAIN_DIGITS = "Found: explain prints numeric crossovers with 17 digits"
FOUND_PLOT_SYMBOLIC = "Found: the plot draws only symbolic crossovers"
FOUND_PLOT_LEGEND = "Found: the plot's legend covers the curve"
FOUND_SENS_D = "Found: sensitivity prints GiNaC internals (D[0](vmax))"
FOUND_SENS_LOG2 = "Found: sensitivity turns log2(x) into 0.3606*log(x)"
FOUND_SWEEP_AT = "Found: sweep's evaluation error lacks 'at P = ...'"
FOUND_SWEEP_HEADER = "Found: sweep prints the CSV header before the error"
FOUND_SWEEP_SLOW = "Found: sweep notes 'slow: depends on a parameter without a value' when nothing is slow"
FOUND_SIM_NAMES = "Found: simulate names resources fcfs(0, 1) instead of the model's name (s, bus)"
FOUND_ALIAS = "Found: two resources declared fcfs(0, 1) under two names silently alias one server (and cpu(0))"
FOUND_BRACE = "Found: a missing } is reported at end of file without pointing at the opening brace"
FOUND_LOOP_BOUND = "Found: eval and simulate point at different places for one non-integer loop bound"


def svg_frame_and_key(path, key_text):
    """The plot frame (x0, y0, x1, y1) and where the legend's text `key_text` is drawn."""
    svg = open(path).read()
    frames = []
    for d in re.findall(r"d='M([\d.]+),([\d.]+) L([\d.]+),([\d.]+) L([\d.]+),([\d.]+) L([\d.]+),([\d.]+) L[\d.,]+ Z", svg):
        xs, ys = [float(v) for v in d[0::2]], [float(v) for v in d[1::2]]
        frames.append((min(xs), min(ys), max(xs), max(ys)))
    frame = max(frames, key=lambda f: (f[2] - f[0]) * (f[3] - f[1])) if frames else None
    m = re.search(r'translate\(([\d.]+),([\d.]+)\)[^>]*>\s*<text>' + re.escape(key_text) + r'</text>', svg)
    return frame, (float(m.group(1)), float(m.group(2))) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = os.path.abspath(ap.parse_args().pamc)
    build = os.path.dirname(harness.PAMC)
    tmp = tempfile.mkdtemp(prefix="pamc-found-")
    try:
        run(tmp, build)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return harness.summary("Found checks")


def run(tmp, build):
    env_without_path = {k: v for k, v in os.environ.items() if k != "PAMC_PATH"}

    # --- install (tests/consumer/run_consumer.py also builds a C++ consumer there) -------
    prefix = os.path.join(tmp, "prefix")
    p = subprocess.run(["cmake", "--install", build, "--prefix", prefix], capture_output=True, text=True)
    moved = os.path.join(tmp, "moved")
    if p.returncode == 0:
        os.rename(prefix, moved)
    imp = write(tmp, "imports.pam", 'import "comm.pam"\nnumeric parameter P\nprocess main = delay(P)\n')
    a = subprocess.run([os.path.join(moved, "bin", "pamc"), "compile", "--machine", "x1e",
                        os.path.join(ROOT, "samples", "sp_tzetar.pam")], capture_output=True, text=True, cwd="/",
                       env=env_without_path)
    b = subprocess.run([os.path.join(moved, "bin", "pamc"), "eval", imp, "-D", "P=3"], capture_output=True, text=True,
                       cwd="/", env=env_without_path)
    check(FOUND_INSTALL + ": a moved prefix has share/pamc and its pamc finds --machine x1e and import comm from /",
          p.returncode == 0 and os.path.isfile(os.path.join(moved, "share", "pamc", "machines", "x1e.pam"))
          and os.path.isfile(os.path.join(moved, "share", "pamc", "stdlib", "comm.pam"))
          and a.returncode == 0 and "T_main" in a.stdout and b.stdout == "numeric T_main = 3\n",
          p.stderr + a.stderr + b.stderr)

    # --- what was missing (each has its own full test: scripts/check-deb.sh run by
    # scripts/test.sh; run_cli.py's man page and completion checks; tests/editors;
    # tests/python) -------------------------------------------------------------------
    deb_cmake = open(os.path.join(ROOT, "packaging", "deb.cmake")).read()
    check(FOUND_MISSING + ": a Debian package is configured (CPack DEB, shlibdeps) and a script builds and checks it",
          "CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON" in deb_cmake
          and os.access(os.path.join(ROOT, "scripts", "build-deb.sh"), os.X_OK)
          and "lintian --fail-on error" in open(os.path.join(ROOT, "scripts", "check-deb.sh")).read())
    check(FOUND_MISSING + ": the man page and bash completion are installed",
          os.path.isfile(os.path.join(moved, "share", "man", "man1", "pamc.1"))
          and os.path.isfile(os.path.join(moved, "share", "bash-completion", "completions", "pamc")))
    grammar = json.load(open(os.path.join(ROOT, "editors", "vscode", "syntaxes", "pamela.tmLanguage.json")))
    check(FOUND_MISSING + ": editor highlighting (a TextMate grammar, a Vim syntax)",
          grammar.get("scopeName") == "source.pamela"
          and os.path.isfile(os.path.join(ROOT, "editors", "vim", "syntax", "pamela.vim")))
    pydir = os.path.join(build, "python")
    if os.path.isdir(pydir):
        cache = os.path.join(build, "CMakeCache.txt")
        python = re.search(r"^Python3_EXECUTABLE:\w+=(.*)$", open(cache).read(), re.M).group(1)
        py = subprocess.run([python, "-c", "import pamela, numpy; print(pamela.Model(%r)(P=numpy.array([10, 1000]), N=1e6).tolist())"
                             % MRM], capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=pydir))
        check(FOUND_MISSING + ": Python access (import pamela evaluates the MRM at an array)",
              py.returncode == 0 and py.stdout.strip() == "[10100000.0, 100000000.0]", py.stdout + py.stderr)
    readme = open(os.path.join(ROOT, "README.md")).read()
    outside = [t for t in re.findall(r"\]\(([^)#]+)\)", readme) if not t.startswith("http")
               and (t.startswith("..") or not os.path.exists(os.path.join(ROOT, t)))]
    check(FOUND_MISSING + ": README links only to files inside the project (no ../shared/SPEC.md)",
          "../shared" not in readme and not outside, str(outside))

    # --- explain ------------------------------------------------------------------------
    nl = write(tmp, "nl.pam", "numeric parameter P\nnumeric parameter N\nnumeric T = max(P^2, N^2 + 5)\n")
    rc, out, err = pamc("explain", nl, "-D", "P=3", "-D", "N=4")
    rcj, outj, errj = pamc("explain", nl, "-D", "P=3", "-D", "N=4", "--json")
    x = json.loads(outj)["T"]["extrema"][0] if rcj == 0 else {}
    check(FOUND_EXPLAIN_DEPENDS,
          rc == 0 and "constants only" not in out and "to move the crossover: change N, P" in out
          and "P = ~4.58258 (P ^ 2 dominates when P > ~4.58258); moves with N" in out
          and x.get("crossover_depends_on") == ["N", "P"]
          and [c["depends_on"] for c in x.get("crossovers", [])] == [["N"], ["P"]], out + err + outj)
    rc2, out2, err2 = pamc("explain", MRM, "-D", "P=1000", "-D", "N=1e6")
    check(FOUND_EXPLAIN_DEPENDS + " (the MRM's P = 101 does depend on constants only)",
          rc2 == 0 and "crossover with 10.1: P = 101" in out2 and "constants only" in out2, out2 + err2)
    check(FOUND_EXPLAIN_DIGITS,
          rc == 0 and "~4.58258" in out and not re.search(r"\d\.\d{7,}", out), out)

    # --- the sweep plot -----------------------------------------------------------------
    if shutil.which("gnuplot"):
        svg = os.path.join(tmp, "nl.svg")
        rc, out, err = pamc("sweep", nl, "-D", "N=4", "--sweep", "P=1:10", "--plot", svg)
        text = open(svg).read() if rc == 0 else ""
        check(FOUND_PLOT_SYMBOLIC + ": the numeric crossover P = ~4.58258 of max(P^2, N^2 + 5) is marked",
              rc == 0 and "P = ~4.58258 (" in text, err)
        fall = write(tmp, "fall.pam", "numeric parameter P\nnumeric parameter N\nnumeric T_fall = N / P + 1\n")
        svg2 = os.path.join(tmp, "fall.svg")
        rc, out, err = pamc("sweep", fall, "-D", "N=1000", "--sweep", "P=1:50", "--plot", svg2)
        frame, key = svg_frame_and_key(svg2, "T_fall") if rc == 0 else (None, None)
        # a falling curve starts in the top left corner, where the legend used to be
        check(FOUND_PLOT_LEGEND + ": the legend is drawn outside the plot frame",
              frame is not None and key is not None
              and not (frame[0] <= key[0] <= frame[2] and frame[1] <= key[1] <= frame[3]), str((frame, key, err)))
    else:
        print("note: gnuplot not found: the plot checks of " + FOUND_PLOT_SYMBOLIC + " are skipped")

    # --- sensitivity --------------------------------------------------------------------
    vm = write(tmp, "vm.pam", "numeric parameter P\nnumeric parameter N\nnumeric parameter L\n"
               "resource cpu(p) = fcfs(p, 1)\nprocess main = par (i = 1, N) use(cpu((i * i) mod P), L)\n")
    rc, out, err = pamc("sensitivity", vm, "-D", "P=4", "-D", "N=10", "-D", "L=2", "--json")
    rows = json.loads(out)["T_main"]["parameters"] if rc == 0 else {}
    rct, outt, errt = pamc("sensitivity", vm, "-D", "P=4", "-D", "N=10", "-D", "L=2")
    check(FOUND_SENS_D + ": dT/dL is the vector max itself, 5 at N = 10, P = 4",
          rc == 0 and "D[" not in out + outt and rows.get("L", {}).get("derivative") ==
          "max(sum (i = 1, N) { unitvec(i ^ 2 mod P) })" and rows["L"]["value"] == 5 and rows["L"]["elasticity"] == 1,
          out + outt + err)
    lg = write(tmp, "lg.pam", "numeric parameter P\nnumeric parameter N\nnumeric T = N * log2(P) + N / P\n")
    rc, out, err = pamc("sensitivity", lg, "-D", "P=8", "-D", "N=100", "--json")
    t = json.loads(out)["T"] if rc == 0 else {}
    dP = t.get("parameters", {}).get("P", {})
    check(FOUND_SENS_LOG2 + ": dT/dP = N / P / log(2) - N / P ^ 2 = 16.4712 at P = 8, N = 100",
          rc == 0 and "1.44" not in out and "0.36" not in out and "log2" in t.get("active", "log2")
          and dP.get("derivative") == "N / P / log(2) - N / P ^ 2" and abs(dP.get("value", 0) - (100 / 8 / 0.6931471805599453 - 100 / 64)) < 1e-9
          and t["parameters"]["N"]["derivative"] == "1 / P + log2(P)", out + err)

    # --- sweep --------------------------------------------------------------------------
    lgn = write(tmp, "lgn.pam", "numeric parameter P\nnumeric parameter N\nnumeric T = N * log(10 - P)\n")
    rc, out, err = pamc("sweep", lgn, "-D", "N=3", "--sweep", "P=1:12")
    check(FOUND_SWEEP_AT, rc == 1 and "error: at P = 10: T: log of a non-positive number" in err, err)
    check(FOUND_SWEEP_HEADER + ": nothing on stdout when the sweep fails", rc == 1 and out == "", repr(out))
    many = write(tmp, "many.pam", "numeric parameter P\nnumeric T = 1 / (40000 - P)\n")
    rc, out, err = pamc("sweep", many, "--sweep", "P=1:50000")  # past the first block of rows
    check(FOUND_SWEEP_HEADER + ": nor when the error is past the first 32768 rows",
          rc == 1 and out == "" and "at P = 40000" in err, err + out[:100])
    rc, out, err = pamc("sweep", os.path.join(ROOT, "samples", "sp_tzetar.pam"), "--sweep", "problem_size=12:162:10")
    check(FOUND_SWEEP_SLOW + ": sp_tzetar (a default that depends on swept parameters)",
          rc == 0 and "slow" not in err and len(out.splitlines()) == 17, err)
    opn = write(tmp, "open.pam", "numeric parameter N\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
                "process main = par (i = 1, N) seq (j = 1, i) use(cpu((i * j) mod P), sqrt(j))\n")
    rc, out, err = pamc("sweep", opn, "-D", "P=4", "--sweep", "N=1:30")
    check(FOUND_SWEEP_SLOW + ": an open model runs compiled, without the note", rc == 0 and "slow" not in err, err)

    # --- simulate (run_cli.py has the family and halo cases) ------------------------------
    bus = write(tmp, "bus.pam", "numeric parameter P\nresource bus = fcfs(0, 1)\n"
                "process main = par (p = 1, P) use(bus, 2)\n")
    rc, out, err = pamc("simulate", bus, "-D", "P=3")
    rc2, out2, err2 = pamc("simulate", MRM, "-D", "P=3", "-D", "N=2")
    check(FOUND_SIM_NAMES, rc == 0 and "resource bus = fcfs(0, 1)" in out and "resource s = fcfs(0, 1)" in out2
          and not re.search(r"resource fcfs\(0, 1\)", out + out2), out + out2 + err + err2)
    alias = write(tmp, "alias.pam", "resource s = fcfs(0, 1)\nresource bus = fcfs(0, 1)\nresource cpu(p) = fcfs(p, 1)\n"
                  "process main = use(s, 1) || use(bus, 2)\n")
    rc, out, err = pamc("check", alias)
    check(FOUND_ALIAS + ": a warning at each name, with the other's place, and cpu(0)",
          rc == 0 and "alias.pam:2:10: warning:" in err and "alias.pam:1:10" in err and "cpu(0)" in err
          and "[AliasedResource]" in err, err)

    # --- diagnostics --------------------------------------------------------------------
    brace = write(tmp, "brace.pam", "numeric parameter N\nprocess main = seq (i = 1, N) {\n  delay(1) ;\n  delay(2)\n")
    rc, out, err = pamc("check", brace)
    check(FOUND_BRACE + ": a note at the '{' that is not closed",
          rc == 1 and "brace.pam:5:1: error: unexpected end of file; expected '}' [SyntaxError]" in err
          and "brace.pam:2:31: note: the '{' opened here is not closed" in err, err)
    nested = write(tmp, "nested.pam", "numeric parameter N\nnumeric x = max(N, (3 + N)\nnumeric y = 2\n")
    rc, out, err = pamc("check", nested)
    check(FOUND_BRACE + ": the innermost unclosed bracket, not one closed later",
          rc == 1 and "nested.pam:2:16: note: the '(' opened here is not closed" in err, err)
    bound = write(tmp, "bound.pam", "numeric parameter P\nnumeric parameter N\nprocess main = seq (i = 1, N / P) delay(1)\n")
    rc1, out1, err1 = pamc("eval", bound, "-D", "P=4", "-D", "N=6")
    rc2, out2, err2 = pamc("simulate", bound, "-D", "P=4", "-D", "N=6")
    where = lambda e: re.findall(r"bound\.pam:(\d+:\d+): error:", e)
    check(FOUND_LOOP_BOUND + ": both at the loop, 3:16",
          rc1 == 1 and rc2 == 1 and where(err1) == ["3:16"] and where(err2) == ["3:16"], err1 + err2)


if __name__ == "__main__":
    sys.exit(main())
