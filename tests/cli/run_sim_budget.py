#!/usr/bin/env python3
"""The simulator's budgets and report, as a user meets them.

Definitions that double per line (`c1 = c0 || c0`, `c2 = c1 || c1`, ...) describe 2^k
processes in k lines. `pamc simulate` counts what a body starts at once and the events one
run needs on the compiled model, before allocating anything: past --max-processes or
--max-events it stops with a located error that gives the number, in well under a second of
cpu and 100 MiB; below them it simulates with a few tens of bytes per waiting process.
The report names every member of every resource family and prints numbers as eval does."""
import argparse, os, subprocess, tempfile

import harness
from harness import check, pamc

MIB = 1024 * 1024


def run(*args):
    """(rc, out, err, cpu seconds, peak bytes) of one pamc run: the child's own accounting (wait4)."""
    proc = subprocess.Popen([harness.PAMC, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, out, err, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def doubling(tmp, name, op, lines):
    text = "process c0 = delay(1)\n" + "".join(f"process c{k} = c{k - 1} {op} c{k - 1}\n" for k in range(1, lines + 1))
    return harness.write(tmp, name, text + f"process main = c{lines}\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-sim-budget-")

    par25 = doubling(tmp, "par25.pam", "||", 25)
    rc, out, err, cpu, peak = run("simulate", par25, "--target", "main")
    check("2^25 processes at once (`||` doubled 25 times): located WorkLimit with the number, exit 1",
          rc == 1 and out == "" and "par25.pam:26:19: error:" in err and "33554432" in err and "--max-processes" in err
          and "[WorkLimit]" in err, f"rc={rc} {err[:400]}")
    check("... in under 1 s of cpu and 100 MiB", cpu < 1 and peak < 100 * MIB, f"{cpu:.2f} s, {peak / MIB:.0f} MiB")

    seq40 = doubling(tmp, "seq40.pam", ";", 40)
    rc, out, err, cpu, peak = run("simulate", seq40, "--target", "main")
    check("2^40 events in sequence (`;` doubled 40 times): located WorkLimit with the number, exit 1",
          rc == 1 and out == "" and "seq40.pam:41:19: error:" in err and "1099511627776 events" in err
          and "--max-events" in err, f"rc={rc} {err[:400]}")
    check("... in under 1 s of cpu and 100 MiB", cpu < 1 and peak < 100 * MIB, f"{cpu:.2f} s, {peak / MIB:.0f} MiB")

    seq25 = doubling(tmp, "seq25.pam", ";", 25)
    rc, out, err, cpu, peak = run("simulate", seq25, "--target", "main")
    check("2^25 events in sequence: simulated (T_main = 33554432)",
          rc == 0 and "T_main = 33554432\n" in out and "events = 33554432\n" in out, f"rc={rc} {out} {err[:300]}")
    check("... in under 10 s of cpu and 100 MiB (one event waits at a time)", cpu < 10 and peak < 100 * MIB,
          f"{cpu:.2f} s, {peak / MIB:.0f} MiB")

    par20 = doubling(tmp, "par20.pam", "||", 20)
    rc, out, err, cpu, peak = run("simulate", par20, "--target", "main")
    check("2^20 processes at once: simulated (T_main = 1, 1048576 events)",
          rc == 0 and "T_main = 1\n" in out and "events = 1048576\n" in out, f"rc={rc} {out} {err[:300]}")
    check("... in under 80 MiB: about 40 bytes a waiting process (it took 263 MiB, 256 bytes a process)",
          peak < 80 * MIB, f"{peak / MIB:.0f} MiB")

    nested = harness.write(tmp, "nested.pam", "numeric parameter P = 10000\n"
                           "process main = par (i = 1, P) par (j = 1, P) delay(1)\n")
    rc, out, err, cpu, peak = run("simulate", nested)
    check("10^4 x 10^4 nested par: refused before the run, with the number",
          rc == 1 and "nested.pam:2:16: error:" in err and "100000000 processes at once" in err and cpu < 1
          and peak < 100 * MIB, f"rc={rc} {err[:300]} {cpu:.2f} s {peak / MIB:.0f} MiB")
    rc, out, err, cpu, peak = run("simulate", nested, "-D", "P=100", "--max-processes", "5000")
    check("--max-processes is the user's: 10^4 at once past a limit of 5000", rc == 1 and "10000 processes" in err
          and "(5000)" in err, f"rc={rc} {err[:300]}")

    # A bound known only while running (seq (j = 1, i)): the check before the run counts
    # nothing below it, and the run refused the 16 nested pars one par at a time, past 10^7
    # processes and 550 MB. The par counts what its branches hold before allocating any.
    deep = harness.write(tmp, "deep_pars.pam", "numeric parameter N\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
                         "process main = " + "par (j = 0, N - 1) " * 16 +
                         "par (i = 1, N) seq (j = 1, i) use(cpu(i mod P), sqrt(j))\n")
    rc, out, err, cpu, peak = run("simulate", deep, "-D", "N=50", "-D", "P=4")
    check("16 nested pars over a loop bounded while running: refused at the outer par, with the number",
          rc == 1 and out == "" and "deep_pars.pam:4:16: error: this par would hold 2.3199587452168365e+29 processes"
          in err and "--max-processes limit (10000000)" in err and "[WorkLimit]" in err, f"rc={rc} {err[:400]}")
    check("... in under 1 s of cpu and 100 MiB (it took 1.75 s and 546 MiB)", cpu < 1 and peak < 100 * MIB,
          f"{cpu:.2f} s, {peak / MIB:.0f} MiB")
    # 1 + 4 * (1 + 1 + 3 * (1 + 1 + 1)) = 45 processes (the pars' tasks, each branch's task,
    # each seq's task and its first use): the count is exact where every bound is known.
    small = harness.write(tmp, "small_pars.pam", "resource cpu(p) = fcfs(p, 1)\n"
                          "process main = par (k = 1, 4) par (i = 1, 3) seq (j = 1, i) use(cpu(i), 1)\n")
    rc, out, err, cpu, peak = run("simulate", small, "--max-processes", "44")
    check("the count is exact where every bound is known: 45 processes past a limit of 44",
          rc == 1 and "small_pars.pam:2:16: error: this par would hold 45 processes" in err, f"rc={rc} {err[:300]}")
    rc, out, err, cpu, peak = run("simulate", small, "--max-processes", "45")
    check("... and a limit of 45 simulates it (T_main = 12: cpu(3) serves 4 x 3 uses of 1 s)",
          rc == 0 and "T_main = 12\n" in out, f"rc={rc} {out[:300]} {err[:300]}")

    # --max-events speaks of events
    rc, out, err = pamc("simulate", harness.MRM, "-D", "P=3", "-D", "N=2", "--max-events", "5")
    check("--max-events 5 on a run of 12 events: says events, before the run",
          rc == 1 and "needs at least 12 events" in err and "--max-events limit (5)" in err and "iteration" not in err,
          err)
    tri = harness.write(tmp, "triangle.pam", "numeric parameter N = 100\n"
                        "process main = seq (i = 1, N) seq (j = 1, i) delay(1)\n")
    rc, out, err = pamc("simulate", tri, "--max-events", "5")
    check("--max-events 5 where the count is known only while running: stops after 5 events",
          rc == 1 and "stopped after 5 events at time" in err and "[WorkLimit]" in err, err)

    # names and numbers
    two = harness.write(tmp, "two_families.pam", "numeric parameter P = 4\nresource cpu(p) = fcfs(p, 1)\n"
                        "resource link(p) = fcfs(P + p, 1)\n"
                        "process main = par (p = 0, P - 1) { use(cpu(p), 1) ; use(link((p + 1) mod P), 2) }\n")
    rc, out, err = pamc("simulate", two)
    check("two resource families: every member named (cpu(3) = fcfs(3, 1), link(2) = fcfs(6, 1))",
          rc == 0 and "resource cpu(3) = fcfs(3, 1):" in out and "resource link(2) = fcfs(6, 1):" in out
          and "resource fcfs(" not in out, out + err)
    rc, out, err = pamc("simulate", harness.MRM, "-D", "P=10", "-D", "N=10000")
    check("numbers as eval prints them: T_main = 101000.9, requests 100000 (not 1e+05, no trailing noise)",
          rc == 0 and "T_main = 101000.9\n" in out and "requests 100000\n" in out, out + err)
    rc, out, err = pamc("simulate", harness.MRM, "-D", "P=10", "-D", "N=100", "--json")
    check("--json keeps every digit of the double", rc == 0 and '"mean": 1010.9000000000018' in out, out)
    return harness.summary("simulator budget checks")


if __name__ == "__main__":
    raise SystemExit(main())
