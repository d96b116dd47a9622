#!/usr/bin/env python3
"""A real MPI program predicted on this machine: samples/mpi (docs/mpi.md).

Runs samples/mpi/mpi_kernels (built by CMake where MPI is found, else here with mpicxx)
under mpirun: the microbenchmarks (ping-pong by message size, MPI_Allreduce and
MPI_Alltoall by size and rank count) and the two kernels (2-D Jacobi with halo exchange
and a residual allreduce per sweep; a transpose by MPI_Alltoall) at ranks 1, 2, 4 and 8
on the machine's 2 cores. `pamc fit` turns the microbenchmarks, and the kernels' one-rank
runs at the FIT sizes, into the constants of samples/mpi/machine.pam; `pamc eval` and
`pamc simulate` of samples/mpi/jacobi.pam and transpose.pam then predict the HELD-OUT runs
(other sizes, and every run on more than one rank).

  python3 samples/mpi/measure.py --pamc build/pamc            measure (about 25 minutes),
                                     fit, write machine.pam, the CSVs, docs/mpi.md, the plot
  python3 samples/mpi/measure.py --pamc build/pamc --from-csv
                                     fit and predict the checked-in measurements again
  python3 samples/mpi/measure.py --pamc build/pamc --check     the same, and fail when
                                     docs/mpi.md or machine.pam differs from what it writes

mpirun runs as root only with --allow-run-as-root, and more ranks than cores only with
--oversubscribe: both are passed. Timed runs are raised in priority (nice -n -10, and
the scheduler group of their own session likewise, where allowed) against the other
programs of a shared machine.
"""
import argparse
import csv
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import doc_compare  # noqa: E402  (numbers compared within a tolerance)
import mpi_models  # noqa: E402  (fitting, predicting, the page: next to this script)

# As root, and more ranks than cores; rank r on core r mod 2, bound there even when a core
# holds several ranks (unbound, the scheduler placed 4 ranks 2 + 2 or 3 + 1 from run to run)
MPIRUN_FLAGS = ["--allow-run-as-root", "--oversubscribe", "--map-by", "core", "--bind-to", "core:overload-allowed"]
REPEATS = 11          # timed runs inside one mpirun; the point's time is their median
SPREAD = 1.25         # a point whose median exceeds its minimum by more is measured again
ATTEMPTS = 3          # at most; the attempt with the smallest spread is kept
ROUNDS = 3            # the whole plan, round after round; a point's time: its rounds' median
RANKS = (1, 2, 4, 8)

# Microbenchmarks: bytes per message (ping-pong), per rank (allreduce), per rank pair
# (all-to-all), multiply-adds per superstep (steps; halo_steps with a neighbour exchange
# first); each repeat runs enough operations to take a few milliseconds.
MICRO_PLAN = (
    [("pingpong", b, p) for p in (2, 4, 8) for b in (8, 64, 512, 4096, 32768, 262144, 1048576, 4194304)]
    + [("allreduce", b, p) for p in (2, 4, 8) for b in (8, 64, 512, 4096, 32768)]
    + [("alltoall", b, p) for p in (2, 4, 8) for b in (8, 512, 4096, 32768, 262144)]
    + [(k, w, p) for k in ("steps", "halo_steps") for p in RANKS for w in (20000, 200000, 2000000)]
)
# Kernels: (kernel, N, role). Jacobi's sweep count makes each run about JACOBI_WORK point
# updates. The one-rank runs at the fit sizes give the compute constants (no message is
# sent on one rank); every other run is predicted.
JACOBI_FIT = (128, 256, 512, 640, 896, 1024, 1280)
JACOBI_HELD = (192, 384, 768)
TRANSPOSE_FIT = (512, 1024, 1280, 1792, 2048)
TRANSPOSE_HELD = (768, 1536)
JACOBI_WORK = 8e6


def sweeps(n):
    return max(4, round(JACOBI_WORK / (n * n)))


def kernel_plan():
    plan = []
    for kernel, fit_sizes, held_sizes in (("jacobi", JACOBI_FIT, JACOBI_HELD),
                                          ("transpose", TRANSPOSE_FIT, TRANSPOSE_HELD)):
        for n in sorted(fit_sizes + held_sizes):
            for p in RANKS:
                role = "fit" if p == 1 and n in fit_sizes else "held-out"
                plan.append((kernel, n, p, role))
    return plan


class Failure(Exception):
    pass


def run(cmd, timeout=600):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise Failure(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stderr[-2000:]}{r.stdout[-500:]}")
    return r.stdout


# --- the program ---------------------------------------------------------------------

def find_program(exe, work):
    """The CMake-built mpi_kernels, or one built here with mpicxx."""
    if exe:
        return exe
    built = os.path.join(ROOT, "build", "samples", "mpi", "mpi_kernels")
    if os.path.exists(built):
        return built
    if not shutil.which("mpicxx"):
        raise Failure("no mpi_kernels in build/ and no mpicxx (Debian: libopenmpi-dev)")
    out = os.path.join(work, "mpi_kernels")
    run(["mpicxx", "-O2", "-std=c++17", "-DOMPI_SKIP_MPICXX", "-o", out, os.path.join(HERE, "mpi_kernels.cpp")])
    return out


def raise_priority():
    """Run in the child before mpirun starts: its own session, raised by 10 (nice -n -10),
    and where the kernel groups each session's processes for the scheduler (autogroup:
    nice then only ranks a session's own processes), that session's group raised by 10
    too, so the ranks win the cores from other sessions' builds. Quietly skipped where not
    allowed (not root): the timings are then only noisier."""
    os.setsid()
    for step in (lambda: os.nice(-10), lambda: open("/proc/self/autogroup", "w").write("-10")):
        try:
            step()
        except OSError:
            pass


def priority_note():
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            autogroup = f.read().strip() == "1"
    except OSError:
        autogroup = False
    raised = os.geteuid() == 0
    return ("raised priority (nice -n -10" + (", and their session's scheduler group raised by 10)" if autogroup else ")")) \
        if raised else "normal priority (not root)"


def mpirun(ranks, args):
    cmd = ["mpirun"] + MPIRUN_FLAGS + ["-np", str(ranks)] + args
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, preexec_fn=raise_priority)
    if r.returncode != 0:
        raise Failure(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stderr[-2000:]}{r.stdout[-500:]}")
    m = re.search(r"median=(\S+) min=(\S+) max=(\S+) repeats=(\d+)", r.stdout)
    if not m:
        raise Failure(f"mpirun -np {ranks} {' '.join(args)}: no timing line in its output:\n{r.stdout}")
    return float(m.group(1)), float(m.group(2)), float(m.group(3)), int(m.group(4))


def timed_point(ranks, args, log):
    """The point's median, min and max over REPEATS runs; measured again (ATTEMPTS at most)
    while the median exceeds the minimum by SPREAD, keeping the least spread attempt."""
    best = None
    for attempt in range(ATTEMPTS):
        load = os.getloadavg()[0]
        med, lo, hi, reps = mpirun(ranks, args)
        spread = med / lo if lo > 0 else float("inf")
        if best is None or spread < best[0]:
            best = (spread, {"seconds": med, "min": lo, "max": hi, "repeats": reps,
                             "load": round(load, 2), "attempts": attempt + 1})
        if spread <= SPREAD:
            break
    best[1]["attempts"] = attempt + 1
    return best[1]


def micro_iters(kind, nbytes, ranks):
    """Operations per repeat: about 4 ms at a rough guess of the operation's time
    (supersteps: about 20 ms)."""
    if kind in ("steps", "halo_steps"):
        return max(2, round(2e7 / nbytes))
    guess = {"pingpong": 1e-6 + 3e-10 * nbytes,
             "allreduce": (2e-6 + 1e-9 * nbytes) * ranks,
             "alltoall": (2e-6 + 5e-10 * nbytes) * ranks * ranks}[kind]
    return max(3, min(3000, round(4e-3 / guess)))


def in_rounds(points, log):
    """Each point (name, ranks, args, fields) measured once per round, ROUNDS rounds over
    the whole plan, so that a burst of other programs' load (which the raised priority
    keeps off the cores but not off the shared cache and memory) spoils one round of many
    points rather than every repeat of one. A point's time is the median of its rounds'
    medians; min and max over all its runs."""
    got = [[] for _ in points]
    for rnd in range(ROUNDS):
        for i, (name, ranks, args, _) in enumerate(points):
            got[i].append(timed_point(ranks, args, log))
        log(f"  round {rnd + 1} of {ROUNDS} done (load average {os.getloadavg()[0]:.2f})")
    rows = []
    for (name, ranks, args, fields), pts in zip(points, got):
        row = {**fields, "seconds": statistics.median(p["seconds"] for p in pts),
               "min": min(p["min"] for p in pts), "max": max(p["max"] for p in pts),
               "repeats": sum(p["repeats"] for p in pts),
               "load": round(statistics.mean(p["load"] for p in pts), 2),
               "attempts": max(p["attempts"] for p in pts)}
        rows.append(row)
        log(f"  {name} {ranks} ranks  {row['seconds']:.4g} s (rounds: "
            + ", ".join(f"{p['seconds']:.4g}" for p in pts) + f"; load {row['load']})")
    return rows


def measure_micro(exe, log):
    points = []
    for kind, nbytes, ranks in MICRO_PLAN:
        iters = micro_iters(kind, nbytes, ranks)
        if kind in ("steps", "halo_steps"):
            args = [exe, "steps", str(nbytes), str(iters), "1" if kind == "halo_steps" else "0", str(REPEATS)]
        else:
            args = [exe, kind, str(nbytes), str(iters), str(REPEATS)]
        points.append((f"{kind:10} {nbytes:>8}", ranks, args,
                       {"kind": kind, "size": nbytes, "ranks": ranks, "iters": iters}))
    return in_rounds(points, log)


def measure_kernels(exe, log):
    points = []
    for kernel, n, ranks, role in kernel_plan():
        s = sweeps(n) if kernel == "jacobi" else 0
        args = [exe, kernel, str(n)] + ([str(s)] if kernel == "jacobi" else []) + [str(REPEATS)]
        points.append((f"{kernel:9} N={n:<5} S={s:<4}", ranks, args,
                       {"kernel": kernel, "N": n, "S": s, "ranks": ranks, "role": role}))
    return in_rounds(points, log)


MICRO_FIELDS = ["kind", "size", "ranks", "iters", "seconds", "min", "max", "repeats", "load", "attempts"]
KERNEL_FIELDS = ["kernel", "N", "S", "ranks", "role", "seconds", "min", "max", "repeats", "load", "attempts"]


def write_csv(path, rows, fields, comment):
    with open(path, "w", newline="") as f:
        f.write(f"# {comment}\n")
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.9g}" if isinstance(v, float) else v) for k, v in r.items()})


def read_csv(path):
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    rows = []
    for r in csv.DictReader(lines):
        rows.append({k: (v if k in ("kind", "kernel", "role") else
                         float(v) if k in ("seconds", "min", "max", "load") else int(v))
                     for k, v in r.items()})
    return rows


def machine_info():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
            model = m.group(1).strip() if m else ""
    except OSError:
        pass
    version = run(["mpirun", "--version"]).splitlines()[0].strip()
    return {"cpu": model, "cores": min(2, os.cpu_count() or 1), "mpi": version}


# --- main ----------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pamc", default=os.path.join(ROOT, "build", "pamc"))
    ap.add_argument("--exe", help="mpi_kernels (default: build/samples/mpi/mpi_kernels, else built here)")
    ap.add_argument("--from-csv", action="store_true", help="fit and predict the checked-in measurements")
    ap.add_argument("--check", action="store_true",
                    help="with the checked-in measurements, fail if docs/mpi.md or machine.pam would change")
    ap.add_argument("--only", choices=["micro", "kernels"], help="measure only this part (exploration)")
    ap.add_argument("--work", help="directory for the build and the fit CSVs")
    args = ap.parse_args()
    pamc = os.path.abspath(args.pamc)
    log = print
    work = args.work or tempfile.mkdtemp(prefix="pamc_mpi_")
    os.makedirs(work, exist_ok=True)
    micro_csv = os.path.join(HERE, "microbench.csv")
    kernel_csv = os.path.join(HERE, "measurements.csv")
    info_json = os.path.join(HERE, "measurements.machine.json")
    try:
        if args.check or args.from_csv:
            micro, kernels = read_csv(micro_csv), read_csv(kernel_csv)
            with open(info_json) as f:
                saved = json.load(f)
            info, measured_at = saved["machine"], saved["measured_at"]
            if saved.get("micro_measured_at", measured_at) != measured_at:
                measured_at = f"{measured_at} (the microbenchmarks {saved['micro_measured_at']})"
        else:
            exe = find_program(args.exe, work)
            info = machine_info()
            info["priority"] = priority_note()
            log(f"measuring with {info['mpi']} ({info['priority']}; "
                f"load average now {os.getloadavg()[0]:.2f})")
            when = run(["date", "-u", "+%Y-%m-%d %H:%M UTC"]).strip()
            micro = read_csv(micro_csv) if args.only == "kernels" else measure_micro(exe, log)
            if args.only != "kernels":
                write_csv(micro_csv, micro, MICRO_FIELDS,
                          f"samples/mpi microbenchmarks by samples/mpi/measure.py on {info['cpu']}, "
                          f"{info['cores']} cores, {info['mpi']}; seconds = median over the repeats of one "
                          f"operation's time (ping-pong: one way), the median over {ROUNDS} rounds; repeats = timed runs in all; load = 1-minute load average")
            if args.only == "micro":
                # the kernels' measurements stay; the page says when each part was measured
                with open(info_json) as f:
                    saved = json.load(f)
                saved["micro_measured_at"] = when
                with open(info_json, "w") as f:
                    json.dump(saved, f, indent=1)
                    f.write("\n")
                return 0
            kernels = measure_kernels(exe, log)
            measured_at = when
            write_csv(kernel_csv, kernels, KERNEL_FIELDS,
                      f"samples/mpi kernels by samples/mpi/measure.py on {info['cpu']}, {info['cores']} "
                      f"cores, {info['mpi']}; seconds = median over the repeats of the slowest rank's time, "
                      f"the median over {ROUNDS} rounds; repeats = timed runs in all; load = 1-minute load average")
            with open(info_json, "w") as f:
                json.dump({"machine": info, "measured_at": measured_at, "micro_measured_at": measured_at}, f, indent=1)
                f.write("\n")
        log("fitting (pamc fit) and predicting (pamc eval, pamc simulate)")
        result = mpi_models.fit_and_predict(pamc, micro, kernels, info, measured_at, work, log)
        text = mpi_models.page(result, micro, kernels, info, measured_at)
        machine_text = mpi_models.machine_file(result, info, measured_at)
        page_path = os.path.join(ROOT, "docs", "mpi.md")
        machine_path = os.path.join(HERE, "machine.pam")
        if args.check:
            for path, new in ((page_path, text), (machine_path, machine_text)):
                with open(path) as f:
                    diffs = doc_compare.differences(f.read(), new, rel=1e-3, abs_tol=0.05)
                if diffs:
                    out = os.path.join(work, os.path.basename(path))
                    with open(out, "w") as g:
                        g.write(new)
                    raise Failure(f"{os.path.relpath(path, ROOT)} is not what samples/mpi/measure.py writes "
                                  f"from the checked-in CSVs (see {out}): " + "; ".join(diffs[:3]))
            log("docs/mpi.md and samples/mpi/machine.pam match the checked-in measurements")
        else:
            with open(page_path, "w") as f:
                f.write(text)
            with open(machine_path, "w") as f:
                f.write(machine_text)
            mpi_models.plot(result, os.path.join(ROOT, "docs", "img", "mpi.png"), work)
        for kernel in ("jacobi", "transpose"):
            mean, worst = mpi_models.held_out_errors(result, kernel)
            log(f"{kernel}: held-out mean absolute error {mean:.1f} %, worst {worst:.1f} %")
    except Failure as e:
        print(f"measure: error: {e}", file=sys.stderr)
        return 1
    except mpi_models.Failure as e:
        print(f"measure: error: {e}", file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError) as e:
        # a missing or malformed CSV or machine.json (ValueError: a number that is not one,
        # KeyError: a column that is not there)
        print(f"measure: error: the measurements cannot be read: {e!r}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
