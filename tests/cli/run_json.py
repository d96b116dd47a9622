#!/usr/bin/env python3
"""pamc's one JSON style (compiler/support/json.h) where a user sees it: exact numbers in
eval --json, a target asked for twice, the line layout of compile --emit json and
validate --json, strings with quotes, backslashes, control characters, UTF-8 and bytes
that are not UTF-8 (file names, trace regions, CSV paths), never an internal error.
(scripts/json_equality.py compares every JSON output of two builds; this pins the style.)"""
import argparse, os, shutil, sys, tempfile

import harness
from harness import check

DATA = os.path.join(harness.ROOT, "tests", "cli", "data")


def run(*args):
    """pamc with byte arguments and byte output (file names need not be UTF-8)."""
    import subprocess
    p = subprocess.run([harness.PAMC, *args], capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-json-")

    # --- eval: exact numbers, vectors, a target asked for twice ---
    nums = harness.write(tmp, "nums.pam", "numeric parameter x\nnumeric big = 10 ^ 40 * x\nnumeric tiny = x / 10 ^ 30\n"
                         "numeric third = x / 3\nnumeric vec = 10 * unitvec(3) * x / 7\nprocess main = delay(x)\n")
    rc, out, err = run("eval", nums, "-D", "x=2", "--json", *[a for t in ("big", "tiny", "third", "vec", "big")
                                                              for a in ("--target", t)])
    check("eval --json: exact integers in full, exact decimals, shortest doubles, vectors, both answers to big",
          rc == 0 and out == b'{"big": 20000000000000000000000000000000000000000, "tiny": 2e-30, '
          b'"third": 0.6666666666666666, "vec": [0, 0, 0, 2.857142857142857], '
          b'"big": 20000000000000000000000000000000000000000}\n', out + err)

    # --- compile --emit json: a file name JSON must quote, the line layout, empty lists ---
    weird = os.path.join(tmp.encode(), b'q"b\\\tc\r\xc3\xa9\x01.pam')
    with open(weird, "w") as f:
        f.write("process main = delay(3)\n")
    rc, out, err = run("compile", weird, "--emit", "json")
    check("--emit json: the model name quoted, a member a line, an empty list still opens a line",
          rc == 0 and out == b'{\n  "model": "q\\"b\\\\\\tc\\u000d\xc3\xa9\\u0001",\n  "parameters": [\n  ],\n'
          b'  "assumptions": [],\n  "equations": [\n'
          b'    {"name": "T_main", "role": "time", "process": "main", "vector": false, "text": "3",\n'
          b'     "tree": {"num": "3", "value": 3}}\n  ]\n}\n', out + err)

    # --- validate --json: region names from a trace, a region without counters ---
    model = harness.write(tmp, "regions.pam", "numeric parameter size\nregion tzetar {\n  numeric avl = size / 3\n}\n"
                          "process main = delay(size)\n")
    trace = os.path.join(tmp.encode(), b"odd.trace")
    with open(trace, "wb") as f:
        f.write(b"header\nMA:2:ma_vec_loop_start:r\"e\\g\xff:a:1:b:2.5:c:3e-7:2\n"
                b"MA:2:ma_vec_loop_stop:r\"e\\g\xff:1:1e300:2:3:0.1:5:6:1.5e-9:0:0:0\n")
    rc, out, err = run("validate", model, "--trace", trace, "-D", "size=36", "--json")
    counters = [("vector_flops", b"null", b"0.1", b"2.5"), ("vector_loadstore", b"null", b"3", b"1"),
                ("avl", b"null", b"1.5e-09", b"3e-07"), ("mv", b"null", b"null", b"2"),
                ("scalar_flops", b"null", b"0", b"null"), ("scalar_loadstore", b"null", b"0", b"null"),
                ("cycles", b"null", b"1e+300", b"null"), ("stalled_cycles", b"null", b"2", b"null"),
                ("vector_load_stride", b"null", b"5", b"null"), ("vector_load_allocated", b"null", b"6", b"null"),
                ("dcache_misses", b"null", b"0", b"null")]
    want = (b'{"model": "' + model.encode() + b'", "traces": [\n'
            b'  {"trace": "' + trace + b'", "regions": [\n'
            b'    {"region": "tzetar", "in_model": true, "in_trace": false, "calls": 0, "counters": {\n'
            b'      "avl": {"predicted": 12, "measured": null, "error_percent": null, "trace_value": null}\n    }},\n'
            b'    {"region": "r\\"e\\\\g\xff", "in_model": false, "in_trace": true, "calls": 1, "counters": {\n' +
            b",\n".join(b'      "%s": {"predicted": %s, "measured": %s, "error_percent": null, "trace_value": %s}'
                         % (c.encode(), p, m, t) for c, p, m, t in counters) +
            b"\n    }}\n  ]}\n]}\n")
    check("validate --json: a trace, region and counter a line; region names quoted, other bytes as they are",
          rc == 0 and out == want, out + err)

    # --- fit --json: a data path with a control character and a byte that is not UTF-8 ---
    csv = os.path.join(tmp.encode(), b"cr\r\xff.csv")
    shutil.copy(os.path.join(DATA, "cpi_m0.csv"), csv)
    rc, out, err = run("fit", os.path.join(DATA, "cpi.pam"), "--data", csv, "--fit", "m0,cpi_pipeline", "--json")
    check("fit --json: a data path that is not UTF-8 is printed (no internal error), \\r as \\u000d",
          rc == 0 and b'"data": "' + csv.replace(b"\r", b"\\u000d") + b'"' in out, out + err)
    return harness.summary("JSON checks")


if __name__ == "__main__":
    sys.exit(main())
