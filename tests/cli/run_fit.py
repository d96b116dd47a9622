#!/usr/bin/env python3
"""pamc fit (docs/cli.md): recovers seed 004's Table 6 constants from Seismic phase times
(exactly from exact data, within stated tolerances from data with +-0.5% noise), seed
001's m0, an unknown inside max (Levenberg-Marquardt), JSON and -o output, and clear
errors with the right exit codes for bad input."""
import harness
from harness import ROOT, check, pamc, write
import argparse, json, os, sys, tempfile

DATA = os.path.join(ROOT, "tests", "cli", "data")
SEISMIC = os.path.join(DATA, "seismic_phase.pam")
TABLE6 = {  # seed 004, Table 6
    2: dict(c_comm_start=3.18e-4, c_comm_trans=6.62e-7, c_rd_start=8.58e-5, c_wr_start=3.04e-3, c_mem_trans=4.40e-8),
    4: dict(c_comm_start=1.04e-4, c_comm_trans=2.17e-6, c_rd_start=1.48e-4, c_wr_start=5.25e-3, c_mem_trans=7.60e-8),
}
ALL = "c_comm_start,c_comm_trans,c_rd_start,c_wr_start,c_mem_trans"


def fit_json(*args):
    rc, out, err = pamc("fit", *args, "--json")
    try:
        return rc, json.loads(out) if rc == 0 else None, err
    except ValueError:
        return rc, None, err + out


def rel(a, b):
    return abs(a - b) / abs(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-fit-")

    # --- exact data: every constant of Table 6 (phase 2) back to 1e-9 ---
    rc, r, err = fit_json(SEISMIC, "--data", os.path.join(DATA, "seismic_phase2_exact.csv"), "--fit", ALL)
    check("exact Seismic phase 2 data: linear fit of all five constants", rc == 0 and r["method"] == "linear", err)
    if r:
        for name, want in TABLE6[2].items():
            got = r["parameters"][name]["value"]
            check(f"exact data recovers {name} = {want}", rel(got, want) < 1e-9, f"{got}")
        check("exact data: R^2 = 1, max relative error < 1e-12",
              abs(r["r2"] - 1) < 1e-12 and r["max_relative_error"] < 1e-12, json.dumps(r)[:300])
        check("exact data: 24 rows, each with inputs, measured, predicted",
              r["rows"] == 24 and len(r["data_rows"]) == 24 and r["data_rows"][0]["line"] == 3
              and "P" in r["data_rows"][0]["inputs"], json.dumps(r["data_rows"][0]))

    # --- data with +-0.5% noise: communication and IO constants fitted from their own times
    # (seed 004 fits each resource's time), then all five from the total ---
    # Tolerances follow from the noise and the design: per-message and per-write costs
    # dominate their terms (1-2%), startup and per-byte disk costs share theirs (10-20%).
    tol = dict(c_comm_start=0.2, c_comm_trans=0.02, c_rd_start=0.1, c_wr_start=0.02, c_mem_trans=0.1)
    for phase in (2, 4):
        csv = os.path.join(DATA, f"seismic_phase{phase}.csv")
        rc, comm, err = fit_json(SEISMIC, "--data", csv, "--fit", "c_comm_start,c_comm_trans", "--target", "comm_time")
        check(f"phase {phase}: comm_time fit runs (measured column comm_time)",
              rc == 0 and comm["measured"] == "comm_time" and comm["target"] == "comm_time", err)
        rc, io, err = fit_json(SEISMIC, "--data", csv, "--fit", "c_rd_start,c_wr_start,c_mem_trans",
                               "--target", "io_time", "--relative")
        check(f"phase {phase}: io_time fit with relative residuals runs", rc == 0 and io["residuals"] == "relative", err)
        rc, total, err = fit_json(SEISMIC, "--data", csv, "--fit", ALL, "--relative")
        check(f"phase {phase}: T_main fit of all five constants runs", rc == 0, err)
        if comm and io and total:
            for name, want in TABLE6[phase].items():
                got = (comm if name.startswith("c_comm") else io)["parameters"][name]["value"]
                check(f"phase {phase}: {name} = {got:.4g} within {tol[name]:.0%} of Table 6's {want}",
                      rel(got, want) < tol[name], f"{got} vs {want}")
                got = total["parameters"][name]["value"]
                check(f"phase {phase}: {name} from T_main = {got:.4g} within {2 * tol[name]:.0%} of {want}",
                      rel(got, want) < 2 * tol[name], f"{got} vs {want}")
            check(f"phase {phase}: the fit explains the times (R^2 > 0.9999, RMS relative error < 0.5%)",
                  total["r2"] > 0.9999 and total["rms_relative_error"] < 0.005, json.dumps(total)[:300])

    # --- seed 001: m0 by least squares ---
    rc, r, err = fit_json(os.path.join(DATA, "cpi.pam"), "--data", os.path.join(DATA, "cpi_m0.csv"),
                          "--fit", "m0,cpi_pipeline", "--target", "cpi")
    check("cpi: fit of m0 and cpi_pipeline (column 'measured', column n ignored with a note)",
          rc == 0 and r["measured"] == "measured" and "'n'" in err and r["method"] == "linear", err)
    if r:
        m0 = r["parameters"]["m0"]["value"]
        cp = r["parameters"]["cpi_pipeline"]["value"]
        check(f"cpi: m0 = {m0:.4f} within 0.02 of 0.35", abs(m0 - 0.35) < 0.02, f"{m0}")
        check(f"cpi: cpi_pipeline = {cp:.4f} within 0.02 of 0.8", abs(cp - 0.8) < 0.02, f"{cp}")
        check("cpi: standard errors are given", r["parameters"]["m0"]["std_error"] > 0, json.dumps(r["parameters"]))

    # --- an exact linear case, text output ---
    lin = write(tmp, "lin.pam", "numeric parameter x\nnumeric parameter a = 1\nnumeric parameter b\n"
                                "process main = delay(a * x + b)\n")
    lin_csv = write(tmp, "lin.csv", "x,T_main\n1,3.5\n2,6\n3,8.5\n4,11\n")
    rc, out, err = pamc("fit", lin, "--data", lin_csv, "--fit", "a,b")
    check("exact line: text output prints a = 2.5 and b = 1 exactly",
          rc == 0 and "\n  a          2.5 " in out and "\n  b          1 " in out and "R^2" in out
          and "linear least squares" in out, out + err)
    rc, out, err = pamc("fit", lin, "--data", lin_csv, "--fit", "a", "--fit", "b", "-o", os.path.join(tmp, "fitted.pam"))
    check("-o writes the cost model", rc == 0 and os.path.exists(os.path.join(tmp, "fitted.pam")), err)
    rc, out, err = pamc("eval", os.path.join(tmp, "fitted.pam"), "-D", "x=10", "--json")
    check("-o: the written model evaluates with the fitted defaults (2.5 * 10 + 1)",
          rc == 0 and json.loads(out).get("T_main") == 26, out + err)

    # --- nonlinear: an unknown inside max (the MRM's service time) ---
    mrm = write(tmp, "mrm_ts.pam", "numeric parameter P\nnumeric parameter N\nnumeric parameter t_s = 0.05\n"
                                   "resource s = fcfs(0, 1)\n"
                                   "process main = par (p = 1, P) seq (i = 1, N) { delay(10) ; use(s, t_s) }\n")
    rows = "".join(f"{p},1000,{1000 * max(0.1 * p, 10.1):g}\n" for p in (10, 50, 100, 120, 150, 200, 300))
    mrm_csv = write(tmp, "mrm.csv", "P,N,T_main\n" + rows)
    rc, r, err = fit_json(mrm, "--data", mrm_csv, "--fit", "t_s")
    check("MRM: t_s inside max is fitted by Levenberg-Marquardt from its default 0.05",
          rc == 0 and r["method"] == "levenberg-marquardt" and r["parameters"]["t_s"]["start"] == 0.05
          and abs(r["parameters"]["t_s"]["value"] - 0.1) < 1e-9, err + json.dumps(r)[:300])
    rc, r, err = fit_json(mrm, "--data", mrm_csv, "--fit", "t_s", "--start", "t_s=0.3")
    check("--start sets the starting value", rc == 0 and r["parameters"]["t_s"]["start"] == 0.3
          and abs(r["parameters"]["t_s"]["value"] - 0.1) < 1e-9, err)
    pw = write(tmp, "pow.pam", "numeric parameter P >= 1\nnumeric parameter c = 1e-4\nnumeric parameter g = 1\n"
                               "process main = delay(c * P ^ g)\n")
    pw_csv = write(tmp, "pow.csv", "P,T_main\n" + "".join(f"{p},{3.18e-4 * p ** 0.5:.15g}\n" for p in (1, 2, 4, 8, 16, 64)))
    rc, r, err = fit_json(pw, "--data", pw_csv, "--fit", "c,g")
    check("power law c P^g: c = 3.18e-4 and g = 0.5 recovered",
          rc == 0 and abs(r["parameters"]["c"]["value"] / 3.18e-4 - 1) < 1e-8
          and abs(r["parameters"]["g"]["value"] - 0.5) < 1e-8, err)
    rc, out, err = pamc("fit", pw, "--data", pw_csv, "--fit", "c,g", "--max-iterations", "1")
    check("no convergence is an error naming the iterations and suggesting --start",
          rc == 1 and "did not converge" in err and "--start" in err, err)
    inv = write(tmp, "inv.pam", "numeric parameter x\nnumeric parameter a = 1\nprocess main = delay(x / (a - 1))\n")
    rc, out, err = pamc("fit", inv, "--data", lin_csv, "--fit", "a")
    check("no value at the starting point: located error with the reason",
          rc == 1 and "lin.csv:2:1" in err and "starting point a = 1" in err and "division by zero" in err, err)

    # --- 1-D Jacobi (make_fit_data.py): times and rates stay >= 0, the answer is the
    # least-squares optimum. For t_msg >= 0 the model is K (N / P t_c + messages t_msg), a
    # line in (t_c, t_msg): its least squares, by the normal equations here. ---
    jacobi = os.path.join(DATA, "jacobi_1d.pam")

    def jacobi_lsq(csv_path, relative=False, nonneg=True):
        rows = [l.split(",") for l in open(csv_path).read().splitlines()[2:]]
        a, y = [], []
        for p, n, k, t in rows:
            p, n, k, t = int(p), float(n), float(k), float(t)
            w = 1 / t if relative else 1
            a.append((w * k * n / p, w * k * ((p >= 2) + (p >= 3))))
            y.append(w * t)
        s11 = sum(u * u for u, _ in a)
        s12 = sum(u * v for u, v in a)
        s22 = sum(v * v for _, v in a)
        t1 = sum(u * z for (u, _), z in zip(a, y))
        t2 = sum(v * z for (_, v), z in zip(a, y))
        det = s11 * s22 - s12 * s12
        c, m = (s22 * t1 - s12 * t2) / det, (s11 * t2 - s12 * t1) / det
        if nonneg and m < 0:  # the bound t_msg >= 0 binds: t_c alone
            c, m = t1 / s11, 0.0
        return c, m

    def close6(got, want):
        return abs(got - want) <= 1e-6 * abs(want) if want else got == 0

    plain = os.path.join(DATA, "jacobi_1d.csv")
    shifted = os.path.join(DATA, "jacobi_1d_shifted.csv")
    for start in ([], ["--start", "t_c=1", "--start", "t_msg=1"]):
        how = "from 1" if start else "from the defaults"
        c, m = jacobi_lsq(plain)
        rc, r, err = fit_json(jacobi, "--data", plain, "--fit", "t_c,t_msg", *start)
        ok = rc == 0 and close6(r["parameters"]["t_c"]["value"], c) and close6(r["parameters"]["t_msg"]["value"], m)
        check(f"Jacobi, absolute residuals, {how}: t_c, t_msg equal linear least squares to 1e-6 ({c:.6g}, {m:.6g})",
              ok, err + (json.dumps(r["parameters"]) if r else ""))
        check(f"Jacobi, absolute residuals, {how}: a 179% RMS relative error is warned about, suggesting --relative",
              rc == 0 and "warning: the fit misses the measurements by 179% RMS" in err and "--relative" in err
              and "[PoorFit]" in err and len(r.get("warnings", [])) == 1, err)
        # The noise of the large times pulls unconstrained t_msg to -1.8e-5: the bound holds it.
        c, m = jacobi_lsq(shifted)
        rc, r, err = fit_json(jacobi, "--data", shifted, "--fit", "t_c,t_msg", *start)
        ok = (rc == 0 and r["parameters"]["t_msg"]["value"] == 0 and r["parameters"]["t_msg"].get("at_bound")
              and r["parameters"]["t_msg"]["std_error"] is None and close6(r["parameters"]["t_c"]["value"], c)
              and min(x["predicted"] for x in r["data_rows"]) > 0)
        check(f"Jacobi, data that pull t_msg below 0, {how}: t_msg held at 0, t_c = the bounded optimum {c:.6g}, "
              "no negative prediction", ok, err + (json.dumps(r["parameters"]) if r else ""))
        check(f"Jacobi, t_msg at its bound, {how}: a note says so", rc == 0 and "t_msg is held at its bound 0" in err, err)
        c, m = jacobi_lsq(plain, relative=True)
        rc, r, err = fit_json(jacobi, "--data", plain, "--fit", "t_c,t_msg", "--relative", *start)
        ok = rc == 0 and close6(r["parameters"]["t_c"]["value"], c) and close6(r["parameters"]["t_msg"]["value"], m)
        check(f"Jacobi, relative residuals, {how}: equal weighted least squares to 1e-6", ok, err)
        if r:
            check(f"Jacobi, relative residuals, {how}: t_c within 1% of 1e-8, t_msg within 2% of 5e-6, no warning",
                  rel(r["parameters"]["t_c"]["value"], 1e-8) < 0.01 and rel(r["parameters"]["t_msg"]["value"], 5e-6) < 0.02
                  and r.get("warnings") == [] and "warning" not in err, json.dumps(r["parameters"]) + err)
            # R^2 is of the residuals minimised, so it moves with the relative errors
            num = sum(((x["predicted"] - x["measured"]) / x["measured"]) ** 2 for x in r["data_rows"])
            ws = [1 / x["measured"] ** 2 for x in r["data_rows"]]
            mean = sum(w * x["measured"] for w, x in zip(ws, r["data_rows"])) / sum(ws)
            den = sum(w * (x["measured"] - mean) ** 2 for w, x in zip(ws, r["data_rows"]))
            check(f"Jacobi, relative residuals, {how}: R^2 is that of the relative residuals",
                  abs(r["r2"] - (1 - num / den)) < 1e-9, f"{r['r2']} vs {1 - num / den}")
    # A declared bound is the fit's bound too.
    bounded = write(tmp, "jacobi_bound.pam", open(jacobi).read().replace("numeric parameter t_msg = 5e-6",
                                                                        "numeric parameter t_msg >= 1e-6"))
    rc, r, err = fit_json(bounded, "--data", shifted, "--fit", "t_c,t_msg", "--start", "t_msg=2e-6")
    check("a declared bound t_msg >= 1e-6 holds t_msg at 1e-6",
          rc == 0 and r["parameters"]["t_msg"]["value"] == 1e-6 and r["parameters"]["t_msg"].get("at_bound"), err)
    # A model linear in its constants: bounded linear least squares (NNLS) directly.
    line = write(tmp, "line.pam", "numeric parameter x\nnumeric parameter a\nnumeric parameter b\n"
                                  "process main = delay(a * x + b)\n")
    line_csv = write(tmp, "line.csv", "x,T_main\n1,1\n2,3\n3,5\n4,7\n")  # 2 x - 1: b would be -1
    rc, r, err = fit_json(line, "--data", line_csv, "--fit", "a,b")
    want_a = (1 * 1 + 2 * 3 + 3 * 5 + 4 * 7) / (1 + 4 + 9 + 16)
    check("a linear model whose least squares has b < 0: b = 0, a = sum(x y) / sum(x^2) (NNLS)",
          rc == 0 and r["method"] == "linear" and r["parameters"]["b"]["value"] == 0
          and close6(r["parameters"]["a"]["value"], want_a), err + (json.dumps(r["parameters"]) if r else ""))

    # --- bad input ---
    def bad(name, args, code, *needles):
        rc, out, err = pamc("fit", *args)
        check(name, rc == code and all(n in err for n in needles) and "internal error" not in err, f"rc={rc} {err}")

    bad("missing data file", [lin, "--data", os.path.join(tmp, "nope.csv"), "--fit", "a,b"], 1, "nope.csv", "[IOError]")
    bad("missing model file", [os.path.join(tmp, "nope.pam"), "--data", lin_csv, "--fit", "a"], 1, "nope.pam")
    bad("no --data", [lin, "--fit", "a"], 2, "--data")
    bad("no --fit", [lin, "--data", lin_csv], 2, "--fit")
    bad("empty name in --fit", [lin, "--data", lin_csv, "--fit", "a,"], 2, "empty name")
    bad("--fit twice", [lin, "--data", lin_csv, "--fit", "a,a"], 2, "twice")
    bad("--fit and -D of one name", [lin, "--data", lin_csv, "--fit", "a,b", "-D", "b=1"], 2, "both fitted")
    bad("-D with a non-number", [lin, "--data", lin_csv, "--fit", "a", "-D", "b=zz"], 2, "not a number")
    bad("--fit of a name that is no parameter", [lin, "--data", lin_csv, "--fit", "zz"], 1, "no parameter 'zz'")
    bad("--fit of a parameter the target does not use",
        [write(tmp, "unused.pam", "numeric parameter x\nnumeric parameter u\nprocess main = delay(x)\n"),
         "--data", lin_csv, "--fit", "u"], 1, "does not depend on u")
    bad("unknown --target", [lin, "--data", lin_csv, "--fit", "a", "--target", "nope"], 1, "'nope'")
    bad("a fitted parameter given as a column", [lin, "--data", lin_csv, "--fit", "x"], 1, "lin.csv:1:1", "fitted")
    bad("non-numeric cell", [lin, "--data", write(tmp, "nan.csv", "x,T_main\n1,3.5\n2,abc\n"), "--fit", "a,b"], 1,
        "nan.csv:3:3", "'abc' is not a number", "[DataError]")
    bad("a measurement no double holds", [lin, "--data", write(tmp, "big.csv", "x,T_main\n1,3.5\n2,1e400\n3,8.5\n"),
                                           "--fit", "a,b"], 1, "big.csv:3:3", "outside what a double holds", "[DataError]")
    bad("ragged row", [lin, "--data", write(tmp, "rag.csv", "x,T_main\n1,3.5\n2\n"), "--fit", "a,b"], 1,
        "rag.csv:3:1", "1 field")
    bad("empty cell", [lin, "--data", write(tmp, "hole.csv", "x,T_main\n1,\n"), "--fit", "a"], 1, "empty cell")
    bad("empty data file", [lin, "--data", write(tmp, "empty.csv", ""), "--fit", "a"], 1, "empty")
    bad("header only", [lin, "--data", write(tmp, "head.csv", "x,T_main\n"), "--fit", "a"], 1, "no rows")
    bad("fewer rows than unknowns", [lin, "--data", write(tmp, "one.csv", "x,T_main\n1,3.5\n"), "--fit", "a,b"], 1,
        "1 row cannot determine 2 unknowns")
    bad("no measurement column", [lin, "--data", write(tmp, "nom.csv", "x,y\n1,3.5\n"), "--fit", "a"], 1,
        "no column holds the measurements", "--measured", "[DataError]")
    bad("two measurement columns", [lin, "--data", write(tmp, "two.csv", "x,T_main,time\n1,3.5,3\n"), "--fit", "a"], 1,
        "could each be", "--measured")
    bad("--measured names no column", [lin, "--data", lin_csv, "--fit", "a,b", "--measured", "zz"], 1, "no column 'zz'")
    bad("unbound parameter", [lin, "--data", write(tmp, "nox.csv", "T_main\n1\n2\n"), "--fit", "a,b"], 1,
        "parameter x has no value", "[UnboundParameter]")
    bad("unknowns the data cannot separate", [lin, "--data", write(tmp, "dep.csv", "x,T_main\n2,1\n2,2\n2,3\n"),
                                              "--fit", "a,b"], 1, "cannot separate")
    bad("a row breaking a declared bound", [pw, "--data", write(tmp, "bnd.csv", "P,T_main\n0,1\n"), "--fit", "c", "-D", "g=1"],
        1, "bnd.csv:2:1", "P >= 1")
    bad("--relative with a zero measurement", [lin, "--data", write(tmp, "zero.csv", "x,T_main\n1,0\n2,1\n"),
                                               "--fit", "a,b", "--relative"], 1, "zero.csv:2:3", "nonzero")
    rc, out, err = pamc("fit", lin, "--data", lin_csv, "--fit", "a,b", "--measured", "T_main")
    check("--measured names the measurement column", rc == 0, err)

    return harness.summary("fit checks")


if __name__ == "__main__":
    sys.exit(main())
