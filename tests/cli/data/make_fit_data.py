#!/usr/bin/env python3
"""Writes the CSVs that tests/cli/run_fit.py fits (run it from this folder to regenerate;
the files are committed, so the tests do not depend on it).

Seismic (seed 004): phase times from the resource usage equations of seismic_phase.pam
with the Table 6 constants of phases 2 and 4, over three data sets and P = 1..8, times a
deterministic +-0.5% disturbance ("measurement noise"); one exact copy of phase 2.
cpi (seed 001): cpi = cpi_pipeline + (1 - m0)(h2 T2 + h3 T3) with m0 = 0.35 and
cpi_pipeline = 0.8 over eight problem sizes, times a deterministic +-0.5% disturbance.
1-D Jacobi (jacobi_1d.pam): K sweeps of N cells over P processes with t_c = 1e-8 s per cell
and t_msg = 5e-6 s per halo message, times a deterministic +-2% disturbance: the times span
four decades, so absolute residuals let the largest decide."""

TABLE6 = {  # seed 004, Table 6: s, s/B
    2: dict(c_comm_start=3.18e-4, c_comm_trans=6.62e-7, c_rd_start=8.58e-5, c_wr_start=3.04e-3, c_mem_trans=4.40e-8),
    4: dict(c_comm_start=1.04e-4, c_comm_trans=2.17e-6, c_rd_start=1.48e-4, c_wr_start=5.25e-3, c_mem_trans=7.60e-8),
}


def noise(k, amplitude):
    """A fixed pseudo-random factor in [1 - amplitude, 1 + amplitude]."""
    return 1 + amplitude * (((k * 7919) % 21) - 10) / 10


def seismic_rows():
    for d in (1, 4, 16):  # test, small, medium data sets (relative size)
        for p in (1, 2, 4, 8):
            # whole groups of traces per access, or one trace per group ("transposed")
            for transposed in (0, 1):
                reads = (64 * d // p, 512) if transposed else (4, 16384 * d // p)
                writes = (2, 32768 * d // p) if transposed else (32 * d // p, 1024)
                yield dict(P=p, its=8 * d, t_comp=0.02 / p, x_msgs=2 - transposed, sz_msgs=4096 * d // (p * p),
                           x_reads=reads[0], sz_reads=reads[1], x_writes=writes[0], sz_writes=writes[1])


def seismic_times(r, c):
    comp = r["its"] * r["t_comp"]
    comm = r["its"] * (r["P"] - 1) * r["x_msgs"] * (c["c_comm_start"] + c["c_comm_trans"] * r["sz_msgs"])
    io = r["its"] * (r["x_reads"] * (c["c_rd_start"] + c["c_mem_trans"] * r["sz_reads"])
                     + r["x_writes"] * (c["c_wr_start"] + c["c_mem_trans"] * r["sz_writes"]))
    return comp, comm, io


def write_seismic(path, phase, amplitude):
    cols = ["P", "its", "t_comp", "x_msgs", "sz_msgs", "x_reads", "sz_reads", "x_writes", "sz_writes"]
    with open(path, "w") as f:
        f.write(f"# Seismic phase {phase}: seismic_phase.pam with seed 004 Table 6 constants, "
                f"noise +-{amplitude * 100:g}% (make_fit_data.py)\n")
        # measured: the communication and IO times apart (as the seed fits them), and the total
        f.write(",".join(cols + ["comm_time", "io_time", "T_main"]) + "\n")
        for k, r in enumerate(seismic_rows(), 1):
            comp, comm, io = seismic_times(r, TABLE6[phase])
            comm *= noise(k, amplitude)
            io *= noise(k + 5, amplitude)
            total = comp + comm + io
            f.write(",".join(str(r[c]) for c in cols) + f",{comm:.12g},{io:.12g},{total:.12g}\n")


def write_cpi(path):
    m0, cpi_pipeline, t2, t3 = 0.35, 0.8, 10, 70
    with open(path, "w") as f:
        f.write("# cpi over problem sizes: cpi.pam with m0 = 0.35, cpi_pipeline = 0.8, noise +-0.5% (make_fit_data.py)\n")
        f.write("n,h2,h3,measured\n")
        for k, n in enumerate((50, 75, 100, 150, 200, 250, 300, 400), 1):
            h2 = 0.02 + 0.0001 * n        # L2 hits per instruction grow with the working set
            h3 = 0.001 + 0.00002 * n      # and so do misses to memory
            cpi = (cpi_pipeline + (1 - m0) * (h2 * t2 + h3 * t3)) * noise(k, 0.005)
            f.write(f"{n},{h2:g},{h3:g},{cpi:.6f}\n")


JACOBI = dict(t_c=1e-8, t_msg=5e-6)


def jacobi_rows():
    for p in (1, 2, 4, 8, 16, 32, 64, 128):
        for n in (1000, 100000, 10000000):
            yield dict(P=p, N=n, K=100)


def jacobi_time(r, c):
    """T_main of jacobi_1d.pam: a process with two neighbours is the slowest."""
    messages = (r["P"] >= 2) + (r["P"] >= 3)
    return r["K"] * (r["N"] / r["P"] * c["t_c"] + messages * c["t_msg"])


def write_jacobi(path, amplitude, shift=0):
    with open(path, "w") as f:
        f.write(f"# 1-D Jacobi: jacobi_1d.pam with t_c = 1e-8, t_msg = 5e-6, noise +-{amplitude * 100:g}% "
                "(make_fit_data.py)\n")
        f.write("P,N,K,T_main\n")
        for k, r in enumerate(jacobi_rows(), 1):
            t = jacobi_time(r, JACOBI) * noise(k + shift, amplitude)
            f.write(f"{r['P']},{r['N']},{r['K']},{t:.6g}\n")


if __name__ == "__main__":
    write_jacobi("jacobi_1d.csv", 0.02)
    # another draw of the noise, for which unconstrained least squares puts t_msg below 0
    write_jacobi("jacobi_1d_shifted.csv", 0.02, shift=5)
    write_seismic("seismic_phase2.csv", 2, 0.005)
    write_seismic("seismic_phase4.csv", 4, 0.005)
    write_seismic("seismic_phase2_exact.csv", 2, 0.0)
    write_cpi("cpi_m0.csv")
