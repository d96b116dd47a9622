#!/usr/bin/env python3
"""Machine files (machines/*.pam), the stdlib (stdlib/*.pam) and the Seismic sample
(samples/seismic.pam, seed 004): they load, their sourced constants are the seeds' numbers,
and the Seismic cost model closes and evaluates to the numbers derived below.

  python3 tests/samples/run_machines.py --pamc build/pamc     (from the repository root)

1. `pamc check` of every stdlib file and every machine file (das.pam needs the importing
   model's P: it is checked through a model that declares P), and `pamc compile` of a small
   model with `--machine NAME` for every machine file.
2. Each sourced constant, read with `pamc eval --machine NAME --target CONST`, is the seed's
   number (the table below names the seed, section or table of each).
3. The stdlib functions evaluate to hand-computed values.
4. Seismic: `compile --stats` leaves 0 residual reductions; Table 6 and Table 3 constants;
   at P = 16 (the calibration point) every part equals Table 3; at other P the model equals
   seed 004's equations 1-4 evaluated here in Python; and the forecast trends of section 3.3.
"""
import argparse
import json
import math
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cli"))
import harness  # noqa: E402  (running pamc, tallying checks, writing models: shared with tests/cli)
from harness import ROOT, check, pamc, write  # noqa: E402

MACHINES = ["x1e", "r10000", "origin2000", "powerchallenge", "p575", "js22", "p570", "x3550", "x3650"]
GB, MB, KB = 2 ** 30, 2 ** 20, 2 ** 10

# (machine, constant, value, source)
SOURCED = [
    ("x1e", "clock_mv", 18e9, "seed 000 5.4: vectorized and multi-streamed, 18 GHz"),
    ("x1e", "clock_v", 4.5e9, "seed 000 5.4: vectorized, 4.5 GHz"),
    ("x1e", "clock_m", 2.26e9, "seed 000 5.4: multi-streamed scalar, 2.26 GHz"),
    ("x1e", "clock_s", 0.565e9, "seed 000 5.4: scalar, 0.565 GHz"),
    ("x1e", "bw_min", 2.5e9, "seed 000 4.2: Random Access, 2.5 GB/s per SSP"),
    ("x1e", "bw_mixed", 5.5e9, "seed 000 4.2: mixed, 5.5 GB/s per SSP"),
    ("x1e", "bw_max", 8.5e9, "seed 000 4.2: Stream, 8.5 GB/s per SSP"),
    ("x1e", "avl_max", 64, "seed 000 4.2: 64-element vector registers"),
    ("x1e", "ssps_per_msp", 4, "seed 000 3.1"),
    ("x1e", "vector_unit_clock", 1.13e9, "seed 000 3.1"),
    ("x1e", "scalar_unit_clock", 0.565e9, "seed 000 3.1"),
    ("x1e", "peak_flops_msp", 18e9, "seed 000 3.1: 18 GFLOPS/MSP"),
    ("x1e", "ecache_bytes", 2 * MB, "seed 000 3.1"),
    ("x1e", "dcache_bytes", 16 * KB, "seed 000 3.1"),
    ("x1e", "bw_vector_ms_peak", 34e9, "seed 000 4.2: ~34 GB/s"),
    ("x1e", "bw_scalar_ms_peak", 4.5e9, "seed 000 4.2: ~4.5 GB/s"),
    ("r10000", "clock", 200e6, "seed 001 3.1: 200 MHz"),
    ("r10000", "issue_width", 4, "seed 001 3.1: 4-way"),
    ("r10000", "chip_outstanding_misses", 4, "seed 001 3.1"),
    ("r10000", "perf_counters", 2, "seed 001 3.1"),
    ("origin2000", "clock", 200e6, "seed 001 3.1"),
    ("origin2000", "l2_bytes", 4 * MB, "seed 001 3.1: always 4MB"),
    ("origin2000", "outstanding_misses", 4, "seed 001 3.1"),
    ("origin2000", "numa", 1, "seed 001 3.1: DSM NUMA"),
    ("powerchallenge", "clock", 200e6, "seed 001 3.1"),
    ("powerchallenge", "l2_bytes", 2 * MB, "seed 001 3.1: up to 2MB"),
    ("powerchallenge", "numa", 0, "seed 001 3.1: SMP UMA"),
    ("powerchallenge", "peak_flops", 390e6, "seed 004 2: 390 MFLOPs"),
    ("powerchallenge", "seed004_procs", 16, "seed 004 2: up to 16 processors"),
    ("p575", "clock", 1.9e9, "seed 003 Table 4"),
    ("p575", "cores", 2, "seed 003 Table 4"),
    ("p575", "mem_bytes_per_core", 4 * GB, "seed 003 Table 4"),
    ("p575", "l2_bytes", 1.9 * MB, "seed 003 Table 4: 1.9 MB shared"),
    ("p575", "smt_threads", 2, "seed 003 2.1"),
    ("p575", "pmcs_per_thread", 6, "seed 003 2.2"),
    ("p575", "pmu_events", 900, "seed 003 2.2"),
    ("js22", "clock", 4.0e9, "seed 003 Table 4"),
    ("js22", "cores", 2, "seed 003 Table 4"),
    ("js22", "out_of_order", 0, "seed 003 Table 4: in order"),
    ("js22", "mem_bytes_per_core", 4 * GB, "seed 003 Table 4"),
    ("js22", "l2_bytes", 4 * MB, "seed 003 Table 4"),
    ("js22", "proj_error_avg", 0.055, "seed 003 4: 5.5%"),
    ("js22", "proj_error_gamess_sicc", 0.141, "seed 003 4: 14.1%"),
    ("p570", "clock", 4.7e9, "seed 003 Table 4"),
    ("p570", "mem_bytes_per_core", 8 * GB, "seed 003 Table 4"),
    ("p570", "l2_bytes", 4 * MB, "seed 003 Table 4"),
    ("p570", "proj_error_avg", 0.098, "seed 003 4: 9.8%"),
    ("p570", "proj_error_gamess_sicc", 0.159, "seed 003 4: 15.9%"),
    ("p570", "proj_error_power6_avg", 0.072, "seed 003 abstract: 7.2%"),
    ("p570", "proj_error_power6_std", 0.053, "seed 003 abstract: 5.3%"),
    ("x3550", "clock", 3.0e9, "seed 003 Table 4"),
    ("x3550", "cores", 2, "seed 003 Table 4"),
    ("x3550", "mem_bytes_per_core", 2 * GB, "seed 003 Table 4"),
    ("x3550", "l2_bytes", 2 * MB, "seed 003 Table 4"),
    ("x3550", "proj_error_avg", 0.083, "seed 003 4: 8.3%"),
    ("x3550", "proj_error_intel_avg", 0.105, "seed 003 abstract: 10.5%"),
    ("x3550", "proj_error_intel_std", 0.082, "seed 003 abstract: 8.2%"),
    ("x3650", "clock", 2.4e9, "seed 003 Table 4"),
    ("x3650", "cores", 4, "seed 003 Table 4"),
    ("x3650", "mem_bytes_per_core", 2 * GB, "seed 003 Table 4"),
    ("x3650", "l2_bytes", 2 * MB, "seed 003 Table 4"),
    ("x3650", "proj_error_avg", 0.128, "seed 003 4: 12.8%"),
    ("x3650", "proj_error_amber_fix", 0.199, "seed 003 4: 19.9%"),
    ("x3650", "proj_error_charmm", 0.259, "seed 003 4: 25.9%"),
    ("x3650", "proj_error_fluent_l3", 0.299, "seed 003 4: 29.9%"),
]

# seed 004, Table 6 (phases 1, 2, 4) and Table 3 (Test data set, 16 processors)
TABLE6 = {
    "c_comm_start": {1: 0, 2: 3.18e-4, 4: 1.04e-4},
    "c_comm_trans": {1: 0, 2: 6.62e-7, 4: 2.17e-6},
    "c_rd_start": {1: 4.32e-5, 2: 8.58e-5, 4: 1.48e-4},
    "c_wr_start": {1: 1.53e-3, 2: 3.04e-3, 4: 5.25e-3},
    "c_mem_trans": {1: 2.22e-8, 2: 4.40e-8, 4: 7.60e-8},
}
TABLE3 = {  # phase: (T_comp, T_comm, T_io)
    1: (5.530, 0.470, 0.042), 2: (2.92, 0.98, 0.33), 3: (0.283, 0.283, 0.011), 4: (16.4, 1.63, 0.29)}


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def eval_json(path, *args):
    rc, out, err = pamc("eval", path, "--json", *args)
    if rc != 0:
        raise RuntimeError(f"pamc eval {path} {' '.join(args)}: {err}")
    return json.loads(out)


def check_loading(tmp):
    for f in sorted(os.listdir(os.path.join(ROOT, "stdlib"))):
        if f.endswith(".pam"):
            rc, _, err = pamc("check", os.path.join(ROOT, "stdlib", f))
            check(f"check stdlib/{f}", rc == 0, err)
    for f in sorted(os.listdir(os.path.join(ROOT, "machines"))):
        if f.endswith(".pam") and f != "das.pam":
            rc, _, err = pamc("check", os.path.join(ROOT, "machines", f))
            check(f"check machines/{f}", rc == 0, err)
    withP = write(tmp, "withP.pam", "numeric parameter P >= 1\nprocess main = delay(P)\n")
    every = sorted(f[:-4] for f in os.listdir(os.path.join(ROOT, "machines")) if f.endswith(".pam"))
    check("every target machine has a file", set(MACHINES) <= set(every), every)
    for m in every:
        rc, out, err = pamc("compile", withP, "--machine", m)
        check(f"compile --machine {m}", rc == 0 and "numeric T_main = P" in out, err or out)
    # the generic operation every non-vector machine file offers: cycles(p, n) on cpu(p)
    cyc = write(tmp, "cycles.pam", "process main = cycles(0, 1e9)\n")
    for m in MACHINES:
        if m == "x1e":
            continue
        clock = next(v for mm, c, v, _ in SOURCED if mm == m and c == "clock")
        got = eval_json(cyc, "--machine", m)["T_main"]
        check(f"{m}: 1e9 cycles take 1e9 / clock s", close(got, 1e9 / clock), got)
    # import by name, as a stdlib or machine file, resolves from any folder
    imp = write(tmp, "imports.pam", 'import "comm.pam"\nimport "io.pam"\nimport "resource_usage.pam"\n'
                'import "cpi.pam"\nimport "x1e.pam"\nprocess main = delay(comm_p2p(1, 2, 3))\n')
    rc, out, err = pamc("compile", imp)
    check("stdlib and machine files import by name", rc == 0 and "T_main = 7" in out, err or out)


def check_sourced(tmp):
    empty = write(tmp, "empty.pam", "process main = delay(0)\n")
    for m, const, value, src in SOURCED:
        try:
            got = eval_json(empty, "--machine", m, "--target", const)[const]
        except RuntimeError as e:
            check(f"{m}.{const}", False, str(e))
            continue
        check(f"{m}.{const} = {value:g} ({src})", close(got, value), got)


def check_stdlib(tmp):
    # Hand-computed values of each function (P = 16 processors).
    model = write(tmp, "stdlib_values.pam", """import "resource_usage.pam"
import "cpi.pam"
numeric parameter P = 16 >= 1
numeric v_p2p = comm_p2p(1e-4, 1e-8, 1000)                 % 1e-4 + 1e-5
numeric v_lat_bus = comm_lat(2, P, 0)                     % 2
numeric v_lat_log = comm_lat(2, P, 1)                     % 2 log2 16 = 8
numeric v_lat_mesh = comm_lat(2, P, 2)                    % 2 sqrt 16 = 8
numeric v_lat_mesh64 = comm_lat_sqrt(2, 64)               % 16
numeric v_a2a = comm_alltoall(1e-4, 1e-8, 1000, P)        % 15 * 1.1e-4
numeric v_bct = comm_bcast_tree(1e-4, 1e-8, 1000, 10)     % ceil(log2 10) = 4 rounds: 4.4e-4
numeric v_ared = comm_allreduce_tree(1e-4, 1e-8, 1e-9, 1000, P)  % 4 (1.1e-4 + 1e-6) + 4 (1.1e-4)
numeric v_disk = io_rw(2, 1e-3, 4096, 1, 5e-3, 8192, 1e-8)       % 2 (1e-3 + 4.096e-5) + 5e-3 + 8.192e-5
numeric v_comm3 = ru_comm(100, P, 2, 3.18e-4, 6.62e-7, 512)      % 100 * 15 * 2 * (3.18e-4 + 6.62e-7 * 512)
numeric v_exec = ru_exec(ru_comp(100, 0.0292), ru_comm(100, P, 2, 3.18e-4, 6.62e-7, 512), ru_io(100, 1, 8.58e-5, 1000, 1, 3.04e-3, 1000, 4.4e-8))
numeric v_cpi = cpi2(0.8, 0.35, 0.03, 10, 0.003, 70)      % 0.8 + 0.65 (0.3 + 0.21)
numeric v_m0 = m0_2(0.03, 5, 10, 0.003, 35, 70)           % 1 - (0.15 + 0.105) / 0.51 = 0.5
numeric v_cpi_4lev = cpi3(1, 0.5, 0.02, 10, 0.01, 40, 0.001, 200)  % 1 + 0.5 (0.2 + 0.4 + 0.2)
numeric v_t_cpi = cpi_time(2e9, 1.5, 2e8)                 % 15 s
""")
    comm3 = 100 * 15 * 2 * (3.18e-4 + 6.62e-7 * 512)
    want = {
        "v_p2p": 1.1e-4, "v_lat_bus": 2, "v_lat_log": 8, "v_lat_mesh": 8, "v_lat_mesh64": 16,
        "v_a2a": 15 * 1.1e-4, "v_bct": 4.4e-4, "v_ared": 4 * (1.1e-4 + 1e-6) + 4 * 1.1e-4,
        "v_disk": 2 * (1e-3 + 4.096e-5) + 5e-3 + 8.192e-5, "v_comm3": comm3,
        "v_exec": 100 * 0.0292 + comm3 + 100 * (8.58e-5 + 3.04e-3 + 2 * 4.4e-5),
        "v_cpi": 0.8 + 0.65 * 0.51, "v_m0": 0.5, "v_cpi_4lev": 1.4, "v_t_cpi": 15,
    }
    got = eval_json(model)
    for k, v in want.items():
        check(f"stdlib {k} = {v:.10g}", k in got and close(got[k], v), got.get(k))
    rc, _, err = pamc("compile", model, "--stats")
    check("stdlib values close (0 residual reductions)", re.search(r"^residual reductions: 0$", err, re.M), err)

    # cpi on a machine: the R10000 clock turns cpi into time (lat_l2 = 10, lat_mem = 70 given)
    r = write(tmp, "r10k.pam", "process main = instructions(0, 1e9, cpi_machine(0.8, 0.35, 0.03, 0.003))\n")
    for m in ("origin2000", "powerchallenge"):
        t = eval_json(r, "--machine", m, "-D", "lat_l2=10", "-D", "lat_mem=70")["T_main"]
        check(f"{m}: 1e9 instructions at cpi 0.8 + 0.65 (0.3 + 0.21) take 5.6575 s", close(t, 1e9 * 1.1315 / 200e6), t)

    # X1E loop time (our reconstruction of seed 000's lost Figure 4) for NAS SP tzetar, class W,
    # size 36, one MPI task (seed 000, 5.1-5.2): 725,760 vector flops, 1,179,360 vector
    # load-stores, AVL (size - 1) / (size div 64 + 1) = 35, MV score 3, bandwidth 8.5 GB/s:
    #   725760 / 18e9 + 8 * 1179360 / (4 SSPs * 8.5e9 * 35 / 64) = 4.032e-5 + 5.0742e-4 s
    x = write(tmp, "tzetar.pam", """numeric parameter size = 36
numeric vflops = size ^ 2 * (size - 1) * 16
numeric vldst = size ^ 2 * (size - 1) * 26
numeric avl = (size - 1) / (size div 64 + 1)
numeric t = t_loop(3, vflops, vldst, 0, avl, bw_max)
numeric t_scalar = t_loop(0, vflops, vldst, 0, avl, bw_min)
numeric check_flops = vflops
numeric check_avl = avl
""")
    got = eval_json(x, "--machine", "x1e")
    check("x1e tzetar: 725,760 vector flops (seed 000 5.2)", got.get("check_flops") == 725760, got)
    check("x1e tzetar: AVL 35 (seed 000 5.2)", got.get("check_avl") == 35, got)
    want_t = 725760 / 18e9 + 8 * 1179360 / (4 * 8.5e9 * 35 / 64)
    check(f"x1e tzetar vector loop time {want_t:.6g} s", close(got.get("t", 0), want_t), got)
    want_s = 725760 / 0.565e9 + 8 * 1179360 / 2.5e9
    check(f"x1e tzetar as a plain scalar loop {want_s:.6g} s", close(got.get("t_scalar", 0), want_s), got)

    # js22: Table 5, Seismic = 416 x 1.004 + 470 x 1.518
    j = write(tmp, "proj.pam", "numeric s = projected_time(100, p_seismic(0.5, 0.25))\n")
    got = eval_json(j, "--machine", "js22")["s"]
    check("js22 Seismic projection 100 s x (1.004 x 0.5 + 1.518 x 0.25)", close(got, 100 * (0.502 + 0.3795)), got)


def seismic_python(P):
    """Seed 004 equations 1-4 with the sample's default workload, evaluated here.

    Defaults (samples/seismic.pam): 100 iterations per processor at P = 16; phases 1 and 2
    split 1600 iterations over P (ceil(1600 / P) on the busiest processor); phase 4 keeps
    100 per processor; each size solved so that the part equals Table 3 at P = 16."""
    c = lambda name, k: TABLE6[name][k]
    n12 = math.ceil(1600 / P)
    comp1 = n12 * 5.530 / 100
    sz_wr1 = (0.042 / (100 * 0.1) - c("c_wr_start", 1)) / c("c_mem_trans", 1)
    io1 = n12 * 0.1 * (c("c_wr_start", 1) + c("c_mem_trans", 1) * sz_wr1)
    comp2 = n12 * 2.92 / 100
    vol2 = 16 * (0.98 / (100 * 15 * 2) - c("c_comm_start", 2)) / c("c_comm_trans", 2)
    comm2 = n12 * (P - 1) * 2 * (c("c_comm_start", 2) + c("c_comm_trans", 2) * vol2 / P)
    sz2 = (0.33 / 100 - c("c_rd_start", 2) - c("c_wr_start", 2)) / (2 * c("c_mem_trans", 2))
    io2 = n12 * (c("c_rd_start", 2) + c("c_wr_start", 2) + 2 * c("c_mem_trans", 2) * sz2)
    t3 = 0.283 + 0.283 + 0.011
    comp4 = 100 * (16 * 16.4 / 100) / P
    x4 = 10  # broadcasts per iteration in phase 4 (the sample's choice)
    vol4 = 16 * (1.63 / (100 * 15 * x4) - c("c_comm_start", 4)) / c("c_comm_trans", 4)
    comm4 = 100 * (P - 1) * x4 * (c("c_comm_start", 4) + c("c_comm_trans", 4) * vol4 / P)
    volrw4 = 16 * (0.29 / 100 - c("c_rd_start", 4) - 0.05 * c("c_wr_start", 4)) / (1.05 * c("c_mem_trans", 4))
    io4 = 100 * (c("c_rd_start", 4) + c("c_mem_trans", 4) * volrw4 / P
                 + 0.05 * (c("c_wr_start", 4) + c("c_mem_trans", 4) * volrw4 / P))
    return dict(comp_1=comp1, io_1=io1, comp_2=comp2, comm_2=comm2, io_2=io2, comp_4=comp4, comm_4=comm4,
                io_4=io4, T_main=comp1 + io1 + comp2 + comm2 + io2 + t3 + comp4 + comm4 + io4)


def check_seismic():
    path = os.path.join(ROOT, "samples", "seismic.pam")
    rc, out, err = pamc("compile", path, "--stats")
    check("seismic: 0 residual reductions", rc == 0 and re.search(r"^residual reductions: 0$", err, re.M), err)
    check("seismic: closed form without reductions", rc == 0 and "sum (" not in out and "max (" not in out, out)

    targets = []
    for name, per_phase in TABLE6.items():
        for k, v in per_phase.items():
            targets += ["--target", f"{name}_{k}"]
    got = eval_json(path, *targets)
    for name, per_phase in TABLE6.items():
        for k, v in per_phase.items():
            check(f"seismic Table 6 {name} phase {k} = {v:g}", close(got[f"{name}_{k}"], v), got[f"{name}_{k}"])

    # P = 16, the Test data set: every modeled part is Table 3's number (the calibration), and
    #   T_comp = 5.530 + 2.92 + 0.283 + 16.4 = 25.133
    #   T_comm = 0 (phase 1: Table 6 gives 0; Table 3 measured 0.470) + 0.98 + 0.283 + 1.63 = 2.893
    #   T_io   = 0.042 + 0.33 + 0.011 + 0.29 = 0.673   (Table 3 prints the sum as 0.76)
    #   T_main = 28.699 = Table 3's 29.169 less phase 1's 0.470 s of decompose and join
    parts = ["comp_1", "comm_1", "io_1", "comp_2", "comm_2", "io_2", "comp_4", "comm_4", "io_4", "T_comp", "T_comm", "T_io", "T_main"]
    got = eval_json(path, *sum((["--target", t] for t in parts), []))
    rc, out, err = pamc("compile", path)
    for part, v in zip(("comp", "comm", "io"), TABLE3[3]):  # phase 3: parameters, Table 3 defaults
        got[f"{part}_3"] = float(re.search(rf"^numeric parameter {part}_3 = (\S+)", out, re.M).group(1))
    for k in (1, 2, 3, 4):
        comp, comm, io = TABLE3[k]
        check(f"seismic P=16 phase {k} T_comp = Table 3 {comp}", close(got[f"comp_{k}"], comp), got[f"comp_{k}"])
        if k != 1:
            check(f"seismic P=16 phase {k} T_comm = Table 3 {comm}", close(got[f"comm_{k}"], comm), got[f"comm_{k}"])
        check(f"seismic P=16 phase {k} T_io = Table 3 {io}", close(got[f"io_{k}"], io), got[f"io_{k}"])
    check("seismic P=16 phase 1 T_comm = 0 (Table 6)", got["comm_1"] == 0, got["comm_1"])
    for k, v in (("T_comp", 25.133), ("T_comm", 2.893), ("T_io", 0.673), ("T_main", 28.699)):
        check(f"seismic P=16 {k} = {v}", close(got[k], v), got[k])
    print(f"  seismic P=16: T_comp {got['T_comp']:.6g}, T_comm {got['T_comm']:.6g}, "
          f"T_io {got['T_io']:.6g}, T_main {got['T_main']:.6g} s")

    # Other P: the closed form equals equations 1-4 evaluated in Python.
    series = {}
    for P in (1, 2, 3, 4, 8, 16, 64, 256, 1024, 2048):
        want = seismic_python(P)
        got = eval_json(path, "-D", f"P={P}", *sum((["--target", t] for t in want), []))
        series[P] = got
        for k, v in want.items():
            check(f"seismic P={P} {k} = {v:.10g}", close(got[k], v), got[k])
    print("  seismic forecast (T_main s): " + ", ".join(f"P={P} {series[P]['T_main']:.4g}" for P in series))

    # Section 3.3's trends: computation ideal; communication grows with P in both phases,
    # phase 4's faster (its broadcasts per processor stay); phase 2's IO speeds up, phase 4's
    # levels off.
    Ps = sorted(series)
    for a, b in zip(Ps, Ps[1:]):
        if a >= 2:
            check(f"seismic comm_2 grows from P={a} to {b}", series[b]["comm_2"] > series[a]["comm_2"])
            check(f"seismic comm_4 grows from P={a} to {b}", series[b]["comm_4"] > series[a]["comm_4"])
        check(f"seismic comp_4 falls from P={a} to {b}", series[b]["comp_4"] < series[a]["comp_4"])
        check(f"seismic io_2 falls from P={a} to {b}", series[b]["io_2"] < series[a]["io_2"])
    check("seismic comm_4 / comm_2 grows with P (64 -> 2048)",
          series[2048]["comm_4"] / series[2048]["comm_2"] > series[64]["comm_4"] / series[64]["comm_2"])
    check("seismic io_4 levels off (1024 -> 2048 within 5%)",
          abs(series[2048]["io_4"] / series[1024]["io_4"] - 1) < 0.05, (series[1024]["io_4"], series[2048]["io_4"]))
    check("seismic io_2 keeps speeding up (1024 -> 2048 halves)",
          close(series[2048]["io_2"] * 2, series[1024]["io_2"], 1e-9))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    args = ap.parse_args()
    harness.PAMC = os.path.abspath(args.pamc)
    with tempfile.TemporaryDirectory() as tmp:
        print("loading: check and compile --machine")
        check_loading(tmp)
        print("sourced constants")
        check_sourced(tmp)
        print("stdlib values")
        check_stdlib(tmp)
        print("seismic (seed 004)")
        check_seismic()
    return harness.summary("machine/stdlib/seismic checks")


if __name__ == "__main__":
    sys.exit(main())
