#!/usr/bin/env python3
"""A real program predicted on this machine: samples/local (docs/local.md).

Builds samples/local/kernel.cpp with the system compiler and times, in rounds over the
whole plan at raised priority, two microbenchmarks (threads that do nothing: the thread
start; a copy of one grid into another: the memory) and two kernels: a blocked matrix
multiply and a 2-D stencil, at a few sizes (the FIT rows) and at other sizes and thread
counts (the HELD-OUT rows). `pamc fit` finds the machine constants of samples/local's
models from the microbenchmarks and the fit rows alone; `pamc simulate` and `pamc eval`
then predict every row. Each kernel's held-out mean and worst absolute error are the
figures of merit (targets: 10 % and 25 %).

  python3 scripts/local_measure.py --pamc build/pamc            measure (about 3 minutes),
                                     fit, predict, write the CSV, docs/local.md, the plot
  python3 scripts/local_measure.py --pamc build/pamc --from-csv samples/local/measurements.csv
                                     fit and predict the checked-in measurements again
  python3 scripts/local_measure.py --pamc build/pamc --check     the same, and fail when
                                     docs/local.md differs from what it would write
  python3 scripts/local_measure.py --pamc build/pamc --quick --work DIR
                                     tiny sizes, everything in DIR (the CTest test)

The stencil model's two cache sizes (a core's own, the shared one) are breakpoints: for
each pair of candidates between the fit rows' working sets, `pamc fit` runs with them,
and the pair with the least residual is kept (least-squares breakpoints, not hand-picked
numbers). Timed runs are raised in
priority against the other programs of a shared machine: real-time first-in first-out
at the lowest priority (chrt -f 1) where allowed (root), else nice -n -10.
"""
import argparse
import csv
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_compare  # noqa: E402  (numbers compared within a tolerance)
import local_page  # noqa: E402  (the page and the plot)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCAL = os.path.join(ROOT, "samples", "local")
MODELS = {name: os.path.join(LOCAL, f"{name}.pam") for name in ("spawn", "stream", "matmul", "stencil")}
# Each model's own constants. The microbenchmarks' come first and are fixed in the
# kernels' fits: t_thread from the spawn runs alone (the kernels' long runs hide it, and
# noise there fits it negative), the shared memory's t_byte from the stream runs.
FITTED = {"spawn": ["t_thread"], "stream": ["t_copy", "t_byte"], "matmul": ["t_fma"],
          "stencil": ["t_point_own", "t_point", "t_point_mem", "t_sync"]}
KERNELS = ("matmul", "stencil")

# (kernel, N, T, role): role "micro" for the microbenchmarks, "fit" for the kernel runs
# the constants are fitted from, "held-out" for those they predict. The matrix multiply
# is fitted on one thread only: two and four threads are predicted. The stencil's
# barrier needs two threads to be seen; its fit sizes lie on both sides of a core's own
# cache and of the shared one (the working set, 16 (N + 2)^2 bytes: 1 MB at N = 256, 4 MB
# at 512, 38 MB at 1536, 105 MB at 2560, 206 MB at 3584), away from the sizes where the
# arrays leave the shared cache gradually (about 50-70 MB: N = 1792 on one thread, 2048
# on two); it is predicted between them (768, 1280, 3072) and beyond them (4096), on one,
# two and four threads. The stream's sizes are all beyond the cache. The stencil's sweep
# count S makes each run about STENCIL_WORK point updates, so small and large grids take
# comparable time.
FULL_PLAN = (
    [("spawn", 0, t, "micro") for t in (1, 2, 4)]
    + [("stream", n, t, "micro") for n in (2560, 3072, 4096) for t in (1, 2)]
    + [("matmul", n, 1, "fit") for n in (128, 160, 192, 224, 256)]
    + [("matmul", n, t, "held-out") for n in (384, 512, 768, 1024) for t in (1, 2, 4)]
    + [("stencil", n, t, "fit") for n in (128, 256, 512, 1024, 1536, 2560, 3584) for t in (1, 2)]
    + [("stencil", n, t, "held-out") for n in (768, 1280, 3072, 4096) for t in (1, 2, 4)]
)
QUICK_PLAN = (
    [("spawn", 0, t, "micro") for t in (1, 2, 4)]
    + [("stream", n, t, "micro") for n in (2048, 2560) for t in (1, 2)]
    + [("matmul", n, 1, "fit") for n in (64, 96, 128, 160)]
    + [("matmul", n, t, "held-out") for n in (192,) for t in (1, 2)]
    + [("stencil", n, t, "fit") for n in (32, 64, 96, 768) for t in (1, 2)]
    + [("stencil", n, t, "held-out") for n in (128, 1024) for t in (1, 2)]
)
STENCIL_WORK = {"full": 2e7, "quick": 1e6}
# ROUNDS over the whole plan; in each, one process per point: a warm-up run, then
# REPEATS timed runs. A point's time is the median of its rounds' medians. The quick run
# (the CTest test, on a machine busy with the rest of the suite) keeps the fastest run
# instead: a 1 ms run that loses its core for a time slice is only ever slower.
ROUNDS = {"full": 5, "quick": 3}
REPEATS = {"full": 5, "quick": 3}


class Failure(Exception):
    pass


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise Failure(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stderr}{r.stdout}")
    return r.stdout


def sweeps(kernel, n, mode):
    return max(2, round(STENCIL_WORK[mode] / (n * n))) if kernel == "stencil" else 0


# --- the machine ---------------------------------------------------------------------

def machine():
    """Cores and the cache sizes the kernel reports (sysfs), for the page."""
    caches = {}
    base = "/sys/devices/system/cpu/cpu0/cache"
    if os.path.isdir(base):
        for d in sorted(os.listdir(base)):
            try:
                with open(os.path.join(base, d, "level")) as f:
                    level = f.read().strip()
                with open(os.path.join(base, d, "type")) as f:
                    kind = f.read().strip()
                with open(os.path.join(base, d, "size")) as f:
                    size = f.read().strip()
            except OSError:
                continue
            if kind != "Instruction":
                caches[f"L{level}"] = size
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            model = m.group(1).strip() if m else ""
    except OSError:
        pass
    return {"cores": min(2, os.cpu_count() or 1), "cpu": model, "caches": caches}


# --- measuring -----------------------------------------------------------------------

def build_kernel(cxx, work):
    exe = os.path.join(work, "local_kernel")
    run([cxx, "-O2", "-std=c++20", "-pthread", "-o", exe, os.path.join(LOCAL, "kernel.cpp")])
    return exe


def raise_priority():
    """Run in the child before the kernel starts: its own session, scheduled first-in
    first-out at the lowest real-time priority (chrt -f 1), so that its threads take a
    core from other programs the moment they are woken; where that is not allowed (not
    root), raised by 10 (nice -n -10) instead, and where that is not allowed either, left
    as it is: the timings are then only noisier. Not nice -n -10 alone, as
    samples/mpi/measure.py does: on this machine's kernel a woken thread then waited for
    the other program's time slice to end (up to a 4 ms tick), and a two-thread stencil
    obtained one core. The kernel keeps 5 % of every second for other programs
    (sched_rt_runtime_us), and each timed process runs for seconds at most."""
    os.setsid()
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))
        return
    except (OSError, AttributeError):
        pass
    for step in (lambda: os.nice(-10), lambda: open("/proc/self/autogroup", "w").write("-10")):
        try:
            step()
        except OSError:
            pass


def priority_note():
    """How raise_priority() left a child: asked of a child."""
    r = subprocess.run([sys.executable, "-c", "import os; print(os.sched_getscheduler(0), os.nice(0))"],
                       capture_output=True, text=True, preexec_fn=raise_priority)
    policy, nice = (r.stdout.split() + ["", ""])[:2]
    if policy == str(os.SCHED_FIFO):
        return "real-time priority (first in, first out, priority 1: chrt -f 1)"
    if nice.lstrip("-").isdigit() and int(nice) < 0:
        return f"raised priority (nice -n {nice})"
    return "normal priority (not allowed to raise it)"


def command(exe, kernel, n, t, s, repeats):
    return ([exe, kernel] + ([str(n)] if kernel != "spawn" else []) + [str(t)]
            + ([str(s)] if kernel == "stencil" else []) + [str(repeats)])


def measure(exe, plan, mode, log):
    """ROUNDS rounds over all the points, in each one process per point (a warm-up run,
    then REPEATS timed runs), so that a burst of other programs' load (which the raised
    priority keeps off the cores but not off the shared cache and memory) spoils one
    round of many points rather than every run of one. (raise_priority: the priority.)"""
    medians = {i: [] for i in range(len(plan))}
    walls = {i: [] for i in range(len(plan))}
    loads = {i: [] for i in range(len(plan))}
    shares = {i: [] for i in range(len(plan))}  # CPU seconds / wall seconds of the process
    for rnd in range(ROUNDS[mode]):
        for i, (kernel, n, t, role) in enumerate(plan):
            args = command(exe, kernel, n, t, sweeps(kernel, n, mode), REPEATS[mode])
            loads[i].append(os.getloadavg()[0])
            r = subprocess.run(args, capture_output=True, text=True, preexec_fn=raise_priority)
            if r.returncode != 0:
                raise Failure(f"{' '.join(args)}: exit {r.returncode}\n{r.stderr}")
            runs = [line.split() for line in r.stdout.splitlines() if line.strip()]
            if len(runs) != REPEATS[mode] or any(len(x) < 3 for x in runs):
                raise Failure(f"{' '.join(args)}: not {REPEATS[mode]} timings in its output:\n{r.stdout}")
            these = [float(x[-2]) for x in runs]
            medians[i].append(statistics.median(these))
            walls[i] += these
            shares[i] += [float(x[-1]) / float(x[-2]) if float(x[-2]) > 0 else 0.0 for x in runs]
        log(f"  round {rnd + 1} of {ROUNDS[mode]} (load average {os.getloadavg()[0]:.2f})")
    rows = []
    for i, (kernel, n, t, role) in enumerate(plan):
        seconds = statistics.median(medians[i]) if mode == "full" else min(walls[i])
        row = {"kernel": kernel, "N": n, "T": t, "S": sweeps(kernel, n, mode), "role": role,
               "seconds": seconds, "min": min(walls[i]), "max": max(walls[i]),
               "repeats": len(walls[i]), "load": round(statistics.mean(loads[i]), 2),
               "cpu": round(statistics.median(shares[i]), 2)}
        log(f"  {kernel:7} N={n:<5} T={t} S={row['S']:<5} {row['seconds']:.6g} s (rounds: "
            + ", ".join(f"{x:.4g}" for x in medians[i])
            + f"; mean load {row['load']:.2f}; cores obtained {row['cpu']:.2f})")
        rows.append(row)
    return rows


def write_measurements(path, rows, info):
    with open(path, "w", newline="") as f:
        f.write(f"# samples/local/kernel.cpp timed by scripts/local_measure.py on {info['cpu']}, "
                f"{info['cores']} cores, {info.get('priority', 'normal priority')}; seconds = the median over "
                f"{ROUNDS['full']} rounds of the median of {REPEATS['full']} timed runs; min, max over all the runs; "
                f"load = 1-minute load average over the point's rounds; cpu = the kernel's CPU seconds over its wall "
                f"seconds (median over the runs: the cores it obtained)\n")
        w = csv.DictWriter(f, fieldnames=["kernel", "N", "T", "S", "role", "seconds", "min", "max",
                                          "repeats", "load", "cpu"], lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({**r, "seconds": f"{r['seconds']:.9g}", "min": f"{r['min']:.9g}",
                        "max": f"{r['max']:.9g}"})


def read_measurements(path):
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    rows = []
    for r in csv.DictReader(lines):
        rows.append({"kernel": r["kernel"], "N": int(r["N"]), "T": int(r["T"]), "S": int(r["S"]),
                     "role": r["role"], "seconds": float(r["seconds"]), "min": float(r["min"]),
                     "max": float(r["max"]), "repeats": int(r["repeats"]), "load": float(r["load"]),
                     "cpu": float(r.get("cpu") or "nan")})
    return rows


# --- fitting and predicting ----------------------------------------------------------

def inputs(row, cores):
    d = {"T": row["T"], "cores": cores}
    if row["kernel"] != "spawn":
        d["N"] = row["N"]
    if row["kernel"] == "stencil":
        d["S"] = row["S"]
    return d


def fit(pamc, kernel, rows, cores, work, fixed, start=None):
    """`pamc fit` of the kernel's constants from its fit (or microbenchmark) rows; returns
    the JSON result."""
    data = os.path.join(work, f"{kernel}_fit.csv")
    cols = (["N"] if kernel != "spawn" else []) + ["T", "cores"] + (["S"] if kernel == "stencil" else [])
    with open(data, "w") as f:
        f.write(",".join(cols + ["time"]) + "\n")
        for r in rows:
            if r["kernel"] == kernel and r["role"] in ("fit", "micro"):
                d = inputs(r, cores)
                f.write(",".join(str(d[c]) for c in cols) + f",{r['seconds']:.9g}\n")
    cmd = [pamc, "fit", MODELS[kernel], "--data", data, "--fit", ",".join(FITTED[kernel]),
           "--relative", "--json"]
    for k, v in fixed.items():
        cmd += ["-D", f"{k}={v}"]
    for k, v in (start or {}).items():
        cmd += ["--start", f"{k}={v}"]
    return json.loads(run(cmd))


def fit_stencil(pamc, rows, cores, work, fixed):
    """The stencil's constants, with its two cache sizes least-squares breakpoints: own_bytes
    (a core's own cache) between the fit rows' working sets on one core (16 (N + 2)^2
    bytes over min(T, cores)), cache_bytes (the shared cache) between their working sets,
    above own_bytes; FIXED (t_thread, t_byte) the microbenchmarks'. Returns (the two
    sizes, pamc fit's result)."""
    fitted = [r for r in rows if r["kernel"] == "stencil" and r["role"] == "fit"]
    def between(sets):
        sets = sorted(set(sets))
        return [(a + b) // 2 for a, b in zip(sets, sets[1:])]
    shared = between(16 * (r["N"] + 2) ** 2 for r in fitted)
    own = between(16 * (r["N"] + 2) ** 2 // min(r["T"], cores) for r in fitted)
    # Levenberg-Marquardt starts where the core work bounds every row (a point's core time
    # over its 16 bytes' at the shared rate, twice over), so each unknown moves the
    # target; at the model's defaults the memory may bound a row and hide t_point_mem.
    start = {"t_point_mem": repr(32 * float(fixed["t_byte"]))}
    best, why = None, "fewer than two working-set sizes"
    for c in shared:
        for o in (x for x in own if x < c):
            sizes = {"own_bytes": o, "cache_bytes": c}
            try:
                result = fit(pamc, "stencil", rows, cores, work, {**sizes, **fixed}, start)
            except Failure as e:
                why = str(e)
                continue  # e.g. no row spills: t_point_mem cannot be separated
            if best is None or result["rss"] < best[1]["rss"]:
                best = (sizes, result)
    if best is None:
        raise Failure("pamc fit found no cache sizes at which the stencil's constants separate; "
                      f"the last attempt: {why}")
    return best


def evaluate(pamc, kernel, row, cores, consts):
    """(pamc eval's closed form, pamc simulate's time) of the row with these constants."""
    cmd_args = []
    for k, v in {**inputs(row, cores), **consts}.items():
        cmd_args += ["-D", f"{k}={v}"]
    out = run([pamc, "eval", MODELS[kernel], "--target", "T_main"] + cmd_args)
    closed = float(re.search(r"numeric T_main = (\S+)", out).group(1))
    out = run([pamc, "simulate", MODELS[kernel]] + cmd_args)
    simulated = float(re.search(r"^T_main = (\S+)", out, re.M).group(1))
    return closed, simulated


def predict(pamc, rows, cores, work, log):
    """Fits in order (spawn, stream, matmul, stencil), each fixing the microbenchmarks'
    constants found before it, then predicts every row. A row's error is pamc
    simulate's (the prediction judged), eval_error the closed form's."""
    fits = {"spawn": ({}, fit(pamc, "spawn", rows, cores, work, {}))}
    t_thread = repr(fits["spawn"][1]["parameters"]["t_thread"]["value"])
    fits["stream"] = ({"t_thread": t_thread}, fit(pamc, "stream", rows, cores, work, {"t_thread": t_thread}))
    t_byte = repr(fits["stream"][1]["parameters"]["t_byte"]["value"])
    fits["matmul"] = ({"t_thread": t_thread}, fit(pamc, "matmul", rows, cores, work, {"t_thread": t_thread}))
    fixed = {"t_thread": t_thread, "t_byte": t_byte}
    sizes, result = fit_stencil(pamc, rows, cores, work, fixed)
    fits["stencil"] = ({**sizes, **fixed}, result)
    consts = {}
    for kernel, (fixed, result) in fits.items():
        consts[kernel] = {**fixed, **{k: repr(v["value"]) for k, v in result["parameters"].items()}}
        log(f"  {kernel}: " + ", ".join(f"{k} = {v}" for k, v in consts[kernel].items()))
    table = []
    for r in rows:
        closed, simulated = evaluate(pamc, r["kernel"], r, cores, consts[r["kernel"]])
        if not all(math.isfinite(x) and x > 0 for x in (closed, simulated)):
            raise Failure(f"{r['kernel']} N={r['N']} T={r['T']}: eval {closed}, simulate {simulated}")
        table.append({**r, "predicted": closed, "simulated": simulated,
                      "eval_error": 100 * (closed - r["seconds"]) / r["seconds"],
                      "error": 100 * (simulated - r["seconds"]) / r["seconds"]})
    return fits, consts, table


# --- main ----------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pamc", default=os.path.join(ROOT, "build", "pamc"))
    ap.add_argument("--cxx", default=os.environ.get("CXX", "c++"))
    ap.add_argument("--from-csv", help="fit and predict these measurements instead of measuring")
    ap.add_argument("--check", action="store_true",
                    help="with the checked-in measurements, fail if docs/local.md would change")
    ap.add_argument("--quick", action="store_true", help="tiny sizes; write only into --work")
    ap.add_argument("--work", help="directory for the build, CSVs and (with --quick) the page")
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    log = print
    work = args.work or tempfile.mkdtemp(prefix="pamc_local_")
    os.makedirs(work, exist_ok=True)
    measurements = os.path.join(LOCAL, "measurements.csv")
    page_path = os.path.join(ROOT, "docs", "local.md")
    png_path = os.path.join(ROOT, "docs", "img", "local.png")
    try:
        if args.check:
            args.from_csv = measurements
        if args.from_csv:
            rows = read_measurements(args.from_csv)
            with open(args.from_csv.replace(".csv", ".machine.json")) as f:
                saved = json.load(f)
            info, measured_at = saved["machine"], saved["measured_at"]
        else:
            mode = "quick" if args.quick else "full"
            info = machine()
            info["priority"] = priority_note()
            exe = build_kernel(args.cxx, work)
            log(f"measuring ({mode}, {info['priority']}; load average now {os.getloadavg()[0]:.2f})")
            rows = measure(exe, QUICK_PLAN if args.quick else FULL_PLAN, mode, log)
            measured_at = run(["date", "-u", "+%Y-%m-%d %H:%M UTC"]).strip()
            if not args.quick:
                write_measurements(measurements, rows, info)
                with open(measurements.replace(".csv", ".machine.json"), "w") as f:
                    json.dump({"machine": info, "measured_at": measured_at}, f, indent=1)
                    f.write("\n")
        log("fitting (pamc fit) and predicting (pamc eval, pamc simulate)")
        fits, consts, table = predict(pamc, rows, info["cores"], work, log)
        text = local_page.page(table, fits, info, measured_at)
        for kernel in KERNELS:
            mean, worst = local_page.held_out_errors(table, kernel)
            log(f"{kernel}: held-out mean absolute error {mean:.1f} %, worst {worst:.1f} %")
        if args.check:
            with open(page_path) as f:
                # a fit that ends at a kink of the stencil's max moves by about 1 % with the
                # build's rounding, and a row's relative error by a few points: the page
                # drifts when a figure moves by more than 5 % (or an error by 3 points)
                diffs = doc_compare.differences(f.read(), text, rel=0.05, abs_tol=3.0)
            if diffs:
                out = os.path.join(work, "local.md")
                with open(out, "w") as g:
                    g.write(text)
                raise Failure(f"docs/local.md is not what scripts/local_measure.py writes from "
                              f"samples/local/measurements.csv (see {out}): regenerate it; " + "; ".join(diffs[:3]))
            log("docs/local.md matches the checked-in measurements")
        elif args.quick:
            with open(os.path.join(work, "local.md"), "w") as f:
                f.write(text)
            local_page.plot(table, os.path.join(work, "local.png"), work)
        else:
            with open(page_path, "w") as f:
                f.write(text)
            local_page.plot(table, png_path, work)
    except (Failure, local_page.Failure) as e:
        print(f"local_measure: error: {e}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError) as e:
        # a missing or malformed CSV or machine.json (ValueError: a number that is not one,
        # KeyError: a column that is not there)
        print(f"local_measure: error: the measurements cannot be read: {e!r}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
