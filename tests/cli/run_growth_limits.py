#!/usr/bin/env python3
"""Hostile inputs past pamc's limits end at once with a located error, in little memory: one
input per class of tests/bench/growth_bench.py, through compile, eval and simulate.

  numbers   32 lines that each double an exact number's size: the exact-number budget stops
            the line that would pass 300,000 digits (ValueTooLarge, naming its equation)
  nesting   1024 nested `par (i = 1, 2)`: the loop-nesting limit (NestingTooDeep at the
            33rd loop), and the same depth reached through 64 processes calling each other
  vectors   no limit: a literal of 2^15 elements gives its value (vector literals are built
            in linear time)
  isums     32 lines d_k = sum (i = 1, d_{k-1}) { i + 1 } (d10 adds 1 / 3): compile stops
            d21, whose closed form passes 300,000 digits (ValueTooLarge); eval, at its one
            point, finds d11's bound d10 is not an integer (NonIntegerBound) before any
            number grows; simulate refuses the delay before its steps (WorkLimit)

Not a timed test: each run has a CPU limit (RLIMIT_CPU) and a peak-memory check that only a
runaway breaks (before these limits, the first two classes ran for minutes and gigabytes)."""
import argparse, os, re, resource, subprocess, sys, tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import growth_bench  # noqa: E402  (the generators the benchmark measures)
import harness
from harness import check

PEAK_MIB = 100 * float(os.environ.get("PAMC_TIMEOUT_SCALE", "1"))  # ASan doubles memory


def limiter(seconds):
    seconds = int(max(1, seconds * float(os.environ.get("PAMC_TIMEOUT_SCALE", "1"))))
    return lambda: resource.setrlimit(resource.RLIMIT_CPU, (seconds, seconds + 1))


def run(args, cpu_seconds=30):
    """(exit status or -signal, stdout, stderr, peak MiB) of pamc under the CPU limit."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen([harness.PAMC, *args], stdout=out, stderr=err, preexec_fn=limiter(cpu_seconds))
        _, status, ru = os.wait4(p.pid, 0)
        out.seek(0)
        err.seek(0)
        return (os.waitstatus_to_exitcode(status), out.read().decode("utf-8", "replace"),
                err.read().decode("utf-8", "replace"), ru.ru_maxrss / 1024.0)


def past_limit(tmp, name, text, kind, where, message, equation):
    """The simulator evaluates expressions, not equations: its message is located at the
    equation's line but does not repeat the name the compiler's messages start with."""
    path = harness.write(tmp, name, text)
    for command in ("compile", "eval", "simulate"):
        said = (equation + ": " if command != "simulate" or kind != "ValueTooLarge" else "") + message
        located = re.compile(r"^%s:%s: error: %s.*\[%s\]$" % (re.escape(path), where, re.escape(said), kind), re.M)
        rc, out, err, peak = run([command, path])
        check("%s: pamc %s: exit 1, %s at %s" % (name, command, kind, where), rc == 1 and located.search(err),
              "rc=%s %s" % (rc, err[:400]))
        check("%s: pamc %s: peak memory under %d MiB" % (name, command, PEAK_MIB), peak < PEAK_MIB, "%.1f MiB" % peak)
        check("%s: pamc %s: no partial output" % (name, command), out == "", out[:200])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    args = ap.parse_args()
    harness.PAMC = os.path.abspath(args.pamc)
    with tempfile.TemporaryDirectory() as tmp:
        # c20 = c19 * c19 + c19 would have about 575,000 digits: line 21, the product.
        past_limit(tmp, "numbers_32.pam", growth_bench.numbers(32), "ValueTooLarge", "21:19",
                   "the exact value of this product would have about", "c20")
        # The 33rd loop of 1024 starts at column 16 + 32 * 15.
        past_limit(tmp, "nesting_1024.pam", growth_bench.nesting(1024), "NestingTooDeep", "1:%d" % (16 + 32 * 15),
                   "loops nested more than 32 deep", "main")
        calls = "process p0 = delay(1)\n" + "".join("process p%d = par (i = 1, 2) p%d\n" % (k, k - 1) for k in range(1, 65))
        past_limit(tmp, "nesting_calls_64.pam", calls + "process main = p64\n", "NestingTooDeep", "2:14",
                   "loops nested more than 32 deep", "p33")
        # Sums of a polynomial in the index, each the bound of the next: d21 (line 22) passes
        # the digit limit; eval's point has no value (d10 = ... + 1 / 3 bounds d11's loop),
        # reported at the process, since every line's loop has the index i; the simulator's
        # per-expression step budget refuses the delay.
        path = harness.write(tmp, "isums_32.pam", growth_bench.isums(32))
        for command, where, kind, said in (("compile", "22:1", "ValueTooLarge", "d21: the exact value of a number"),
                                           ("eval", "34:1", "NonIntegerBound", "T_main: non-integer loop bound (upper = "),
                                           ("simulate", "33:15", "WorkLimit", "a delay time: its evaluation would take")):
            located = re.compile(r"^%s:%s: error: %s.*\[%s\]$" % (re.escape(path), where, re.escape(said), kind), re.M)
            rc, out, err, peak = run([command, path])
            check("isums_32.pam: pamc %s: exit 1, %s at %s" % (command, kind, where), rc == 1 and located.search(err),
                  "rc=%s %s" % (rc, err[:400]))
            check("isums_32.pam: pamc %s: peak memory under %d MiB" % (command, PEAK_MIB), peak < PEAK_MIB, "%.1f MiB" % peak)
            check("isums_32.pam: pamc %s: no partial output" % command, out == "", out[:200])
        # No limit on vectors: 2^15 ones, max(v) = 1 by every command.
        path = harness.write(tmp, "vectors_32768.pam", growth_bench.vectors(1 << 15))
        for command, want in (("compile", "numeric T_main = max(["), ("eval", "numeric T_main = 1\n"),
                              ("simulate", "")):
            rc, out, err, peak = run([command, path])
            check("vectors_32768.pam: pamc %s: exit 0 with %r" % (command, want), rc == 0 and want in out,
                  "rc=%s %s %s" % (rc, out[:200], err[:300]))
            check("vectors_32768.pam: pamc %s: peak memory under %d MiB" % (command, PEAK_MIB), peak < PEAK_MIB,
                  "%.1f MiB" % peak)
        # A weight whose inner sums close to polynomials of hundreds of terms, under a cyclic
        # map of blocks: each rule asks claims about it that interval arithmetic cannot
        # settle, and the prover's retries expanded them (37 s of cpu). A claim now has a
        # counted budget of proof steps, and one that spends it stays unproved; a rule no
        # longer assumes "1 / B is an integer" (B = 1 only), which led there.
        skip = ("numeric parameter B\nnumeric parameter C\nnumeric parameter K\nnumeric parameter N\n"
                "numeric parameter P\nresource cpu(p) = fcfs(p, 1)\n"
                "process main = seq (k = 1, N - 1) par (i = k, N) if (i != K) use(cpu(i div B), "
                "(min(C * P, N - i + 1)) - K)\n")
        path = harness.write(tmp, "budget_note.pam", skip)
        rc, out, err, peak = run(["compile", path], cpu_seconds=10)
        check("budget_note.pam: pamc compile ends and says how many claims stopped at the prover's budget",
              rc == 0 and re.search(r"^% note: \d+ claims? the simplifier asked took the prover past its budget", out, re.M),
              "rc=%s %s %s" % (rc, out[:300], err[:300]))
        heavy = ("numeric parameter B\nnumeric parameter C\nnumeric parameter N\nnumeric parameter P\n"
                 "resource cpu(p) = fcfs(p, 1)\n"
                 "process main = seq (k = 1, N - 1) par (i = k, N) use(cpu((i div B) mod P), "
                 "((min(N - i + 1, C) + min(i * C, C)) * ((i - C) * (N - i))) * (1 + (i mod 2)))\n")
        path = harness.write(tmp, "heavy_weight.pam", heavy)
        rc, out, err, peak = run(["compile", path])
        check("heavy_weight.pam: pamc compile ends (with the loops it cannot close named)",
              rc == 0 and "numeric T_main = " in out and "% open:" in out, "rc=%s %s" % (rc, err[:300]))
        # At a point where the model has no value (N = 10.5: a loop bound that is not an
        # integer), eval says so from the model at once, without building the closed form
        # for every value (which costs the seconds above and ends in the same error).
        rc, out, err, peak = run(["eval", path, "-D", "N=10.5", "-D", "B=2", "-D", "C=3", "-D", "P=4"],
                                 cpu_seconds=2)
        check("heavy_weight.pam: pamc eval at N = 10.5: exit 1, NonIntegerBound at the loop, within 2 s of cpu",
              rc == 1 and re.search(r"heavy_weight.pam:6:16: error: T_main: non-integer loop bound \(upper = 9.5\)", err),
              "rc=%s %s" % (rc, err[:300]))
        # Workers of two speeds under a stride-3 cyclic map: the residue weight splits the max
        # into cases whose claims divide by up to eight residue expressions, and bringing
        # one over a common denominator took 10 s per claim (13 s in all). The prover now
        # tries the quotient over three divisors at most: 0.6 s, the same closed form.
        residue = ("numeric parameter N\nnumeric parameter P\nnumeric parameter t\nresource cpu(p) = fcfs(p, 1)\n"
                   "process main = par (i = 1, N) use(cpu((3 * i + 1) mod P), t / (1 + (i mod P) mod 2))\n")
        path = harness.write(tmp, "residue_stride3.pam", residue)
        rc, out, err, peak = run(["compile", path], cpu_seconds=4)
        check("residue_stride3.pam: pamc compile closes the stride-3 cyclic map with a residue weight within 4 s of cpu",
              rc == 0 and "numeric T_main = " in out and "% open:" not in out and "(P mod 3 == 0)" in out,
              "rc=%s %s" % (rc, err[:300]))
        rc, out, err, peak = run(["eval", path, "-D", "N=20", "-D", "P=6", "-D", "t=2", "--closed-form"], cpu_seconds=4)
        check("residue_stride3.pam: its closed form at N = 20, P = 6, t = 2 is 20 (cpu 1 holds the ten even i, each t)",
              rc == 0 and out.strip().endswith("= 20"), "rc=%s %s %s" % (rc, out[:300], err[:300]))
        # A residue split by 6 beside a test by W: the split leaves (6 * i + 2) mod W, and
        # reading that stride by cases on W mod 6 multiplied the cases (20 s). A stride past
        # 4 stays as written: 0.07 s.
        split = ("numeric parameter N\nnumeric parameter W\nresource bus = fcfs(0, 1)\n"
                 "process main = seq (k = 0, N - 1) par (i = 0, k) if (i mod 6 != 1 and i mod W != 0) use(bus, 1)\n")
        path = harness.write(tmp, "residue_split_by_6.pam", split)
        rc, out, err, peak = run(["compile", path], cpu_seconds=4)
        check("residue_split_by_6.pam: pamc compile ends within 4 s of cpu",
              rc == 0 and "numeric T_main = " in out, "rc=%s %s" % (rc, err[:300]))
    return harness.summary("growth-limit checks")


if __name__ == "__main__":
    sys.exit(main())
