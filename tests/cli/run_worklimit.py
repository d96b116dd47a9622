#!/usr/bin/env python3
"""A point that would unroll more reduction terms than --max-terms stops before evaluating,
with a diagnostic at the loop that costs most and why that loop is open (exit 1, never a
hang); below the limit the open form evaluates to brute force's value."""
import argparse, os, signal, subprocess, sys, time

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
    rc, out, err = pamc("eval", SQRT, "-D", "N=60", "-D", "P=7", "--max-terms", "100")
    check("--max-terms lowers the limit", rc == 1 and "limit of 100" in err, err)
    rc, out, err = pamc("eval", harness.MRM, "-D", "P=1000", "-D", "N=1000000", "--brute-force", timeout=30)
    check("brute force of the seed's MRM point stops at once with the limit", rc == 1 and "[WorkLimit]" in err, err)

    # A long evaluation stops cleanly on Ctrl-C: exit 1, a located message, no value; piped,
    # it draws no progress line (the line is for terminals).
    cmd = [harness.PAMC, "eval", SQRT, "-D", "N=20000", "-D", "P=3", "--max-terms", "1e12"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    check("Ctrl-C: exit 1 with a located 'interrupted' error and no value",
          proc.returncode == 1 and "sqrt_weight.pam:" in err and "interrupted (Ctrl-C)" in err and out == "",
          f"rc={proc.returncode} {out} {err}")
    check("piped: no progress line", "terms/s" not in err, err)
    return harness.summary("work-limit checks")


if __name__ == "__main__":
    sys.exit(main())
