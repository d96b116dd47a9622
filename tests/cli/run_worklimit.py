#!/usr/bin/env python3
"""A point that would unroll more reduction terms than --max-terms stops before evaluating,
with a diagnostic at the loop that costs most and why that loop is open (exit 1, never a
hang); below the limit the open form evaluates to brute force's value."""
import argparse, json, os, re, shutil, signal, subprocess, sys, tempfile, time

import harness
from harness import check, pamc

SQRT = os.path.join(harness.ROOT, "tests", "emit", "models", "sqrt_weight.pam")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    rc, out, err = pamc("eval", SQRT, "-D", "N=100000", "-D", "P=3", timeout=30)
    check("over the limit: exit 1", rc == 1, f"rc={rc} {out} {err}")
    check("over the limit: at the loop (4:16), kind WorkLimit", "sqrt_weight.pam:4:16: error:" in err and "[WorkLimit]" in err, err)
    check("over the limit: says why the loop is open", "sqrt(j)" in err and "no closed sum" in err, err)
    check("over the limit: no value printed", out == "", out)
    rc, out, err = pamc("eval", SQRT, "-D", "N=60", "-D", "P=7")
    rb, outb, errb = pamc("eval", SQRT, "-D", "N=60", "-D", "P=7", "--brute-force")
    check("under the limit: the open form's value is brute force's", rc == 0 and rb == 0 and out == outb, out + err + outb + errb)
    # (The closed form for every value keeps 7,320 terms here; simplified at this point, the
    # model keeps fewer than 100.)
    rc, out, err = pamc("eval", SQRT, "-D", "N=60", "-D", "P=7", "--max-terms", "100", "--closed-form")
    check("--max-terms lowers the limit", rc == 1 and "limit of 100" in err, err)
    rc, out, err = pamc("eval", harness.MRM, "-D", "P=1000", "-D", "N=1000000", "--brute-force", timeout=30)
    check("brute force of the seed's MRM point stops at once with the limit", rc == 1 and "[WorkLimit]" in err, err)

    # Above 1e5 terms an open loop runs compiled: integer models stay exact (the brute-force
    # reference agrees digit for digit), a sqrt weight says it is a double.
    tmp = tempfile.mkdtemp(prefix="pamc-worklimit-")
    cyc = harness.write(tmp, "cyclic_pairs.pam",
                        "numeric parameter N\nnumeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
                        "process main = par (i = 0, N - 1) par (j = 0, N - 1) use(cpu((i + j) mod P), 1)\n")
    rc, out, err = pamc("eval", cyc, "-D", "N=700", "-D", "P=7")
    rb, outb, errb = pamc("eval", cyc, "-D", "N=700", "-D", "P=7", "--brute-force", timeout=120)
    check("compiled open loop (4.9e5 terms): exact, equal to brute force, no note",
          rc == 0 and rb == 0 and out == outb == "numeric T_main = 70000\n" and "note" not in err, out + err + outb + errb)
    rc, out, err = pamc("eval", SQRT, "-D", "N=2000", "-D", "P=3", timeout=60)
    rb, outb, errb = pamc("eval", SQRT, "-D", "N=2000", "-D", "P=3", "--brute-force", "--max-terms", "1e8", timeout=120)
    rj, outj, errj = pamc("eval", SQRT, "-D", "N=2000", "-D", "P=3", "--json", timeout=60)
    a = json.loads(outj)["T_main"] if rj == 0 else None
    b = float(outb.split("=")[1]) if rb == 0 else None
    check("compiled open loop with sqrt: within 1e-12 of brute force (--json: the full double), and a note says double precision",
          a is not None and b is not None and abs(a - b) <= 1e-12 * abs(b) and "double precision" in err,
          outj + errj + outb + errb)
    # The text prints the digits the note says are right, and they are right.
    m = re.search(r"leave (\d+) significant digits right", err)
    shown = out.split("= ")[1].strip() if rc == 0 else ""
    digits = len(re.sub(r"[^0-9]", "", shown.split("e")[0]).lstrip("0"))
    check("compiled open loop with sqrt: eval prints the significant digits the note names, all right",
          m is not None and b is not None and 0 < digits <= int(m.group(1)) and
          shown == "%.*g" % (int(m.group(1)), b), out + err + outb)
    rc, out, err = pamc("eval", SQRT, "-D", "N=60", "-D", "P=7", "--brute-force", "--max-terms", "1e3")
    check("--brute-force keeps its own limit", rc == 1 and "limit of 1e+03" in err, err)

    # Where a recorded assumption fails (P >= 1 at P = 0: the par is empty), the time-domain
    # model gives the value; its loops close for that point too, so the point costs about
    # what one in the closed form's region costs: within a work limit the unrolled sum of
    # 1e6 terms would break, and brute force's value.
    fails = harness.write(tmp, "assumption_fails.pam",
                          "numeric parameter N = 10\nnumeric parameter P = 4\nresource cpu(p) = fcfs(p, 1)\n"
                          "process main = seq (i = 1, N) { par (p = 1, P) use(cpu(p), i) ; delay(i) }\n")
    rc, out, err = pamc("compile", fails)
    check("the model's closed form assumes P >= 1", rc == 0 and "assumes P >= 1" in out, out + err)
    rc, out, err = pamc("eval", fails, "-D", "N=1000000", "-D", "P=0", "--max-terms", "1000")
    check("assumption failing at the point: N (N + 1) / 2 within 1,000 terms (the unroll needs 1e6)",
          rc == 0 and out == "numeric T_main = 500000500000\n", out + err)
    rc, out, err = pamc("eval", fails, "-D", "N=1000000", "-D", "P=2", "--max-terms", "1000")
    check("where it holds: N + N ^ 2 within the same limit", rc == 0 and out == "numeric T_main = 1000001000000\n", out + err)
    for n, p_ in (("300", "0"), ("57", "0"), ("0", "0"), ("40", "3")):
        rc, out, err = pamc("eval", fails, "-D", f"N={n}", "-D", f"P={p_}")
        rb, outb, errb = pamc("eval", fails, "-D", f"N={n}", "-D", f"P={p_}", "--brute-force")
        check(f"N = {n}, P = {p_}: brute force's value", rc == 0 and rb == 0 and out == outb, out + err + outb + errb)

    # A long evaluation stops cleanly on Ctrl-C: exit 1, a located message, no value; piped,
    # it draws no progress line (the line is for terminals).
    cmd = [harness.PAMC, "eval", SQRT, "-D", "N=60000", "-D", "P=3", "--max-terms", "1e12"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    check("Ctrl-C: exit 1 with a located 'interrupted' error and no value",
          proc.returncode == 1 and "sqrt_weight.pam:" in err and "interrupted (Ctrl-C)" in err and out == "",
          f"rc={proc.returncode} {out} {err}")
    check("piped: no progress line", "terms/s" not in err, err)
    # Other commands' limits (issue 16): refused at once, with a message, not after memory ran out.
    mrm = harness.MRM
    rc, out, err = pamc("sweep", mrm, "--sweep", "P=1:1e9:x1.0000001", "-D", "N=10", timeout=20)
    check("sweep of 2e8 geometric values: refused before they are made", rc == 2 and "more than" in err, err)
    rc, out, err = pamc("simulate", mrm, "-D", "P=1e18", "-D", "N=1e18", timeout=20)
    check("simulate of a par with 1e18 branches: located WorkLimit, at once",
          rc == 1 and "[WorkLimit]" in err and "mrm.pam:12:" in err, err)
    rc, out, err = pamc("simulate", mrm, "-D", "P=1e-400", "-D", "N=10", timeout=20)
    check("simulate with a value no double holds: refused (eval rejects it too)", rc == 2 and "1e-400" in err, err)
    # 2e12 events: past the default --max-events, refused at once; with no limit it runs until Ctrl-C.
    rc, out, err = pamc("simulate", mrm, "-D", "P=1e6", "-D", "N=1e6", timeout=20)
    check("simulate needing 2e12 events: refused before the run, with the number",
          rc == 1 and "[WorkLimit]" in err and "mrm.pam:12:" in err and "2000000000000 events" in err, err)
    proc = subprocess.Popen([harness.PAMC, "simulate", mrm, "-D", "P=1e6", "-D", "N=1e6", "--max-events", "0"],
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    check("simulate stops on Ctrl-C with a message", proc.returncode == 1 and "interrupted" in err and out == "",
          f"rc={proc.returncode} {out} {err}")
    shutil.rmtree(tmp, ignore_errors=True)
    return harness.summary("work-limit checks")


if __name__ == "__main__":
    sys.exit(main())
