#!/usr/bin/env python3
"""`pamc eval` against Aspen's `runtime` tool on Aspen's own models (samples/aspen/), in
instructions of the whole process (callgrind: exact and repeatable, start-up included).

  python3 tests/bench/aspen_bench.py --pamc build/pamc [--aspen PATH/TO/aspen] [--top 12] [--only comd_x5660]

--aspen names the aspen/ folder of a built copy of Aspen (repository monil01/mapredict,
folder aspen/, `./configure && make`); without it, or if its tools/prediction/runtime is
not built, Aspen's column is skipped. --top N also prints, per sample, the N functions of
pamc with the most instructions (inclusive, then self), which is where to look when pamc
is the slower. `--startup` adds `pamc --version`: what runs before main.
Needs valgrind. docs/benchmarks.md has the figures.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# (Pamela port, Aspen's app model, machine model, socket): the pairs run_aspen.py pins.
SAMPLES = [
    ("matmul_m2090", "matmul/matmul.aspen", "machine/keeneland.aspen", "nvidia_m2090"),
    ("fft3d_m2090", "3dfft/3D_FFT.aspen", "machine/fermiCluster.aspen", "nvidia_m2090"),
    ("minimd_m2090", "md/miniMD.aspen", "machine/fermiCluster.aspen", "nvidia_m2090"),
    ("comd_x5660", "comd/CoMD.aspen", "machine/keeneland.aspen", "intel_xeon_x5660"),
    ("maxloadstore_simple", "examples/maxloadstore_1.aspen", "machine/simple.aspen", "SimpleCPU"),
]


def callgrind(cmd, keep=None):
    """Instructions of the whole process cmd (and its output file when keep is a path)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = keep or os.path.join(tmp, "callgrind.out")
        p = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *cmd],
                           capture_output=True, text=True, cwd=ROOT)
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
        m = re.search(r"Collected : (\d+)", p.stderr)
        if not m:
            sys.exit(f"no instruction count from callgrind: {p.stderr[-2000:]}")
        return int(m.group(1))


def top_functions(path, n, inclusive):
    """The n functions with the most instructions in a callgrind output file."""
    p = subprocess.run(["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}",
                        "--threshold=100", path], capture_output=True, text=True)
    rows = []
    for line in p.stdout.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*([\d.]+)%\)\s+(\S.*)", line)
        if m:
            name = re.sub(r"\s+\[[^\]]*\]$", "", m.group(3))  # the binary it is in
            name = re.sub(r"^[^ ]*?:(?=[^/]*$)", "", name) if ":" in name else name  # the file
            rows.append((int(m.group(1).replace(",", "")), m.group(2), name))
    return rows[:n]


def mega(x):
    return f"{x / 1e6:.2f} M"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pamc", required=True)
    ap.add_argument("--aspen", default=os.environ.get("ASPEN_DIR"),
                    help="the aspen/ folder of a built Aspen (default: $ASPEN_DIR)")
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--startup", action="store_true")
    ap.add_argument("--only", help="comma-separated ports to run (default: all)")
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    runtime = args.aspen and os.path.join(args.aspen, "tools", "prediction", "runtime")
    if runtime and not os.access(runtime, os.X_OK):
        print(f"Aspen skipped: {runtime} is not built", file=sys.stderr)
        runtime = None
    elif not runtime:
        print("Aspen skipped: no --aspen folder (or ASPEN_DIR)", file=sys.stderr)

    if args.startup:
        print(f"pamc --version (start-up only): {mega(callgrind([pamc, '--version']))}")
    print("| sample | pamc eval | pamc eval --closed-form | Aspen runtime | pamc / Aspen | closed form / Aspen |")
    print("|---|---|---|---|---|---|")
    details = []
    with tempfile.TemporaryDirectory() as tmp:
        for port, app, machine, socket in SAMPLES:
            if args.only and port not in args.only.split(","):
                continue
            keep = os.path.join(tmp, f"{port}.callgrind") if args.top else None
            ours = callgrind([pamc, "eval", f"samples/aspen/{port}.pam"], keep)
            closed = callgrind([pamc, "eval", "--closed-form", f"samples/aspen/{port}.pam"])
            theirs = None
            if runtime:
                models = os.path.join(args.aspen, "models")
                theirs = callgrind([runtime, os.path.join(models, app),
                                    os.path.join(models, machine), socket])
            ratio = f"{ours / theirs:.2f}x" if theirs else "-"
            ratio_closed = f"{closed / theirs:.2f}x" if theirs else "-"
            print(f"| {port} | {mega(ours)} | {mega(closed)} | {mega(theirs) if theirs else '-'} | {ratio} | {ratio_closed} |",
                  flush=True)
            if keep:
                details.append((port, keep, ours))
        for port, path, total in details:
            for inclusive in (True, False):
                print(f"\n{port}: top {args.top} functions of pamc, "
                      f"{'inclusive' if inclusive else 'self'} (of {mega(total)})")
                for count, pct, name in top_functions(path, args.top, inclusive):
                    print(f"  {mega(count):>10} {pct:>5}%  {name[:150]}")


if __name__ == "__main__":
    main()
