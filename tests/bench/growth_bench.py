#!/usr/bin/env python3
"""Growth of pamc's time and memory on hostile inputs, one class at a time, at sizes 2^k:

  numbers   numeric c1 = c0 * c0 + c0, c2 = c1 * c1 + c1, ... (each line doubles the exact
            number's size): k lines; the exact-number budget stops it at c20
  nesting   k nested `par (i = 1, 2)` loops around a delay; the loop-nesting limit (32)
            stops it past 32
  vectors   a vector literal of k elements, [1, 1, ...], and the time max(v)
  par       process c1 = c0 || c0, c2 = c1 || c1, ...: k lines, 2^k processes at once;
            --max-processes (10^7) refuses past 23 lines
  seq       the same with `;`: 2^k events; --max-events (10^9) refuses past 29 lines
  sums      d_k = sum (i = 1, d_{k-1}) { d_{k-1} + 1 }, one body + 1 / 3 (the fuzzer's
            timeout-a82dd4e8): k lines; the written-size budget stops it past 16
  triangle  delay(sum (i = 1, k) { sum (j = 1, i) { j } }): k^2 / 2 loop steps; simulate's
            per-expression budget (10^7 steps) stops it past k = 4472
  isums     d_k = sum (i = 1, d_{k-1}) { i + 1 }, bodies that read the index, one i + 1 / 3
            at line 10 (d11's bound is not an integer): k lines; the exact-number budget
            stops it past 20
  psort     k nested `par (j = 0, N - 1)` around the sample sort of samples/ (the fuzzer's
            timeout-9d7e0b1b): one more argument of the loads' max per level; the
            loop-nesting limit stops it past 30 (the sort's own loops are two more)

Each size runs through compile, eval and simulate; the table gives wall time, peak RSS and
the outcome (ok, or the kind of the located error). Near-linear means: doubling k about
doubles the time and memory up to the limit, and past it the error comes at once.

  python3 tests/bench/growth_bench.py --pamc build/pamc [--classes numbers,nesting,vectors,par,seq,sums,triangle,isums,psort]
"""
import argparse, os, re, subprocess, tempfile, time

KIND = re.compile(r"error: .*\[(\w+)\]")


def numbers(k):
    lines = ["numeric c0 = 3"] + ["numeric c%d = c%d * c%d + c%d" % (i, i - 1, i - 1, i - 1) for i in range(1, k + 1)]
    return "\n".join(lines) + "\nprocess main = delay(c%d)\n" % k


def nesting(k):
    return "process main = " + "par (i = 1, 2) " * k + "delay(1)\n"


def vectors(k):
    return "numeric v = [" + ", ".join(["1"] * k) + "]\nprocess main = delay(max(v))\n"


def doubling(op):
    return lambda k: ("process c0 = delay(1)\n" + "".join("process c%d = c%d %s c%d\n" % (i, i - 1, op, i - 1)
                                                         for i in range(1, k + 1)) + "process main = c%d\n" % k)


def sums(k):
    adds = ["1", "1", "0", "1", "1", "1", "1", "1", "1", "(1 / 3)"] + ["1"] * max(0, k - 10)
    return "numeric d0 = -1 + 3\n" + "".join("numeric d%d = sum (i = 1, d%d) { d%d + %s }\n" % (i, i - 1, i - 1, adds[i - 1])
                                            for i in range(1, k + 1)) + "process main = delay(d%d)\n" % k


def isums(k):
    return "numeric d0 = -1 + 3\n" + "".join("numeric d%d = sum (i = 1, d%d) { i + %s }\n" % (i, i - 1, "(1 / 3)" if i == 10 else "1")
                                            for i in range(1, k + 1)) + "process main = delay(d%d)\n" % k


def psort(k):
    return ('import "das.pam"\nnumeric parameter N = 819200 >= 1\nnumeric parameter P = 64 >= 1 <= N\n'
            "numeric B = N / P\nnumeric owner(e) = e div B\nprocess main = " + "par (j = 0, N - 1) " * k + "{\n"
            "  par (p = 0, P - 1) quicksort(p, B) ;\n  seq (p = 0, P - 1) bcast(p, P * word) ;\n"
            "  par (p = 0, P - 1) quicksort(p, P * P) ;\n"
            "  seq (e = 0, N - 1) { seq (r = 1, ceil(log2(P))) cmp(owner(e)) ; store(owner(e), 1) ; bcast(owner(e), word) } ;\n"
            "  par (p = 0, P - 1) seq (q = 1, P - 1) send(p, B / P * word) ;\n  par (p = 0, P - 1) quicksort(p, B)\n}\n")


def triangle(k):
    return "process main = delay(sum (i = 1, %d) { sum (j = 1, i) { j } } / 1e12)\n" % k


CLASSES = {"numbers": (numbers, [2 ** j for j in range(1, 6)]),
           "nesting": (nesting, [2 ** j for j in range(1, 11)]),
           "vectors": (vectors, [2 ** j for j in range(4, 18, 2)]),
           "par": (doubling("||"), [2, 4, 8, 16, 23, 24, 32]),
           "seq": (doubling(";"), [2 ** j for j in range(1, 6)]),
           "sums": (sums, [2, 4, 8, 16, 17, 32]),
           "triangle": (triangle, [2 ** j for j in range(6, 21, 2)]),
           "isums": (isums, [2, 4, 8, 11, 16, 20, 21, 32]),
           "psort": (psort, [1, 2, 4, 8, 16, 24, 30, 31, 64])}
COMMANDS = ["compile", "eval", "simulate"]


def run(pamc, command, path, timeout):
    """(seconds, peak MiB, outcome) of one run; outcome is 'ok', an error kind or 'timeout'."""
    t0 = time.perf_counter()
    p = subprocess.Popen([pamc, command, path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    timed_out = False
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - t0 > timeout and not timed_out:
            p.kill()
            timed_out = True
        time.sleep(0.005)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode("utf-8", "replace")
    p.stderr.close()
    if timed_out:
        return wall, ru.ru_maxrss / 1024.0, "timeout"
    code = os.waitstatus_to_exitcode(status)
    m = KIND.search(err)
    return wall, ru.ru_maxrss / 1024.0, "ok" if code == 0 else (m.group(1) if m else "exit %d" % code)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--classes", default=",".join(CLASSES))
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.classes.split(","):
            make, sizes = CLASSES[name]
            print("%s: size, then seconds / peak MiB / outcome for %s" % (name, ", ".join(COMMANDS)))
            for k in sizes:
                path = os.path.join(tmp, "%s_%d.pam" % (name, k))
                with open(path, "w") as f:
                    f.write(make(k))
                cells = []
                for command in COMMANDS:
                    wall, rss, outcome = run(args.pamc, command, path, args.timeout)
                    cells.append("%7.2f s %6.1f MiB %-14s" % (wall, rss, outcome))
                print("  %7d  %s" % (k, "  ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
