#!/usr/bin/env python3
"""Long chains of one associative operator (N + N + ... + N, p ; q ; r ..., p || q || ...)
are flat, not nesting: a 20,000-term chain compiles, evaluates and simulates to the right
value in well under the time a user waits, through every stage (none recurses once per
term); a chain of `-` is still nesting and stops with a located NestingTooDeep."""
import argparse, tempfile, time

import harness
from harness import check, pamc

TERMS = 20000


def timed(*args):
    start = time.monotonic()
    rc, out, err = pamc(*args, timeout=60)
    return rc, out, err, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-chains-")

    total = harness.write(tmp, "sum.pam", "numeric parameter N\nnumeric total = " + " + ".join(["N"] * TERMS) +
                          "\nprocess main = delay(total)\n")
    rc, out, err, secs = timed("compile", total)
    check("20,000-term sum: compiles (exit 0)", rc == 0, f"rc={rc} {err[:300]}")
    check("20,000-term sum: one closed form", "numeric T_main = %d * N" % TERMS in out, out[:300])
    check("20,000-term sum: compile in under 5 s", secs < 5, f"{secs:.2f} s")
    rc, out, err, secs = timed("eval", total, "-D", "N=3")
    check("20,000-term sum: eval gives 60000 in under 5 s", rc == 0 and out == "numeric T_main = 60000\n" and secs < 5,
          f"rc={rc} {out} {err[:300]} {secs:.2f} s")
    rc, out, err, secs = timed("compile", total, "--stage", "parsed")
    check("20,000-term sum: prints back as one flat chain", rc == 0 and out.count(" + N") == TERMS - 1 and "(" not in
          out.split("total =")[1].split("\n")[0], f"rc={rc} {err[:300]}")

    prod = harness.write(tmp, "product.pam", "numeric parameter N\nnumeric x = " + " * ".join(["N"] * TERMS) +
                         "\nprocess main = delay(1)\n")
    rc, out, err, secs = timed("eval", prod, "--target", "x", "-D", "N=1")
    check("20,000-factor product: N^20000 at N = 1 is 1 in under 5 s",
          rc == 0 and out == "numeric x = 1\n" and secs < 5, f"rc={rc} {out[:80]} {err[:300]} {secs:.2f} s")

    seq = harness.write(tmp, "seq.pam", "process main = " + " ; ".join(["delay(2)"] * TERMS) + "\n")
    rc, out, err, secs = timed("eval", seq)
    check("20,000-step sequence: T_main = 40000 in under 5 s", rc == 0 and out == "numeric T_main = 40000\n" and secs < 5,
          f"rc={rc} {out} {err[:300]} {secs:.2f} s")
    rc, out, err, secs = timed("simulate", seq)
    check("20,000-step sequence: simulate agrees (40000)", rc == 0 and "40000" in out and secs < 10,
          f"rc={rc} {out[:200]} {err[:300]} {secs:.2f} s")

    par = harness.write(tmp, "par.pam", "resource cpu = fcfs(0, 1)\nprocess main = " +
                        " || ".join(["use(cpu, 1)"] * TERMS) + "\n")
    rc, out, err, secs = timed("eval", par)
    check("20,000 parallel uses of one server: T_main = 20000 in under 5 s",
          rc == 0 and out == "numeric T_main = 20000\n" and secs < 5, f"rc={rc} {out} {err[:300]} {secs:.2f} s")

    # A syntax error sends the file to ANTLR (parse/antlr_builder.cpp): its builder joins the chain too.
    bad = harness.write(tmp, "bad_sum.pam", "numeric parameter N\nnumeric x = " + " + ".join(["N"] * TERMS) +
                        " )\nprocess main = delay(x)\n")
    rc, out, err, secs = timed("check", bad)
    check("20,000-term sum with a stray ')': ANTLR reports it at 2:%d in under 5 s" % (len(" + ".join(["N"] * TERMS)) + 14),
          rc == 1 and "bad_sum.pam:2:%d: error:" % (len(" + ".join(["N"] * TERMS)) + 14) in err and secs < 5,
          f"rc={rc} {err[:300]} {secs:.2f} s")

    diff = harness.write(tmp, "difference.pam", "numeric x = " + " - ".join(["1"] * 4000) + "\n")
    rc, out, err, secs = timed("eval", diff, "--target", "x")
    check("a 4,000-term chain of '-' is nesting: located NestingTooDeep, exit 1",
          rc == 1 and "difference.pam:1:" in err and "[NestingTooDeep]" in err, f"rc={rc} {err[:300]}")
    return harness.summary("chain checks")


if __name__ == "__main__":
    raise SystemExit(main())
