#!/usr/bin/env python3
"""Synthetic but realistic input for `pamc project` (docs/projection.md, "The study").

29 benchmarks named after SPEC CPU2006 (12 integer, 17 floating point), each with the 23
metrics of seed 003's Table 1 in two modes (PST, SMT), drawn from a few latent traits per
benchmark (memory intensity, floating-point share, branchiness) so that the metrics
co-vary as on a real machine. Relative runtimes on four synthetic targets follow eq. 3-5
(each target scales the six groups' cycles by its own factors, plus 1% noise), and a fifth
target, 'identical', is the base machine itself (every ratio 1).

Applications are known combinations of benchmarks by path length: an application that is
0.6 x A + 0.4 x B executes 60% of its instructions as A does and 40% as B does, so its
per-instruction metrics are 0.6 m_A + 0.4 m_B, times (1 + noise x N(0, 1)) per metric
(counter noise). Its true relative runtime on a target is the combination's:
sum_k alpha_k cpi_k P_k / sum_k alpha_k cpi_k (docs/projection.md, eq. 10).

    python3 generate.py --out DIR [--seed S] [--noise 0.05] [--apps N] [--exact-ab]

writes DIR/metrics.csv, DIR/targets.csv (benchmarks' ratios and the applications' true
ratios), DIR/coefficients.csv (c_ij in cycles, eq. 1) and DIR/truth.json."""
import argparse, json, math, os, random

BENCHMARKS = [
    # integer
    "400.perlbench", "401.bzip2", "403.gcc", "429.mcf", "445.gobmk", "456.hmmer", "458.sjeng",
    "462.libquantum", "464.h264ref", "471.omnetpp", "473.astar", "483.xalancbmk",
    # floating point (SPEC CFP2006, seed 003)
    "410.bwaves", "416.gamess", "433.milc", "434.zeusmp", "435.gromacs", "436.cactusADM", "437.leslie3d",
    "444.namd", "447.dealII", "450.soplex", "453.povray", "454.calculix", "459.GemsFDTD", "465.tonto",
    "470.lbm", "481.wrf", "482.sphinx3",
]
MODES = ["PST", "SMT"]
# Seed 003, Table 1, in group order.
METRICS = [
    ("CPI_CMPL_CYC", 1),
    ("CPI_GCT_EMPTY_IC_MISS", 2), ("CPI_GCT_EMPTY_BR_MPRED", 2), ("CPI_GCT_EMPTY_OTHER", 2),
    ("CPI_STALL_LSU_ERAT_MISS", 2), ("CPI_STALL_LSU_REJECT_OTHERS", 2), ("CPI_STALL_LSU_DCACHE_MISS", 2),
    ("CPI_STALL_LSU_OTHERS", 2), ("CPI_STALL_FXU_DIV", 2), ("CPI_STALL_FXU_OTHERS", 2), ("CPI_STALL_FPU_DIV", 2),
    ("FPU_FMA_PI", 3), ("FPU_OTHER_PI", 3), ("FPU_STF_PI", 3),
    ("DERAT_MISS_RATE", 4), ("DSLB_MISS_RATE", 4), ("DTLB_MISS_RATE", 4),
    ("DATA_FROM_L2_PI", 5), ("DATA_FROM_L3_PI", 5), ("DATA_FROM_LOCAL_MEM_PI", 5), ("DATA_FROM_REMOTE_MEM_PI", 5),
    ("MEM_RD_BAND_PI", 6), ("MEM_WR_BAND_PI", 6),
]
# c_ij of eq. 1: typical cycles per event on a POWER5+-like base (illustrative, not from
# the seed, which prints none): CPI components are cycles already; bandwidth in bytes per
# instruction at 8 bytes per cycle.
COEFFICIENTS = {
    "FPU_FMA_PI": 6, "FPU_OTHER_PI": 30, "FPU_STF_PI": 4,
    "DERAT_MISS_RATE": 20, "DSLB_MISS_RATE": 100, "DTLB_MISS_RATE": 200,
    "DATA_FROM_L2_PI": 14, "DATA_FROM_L3_PI": 90, "DATA_FROM_LOCAL_MEM_PI": 280, "DATA_FROM_REMOTE_MEM_PI": 400,
    "MEM_RD_BAND_PI": 0.125, "MEM_WR_BAND_PI": 0.125,
}
# Each target scales the cycles of the six groups (a'_i / a_i of eq. 3-5): synthetic
# machines shaped like seed 003's targets (a faster in-order core; a bandwidth-starved MCM).
TARGETS = {
    "js22": [0.50, 0.70, 0.45, 0.60, 0.65, 0.70],
    "p570": [0.42, 0.62, 0.40, 0.55, 0.55, 0.60],
    "x3550": [0.55, 0.60, 0.55, 0.50, 0.60, 0.80],
    "x3650": [0.65, 0.75, 0.65, 0.60, 0.90, 1.60],
    "identical": [1, 1, 1, 1, 1, 1],
}


def lognormal(rng, median, spread):
    return median * math.exp(rng.gauss(0, spread))


def benchmark_metrics(rng, name):
    fp = name.split(".")[0] in {"410", "416", "433", "434", "435", "436", "437", "444", "447", "450", "453",
                                "454", "459", "465", "470", "481", "482"}
    mem = lognormal(rng, 1.0, 0.8)           # memory intensity
    fpshare = rng.uniform(0.15, 0.6) if fp else rng.uniform(0.0, 0.02)
    branchy = lognormal(rng, 1.0, 0.5) * (0.4 if fp else 1.5)
    base = {
        "CPI_CMPL_CYC": rng.uniform(0.3, 0.6),
        "CPI_GCT_EMPTY_IC_MISS": lognormal(rng, 0.01, 0.6),
        "CPI_GCT_EMPTY_BR_MPRED": 0.03 * branchy,
        "CPI_GCT_EMPTY_OTHER": lognormal(rng, 0.05, 0.4),
        "CPI_STALL_LSU_ERAT_MISS": 0.01 * mem * lognormal(rng, 1, 0.4),
        "CPI_STALL_LSU_REJECT_OTHERS": lognormal(rng, 0.06, 0.5),
        "CPI_STALL_LSU_DCACHE_MISS": 0.35 * mem * lognormal(rng, 1, 0.3),
        "CPI_STALL_LSU_OTHERS": lognormal(rng, 0.08, 0.4),
        "CPI_STALL_FXU_DIV": lognormal(rng, 0.005, 0.8),
        "CPI_STALL_FXU_OTHERS": lognormal(rng, 0.1, 0.4),
        "CPI_STALL_FPU_DIV": 0.1 * fpshare * lognormal(rng, 1, 0.8),
        "FPU_FMA_PI": 0.5 * fpshare * lognormal(rng, 1, 0.3),
        "FPU_OTHER_PI": 0.06 * fpshare * lognormal(rng, 1, 0.6),
        "FPU_STF_PI": 0.15 * fpshare * lognormal(rng, 1, 0.3),
        "DERAT_MISS_RATE": 0.004 * mem * lognormal(rng, 1, 0.5),
        "DSLB_MISS_RATE": 2e-5 * lognormal(rng, 1, 1.0),
        "DTLB_MISS_RATE": 8e-4 * mem * lognormal(rng, 1, 0.6),
        "DATA_FROM_L2_PI": 0.025 * lognormal(rng, 1, 0.4),
        "DATA_FROM_L3_PI": 0.006 * mem * lognormal(rng, 1, 0.4),
        "DATA_FROM_LOCAL_MEM_PI": 0.003 * mem * lognormal(rng, 1, 0.5),
        "DATA_FROM_REMOTE_MEM_PI": 1e-5 * mem * lognormal(rng, 1, 1.0),
    }
    base["MEM_RD_BAND_PI"] = 128 * base["DATA_FROM_LOCAL_MEM_PI"] * lognormal(rng, 1.5, 0.3)  # with prefetch
    base["MEM_WR_BAND_PI"] = base["MEM_RD_BAND_PI"] * rng.uniform(0.2, 0.6)
    # SMT: two threads share a core and its L2; stalls and reloads grow with memory intensity.
    share = 1 + 0.3 * min(mem, 3)
    smt = dict(base)
    smt["CPI_CMPL_CYC"] = base["CPI_CMPL_CYC"] * rng.uniform(1.05, 1.2)
    for k in ("CPI_STALL_LSU_DCACHE_MISS", "CPI_STALL_LSU_REJECT_OTHERS", "CPI_GCT_EMPTY_OTHER", "CPI_STALL_FXU_OTHERS"):
        smt[k] = base[k] * share * rng.uniform(0.95, 1.1)
    for k in ("DATA_FROM_L3_PI", "DATA_FROM_LOCAL_MEM_PI", "MEM_RD_BAND_PI", "MEM_WR_BAND_PI"):
        smt[k] = base[k] * rng.uniform(1.1, 1.4)
    return {"PST": base, "SMT": smt}, lognormal(rng, 2e12, 0.5)


def groups(values):
    g = [0.0] * 6
    for name, grp in METRICS:
        g[grp - 1] += COEFFICIENTS.get(name, 1) * values[name]
    return g


def cpi(values):
    return sum(values[n] for n, grp in METRICS if grp <= 2)


def fmt(v):
    return "%.9g" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=2009)
    ap.add_argument("--noise", type=float, default=0.0, help="relative counter noise of the applications (0.05: 5%%)")
    ap.add_argument("--apps", type=int, default=4, help="random applications (2-4 surrogates each)")
    ap.add_argument("--exact-ab", action="store_true", help="add app_AB = 0.6 x 435.gromacs + 0.4 x 470.lbm by path length")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    os.makedirs(a.out, exist_ok=True)
    bench = {}
    for b in BENCHMARKS:
        bench[b] = benchmark_metrics(rng, b)
    # Relative runtimes, eq. 3-5: H'_b / H_b with the target's group factors, 1% noise.
    ratio = {t: {} for t in TARGETS}
    for t, f in TARGETS.items():
        for b, (vals, _) in bench.items():
            g = groups(vals["PST"])
            r = sum(fi * gi for fi, gi in zip(f, g)) / sum(g)
            ratio[t][b] = r if t == "identical" else r * (1 + 0.01 * rng.gauss(0, 1))
    apps = {}
    if a.exact_ab:
        apps["app_AB"] = {"435.gromacs": 0.6, "470.lbm": 0.4}
    fp = BENCHMARKS[12:]
    for i in range(a.apps):
        k = rng.choice([2, 3, 4])
        chosen = rng.sample(fp, k)
        raw = [rng.uniform(0.2, 1.0) for _ in chosen]
        apps["app%d" % (i + 1)] = {b: r / sum(raw) for b, r in zip(chosen, raw)}
    app_rows, truth = {}, {}
    for name, mix in apps.items():
        vals = {}
        for mode in MODES:
            vals[mode] = {m: sum(alpha * bench[b][0][mode][m] for b, alpha in mix.items()) * max(0.0, 1 + a.noise * rng.gauss(0, 1))
                          for m, _ in METRICS}
        app_rows[name] = vals
        time = {b: alpha * cpi(bench[b][0]["PST"]) for b, alpha in mix.items()}
        truth[name] = {"mix": mix, "ratio": {t: sum(time[b] * ratio[t][b] for b in mix) / sum(time.values()) for t in TARGETS}}
    header = ["program", "kind", "mode", "instructions"] + [m for m, _ in METRICS]
    with open(os.path.join(a.out, "metrics.csv"), "w") as f:
        f.write("# synthetic counters (samples/projection/generate.py --seed %d --noise %g)\n" % (a.seed, a.noise))
        f.write(",".join(header) + "\n")
        for mode in MODES:
            for b, (vals, instr) in bench.items():
                f.write(",".join([b, "benchmark", mode, fmt(instr)] + [fmt(vals[mode][m]) for m, _ in METRICS]) + "\n")
            for name, vals in app_rows.items():
                f.write(",".join([name, "application", mode, fmt(1e13)] + [fmt(vals[mode][m]) for m, _ in METRICS]) + "\n")
    with open(os.path.join(a.out, "targets.csv"), "w") as f:
        f.write("# runtime on the target / runtime on the base; applications: the truth\n")
        f.write(",".join(["program"] + list(TARGETS)) + "\n")
        for b in BENCHMARKS:
            f.write(",".join([b] + [fmt(ratio[t][b]) for t in TARGETS]) + "\n")
        for name in apps:
            f.write(",".join([name] + [fmt(truth[name]["ratio"][t]) for t in TARGETS]) + "\n")
    with open(os.path.join(a.out, "coefficients.csv"), "w") as f:
        f.write("name,value\n")
        for k, v in COEFFICIENTS.items():
            f.write("%s,%s\n" % (k, fmt(v)))
    with open(os.path.join(a.out, "truth.json"), "w") as f:
        json.dump({"seed": a.seed, "noise": a.noise, "applications": truth,
                   "instructions": {b: instr for b, (_, instr) in bench.items()}}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
