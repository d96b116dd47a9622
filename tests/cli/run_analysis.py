#!/usr/bin/env python3
"""pamc sweep, explain and sensitivity (docs/cli.md): sweep values equal `pamc eval`,
ranges and grids, plots are real images and errors leave no file, the MRM's crossover
and elasticities, exit codes."""
import harness
from harness import MRM, ROOT, check, pamc, write
import argparse, csv, io, json, os, re, subprocess, sys, tempfile


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def eval_at(model, bindings, target=None):
    args = ["eval", model, "--json"] + [x for k, v in bindings.items() for x in ("-D", f"{k}={v}")]
    if target:
        args += ["--target", target]
    rc, out, err = pamc(*args)
    return json.loads(out) if rc == 0 else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-analysis-")

    # --- sweep: values equal pamc eval ---
    rc, out, err = pamc("sweep", MRM, "-D", "N=1000", "--sweep", "P=1:300")
    r = rows(out)
    check("sweep P=1:300 gives 300 rows with header P,T_main",
          rc == 0 and len(r) == 300 and list(r[0].keys()) == ["P", "T_main"], out[:200] + err)
    for p in [1, 3, 100, 101, 102, 257, 300]:
        row = r[p - 1] if len(r) >= p else {}
        ref = eval_at(MRM, {"P": p, "N": 1000})
        check(f"sweep value at P={p} equals eval",
              row and ref and row["P"] == str(p) and close(float(row["T_main"]), float(ref["T_main"])), f"{row} {ref}")
    check("sweep prints exact-looking values (0.1*3*1000 -> 10100, not 10100.000000000002)",
          all("0000000" not in x["T_main"] for x in r), "")

    # step and descending
    rc, out, err = pamc("sweep", MRM, "-D", "N=10", "--sweep", "P=1:2:0.25", "--target", "T_main")
    # P = 0.25 is not an integer: the MRM assumes P is an integer, like eval
    check("a non-integer loop bound in the range is eval's error, at that point",
          rc == 1 and "P = 1.25" in err and "[NonIntegerBound]" in err, err)
    rc, out, err = pamc("sweep", MRM, "-D", "N=10", "--sweep", "P=200:100:-50")
    check("descending linear range", rc == 0 and [x["P"] for x in rows(out)] == ["200", "150", "100"], out + err)

    # geometric
    rc, out, err = pamc("sweep", MRM, "-D", "N=1e6", "--sweep", "P=1:1024:x2")
    r = rows(out)
    check("geometric range P=1:1024:x2", rc == 0 and [x["P"] for x in r] == [str(2 ** k) for k in range(11)], out + err)
    ok = True
    for x in r:
        ref = eval_at(MRM, {"P": x["P"], "N": "1e6"})
        ok = ok and close(float(x["T_main"]), float(ref["T_main"]))
    check("geometric sweep values equal eval", ok, out)

    # grid
    rc, out, err = pamc("sweep", MRM, "--sweep", "P=50:150:50", "--sweep", "N=1:100:x10", "--speedup")
    r = rows(out)
    check("grid: cartesian product, first --sweep slowest",
          rc == 0 and len(r) == 9 and list(r[0].keys()) == ["P", "N", "T_main", "speedup_T_main"]
          and [(x["P"], x["N"]) for x in r[:4]] == [("50", "1"), ("50", "10"), ("50", "100"), ("100", "1")], out + err)
    ok = True
    for x in r:
        ref = eval_at(MRM, {"P": x["P"], "N": x["N"]})
        base = eval_at(MRM, {"P": "50", "N": x["N"]})
        ok = ok and close(float(x["T_main"]), float(ref["T_main"]))
        ok = ok and close(float(x["speedup_T_main"]), float(base["T_main"]) / float(ref["T_main"]))
    check("grid values and speedups equal eval", ok, out)

    # --csv PATH
    path = os.path.join(tmp, "out.csv")
    rc, out, err = pamc("sweep", MRM, "-D", "N=1000", "--sweep", "P=1:10", "--csv", path)
    check("--csv writes the file, nothing on stdout",
          rc == 0 and out == "" and os.path.exists(path) and len(open(path).read().splitlines()) == 11, out + err)

    # a model with a default and two targets
    two = write(tmp, "two.pam", "numeric parameter P\nnumeric parameter W = 2 * P\n"
                "process main = par (p = 1, P) delay(W)\nprocess other = delay(W / P)\n")
    rc, out, err = pamc("sweep", two, "--sweep", "P=1:4", "--target", "main", "--target", "T_other")
    r = rows(out)
    check("targets and defaults that depend on the swept parameter",
          rc == 0 and list(r[0].keys()) == ["P", "T_main", "T_other"]
          and [float(x["T_main"]) for x in r] == [2, 4, 6, 8] and all(float(x["T_other"]) == 2 for x in r), out + err)

    # --- plots ---
    png = os.path.join(tmp, "curve.png")
    rc, out, err = pamc("sweep", MRM, "-D", "N=1000", "--sweep", "P=1:300", "--plot", png)
    ok = rc == 0 and os.path.exists(png) and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    check("--plot writes a PNG (magic bytes)", ok, err)
    svg = os.path.join(tmp, "curve.svg")
    rc, out, err = pamc("sweep", MRM, "-D", "N=1000", "--sweep", "P=1:1024:x2", "--speedup", "--plot", svg)
    head = open(svg, "rb").read(200) if os.path.exists(svg) else b""
    check("--plot writes an SVG", rc == 0 and (b"<svg" in head or head.startswith(b"<?xml")), err)
    bad = os.path.join(tmp, "bad.png")
    rc, out, err = pamc("sweep", MRM, "--sweep", "P=1:10", "--plot", bad)  # N unbound
    check("an error leaves no plot file", rc == 1 and not os.path.exists(bad) and not os.path.exists(bad + ".pamc-tmp"), err)
    badcsv = os.path.join(tmp, "bad.csv")
    rc, out, err = pamc("sweep", MRM, "-D", "N=1.5", "--sweep", "P=0:3", "--csv", badcsv)  # non-integer loop bound
    check("an error leaves no CSV file", rc == 1 and not os.path.exists(badcsv) and not os.path.exists(badcsv + ".pamc-tmp"), err)
    # P = 0 is outside the closed form's assumption P >= 1: the sweep takes the model's own
    # value there (an empty par takes no time), not the formula's 10.1 N.
    rc, out, err = pamc("sweep", MRM, "-D", "N=10", "--sweep", "P=0:2")
    check("outside the closed form's assumptions the sweep gives the model's value",
          rc == 0 and out.splitlines()[1:] == ["0,0", "1,101", "2,101"], out + err)
    rc, out, err = pamc("sweep", MRM, "-D", "N=1", "--sweep", "P=1:3", "--plot", os.path.join(tmp, "x.gif"))
    check("--plot with an unknown extension exits 2", rc == 2 and "png" in err, err)

    # --- usage errors exit 2, model errors exit 1 ---
    for args, what in [(["--sweep", "P=1"], "range without LAST"),
                       (["--sweep", "P=1:10:0"], "zero step"),
                       (["--sweep", "P=10:1"], "step of the wrong sign"),
                       (["--sweep", "P=1:10:x1"], "factor 1"),
                       (["--sweep", "P=0:10:x2"], "geometric from 0"),
                       (["--sweep", "P=a:10"], "not a number"),
                       (["--sweep", "P=1:3", "--sweep", "P=1:3"], "swept twice"),
                       (["-D", "P=1", "--sweep", "P=1:3"], "bound and swept"),
                       ([], "no --sweep")]:
        rc, out, err = pamc("sweep", MRM, "-D", "N=1", *args) if "-D" not in args else pamc("sweep", MRM, *args)
        check(f"sweep usage error exits 2: {what}", rc == 2, f"rc={rc} {err}")
    rc, out, err = pamc("sweep", MRM, "--sweep", "P=1:3")
    check("sweep with an unbound parameter exits 1", rc == 1 and "[UnboundParameter]" in err and "N" in err, err)
    rc, out, err = pamc("sweep", MRM, "-D", "N=1", "--sweep", "Q=1:3")
    check("sweeping a name that is no parameter exits 1", rc == 1 and "Q" in err, err)

    # --- explain ---
    rc, out, err = pamc("explain", MRM, "-D", "P=1000", "-D", "N=1e6")
    check("explain finds the crossover P = 101", rc == 0 and "P = 101" in out and "dominates" in out, out + err)
    rc, out, err = pamc("explain", MRM, "-D", "P=1000", "-D", "N=1e6", "--json")
    try:
        j = json.loads(out)["T_main"]
        m = j["extrema"][0]
        dom = m["args"][m["dominant"]]
        cross = m["crossovers"][0]
        ok = (m["kind"] == "max" and dom["expression"] == "0.1 * P" and dom["value"] == 100
              and cross["parameter"] == "P" and cross["value"] == 101 and m["crossover_depends_on"] == [])
    except Exception as e:  # noqa: BLE001
        ok, out = False, f"{out} {e}"
    check("explain --json: 0.1 * P dominates, crossover P = 101", ok, out + err)
    rc, out, err = pamc("explain", MRM, "-D", "P=10", "-D", "N=1e6", "--json")
    j = json.loads(out)["T_main"]["extrema"][0] if rc == 0 else {}
    check("explain at P = 10: 10.1 dominates", rc == 0 and j["args"][j["dominant"]]["expression"] == "10.1", out + err)
    sym = write(tmp, "sym.pam", "numeric parameter P\nnumeric parameter N\nnumeric parameter a\n"
                "process main = par (p = 1, P) delay(max(a * P, N))\n")
    rc, out, err = pamc("explain", sym, "-D", "P=10", "-D", "N=50", "-D", "a=2", "--json")
    try:
        cr = {c["parameter"]: c for c in json.loads(out)["T_main"]["extrema"][0]["crossovers"]}
        ok = cr["P"]["value"] == 25 and cr["N"]["value"] == 20 and cr["a"]["value"] == 5
    except Exception as e:  # noqa: BLE001
        ok, out = False, f"{out} {e}"
    check("explain solves crossovers in every parameter (symbolic other parameters)", ok, out + err)
    # --- crossovers only in the domain; branches that are one function are no tie ---
    jacobi = os.path.join(ROOT, "tests", "cli", "data", "jacobi_1d.pam")

    def crossovers(model, *bindings):
        rc, out, err = pamc("explain", model, *[x for b in bindings for x in ("-D", b)], "--json")
        if rc != 0:
            return None, out + err
        j = json.loads(out)
        return [c for t in j.values() for m in t["extrema"] for c in m["crossovers"]], out

    # K * max(...) whose first and last arguments are equal for every P >= 2: at P = 4 they
    # are one regime, not a tie on a crossover; t_msg and t_c are >= 0, so the crossovers at
    # t_msg = 0 (the other branch dominates when t_msg < 0) are not reported.
    rc, out, err = pamc("explain", jacobi, "-D", "P=4", "-D", "N=1000", "-D", "K=10", "--json")
    try:
        # The simplifier may also see that the branches are one: then no max is left at all.
        t = json.loads(out)["T_main"]
        if not t["extrema"]:
            ok = "one regime" in " ".join(t["notes"])
        else:
            m = t["extrema"][0]
            ok = (m["tied"] == [] and len(m["same"]) == 1 and m["crossovers"] == []
                  and m["args"][m["dominant"]]["expression"] == "(2 <= P) * t_msg + (3 <= P) * t_msg + N * t_c / P")
    except Exception as e:  # noqa: BLE001
        ok, out = False, f"{out} {e}"
    check("explain: two branches equal for all P >= 2 are one regime (no tie, no crossover at t_msg = 0)", ok, out + err)
    rc, out, err = pamc("explain", jacobi, "-D", "P=4", "-D", "N=1000", "-D", "K=10")
    check("explain text: no 'tie', the equal branch marked as the same near the point",
          rc == 0 and "tie" not in out and ("the same as the dominant term near this point" in out or "one regime" in out), out + err)
    # Crossovers at a negative value or with a region below 0 (N = 0 where the other
    # branch would dominate for N < 0, a numeric root at N = -3e-60): none of them.
    mrm_ts = write(tmp, "mrm_ts.pam", "numeric parameter P\nnumeric parameter N\nnumeric parameter t_l = 10\n"
                   "numeric parameter t_s = 0.1\nresource s = fcfs(0, 1)\n"
                   "process main = par (p = 1, P) seq (i = 1, N) { delay(t_l) ; use(s, t_s) }\n")
    for model, point in [(mrm_ts, ["P=4", "N=10"]), (jacobi, ["P=2", "N=1000", "K=10"]),
                         (os.path.join(ROOT, "samples", "corpus", "block_ceil.pam"), ["N=10", "P=3"]),
                         (os.path.join(ROOT, "samples", "corpus", "wavefront.pam"), ["N=5", "P=2"]),
                         (os.path.join(ROOT, "samples", "corpus", "master_worker.pam"), ["P=4", "N=10"]),
                         (os.path.join(ROOT, "samples", "corpus", "halo_edges.pam"), ["N=4", "P=1"])]:
        cs, out = crossovers(model, *point)
        bad = [c for c in cs or [] if c["value"] < 0 or re.search(r"< ~?-?0$", c["other_dominates_when"])
               or ("e-" in str(c["value"]) and abs(c["value"]) < 1e-30)]
        check(f"explain {os.path.basename(model)} at {' '.join(point)}: no crossover at a negative value or below 0",
              cs is not None and not bad, f"{bad} {out}")
    cs, out = crossovers(mrm_ts, "P=4", "N=10")
    by = {c["parameter"]: c["value"] for c in cs or []}
    check("explain keeps the crossovers in the domain: P = 101, t_l = 0.3, t_s = 10/3 (and none in N)",
          by.get("P") == 101 and by.get("t_l") == 0.3 and abs(by.get("t_s", 0) - 10 / 3) < 1e-5 and "N" not in by, out)
    # A declared bound is part of the domain: with P <= 50 the server never saturates.
    capped = write(tmp, "mrm_capped.pam", open(mrm_ts).read().replace("numeric parameter P\n", "numeric parameter P <= 50\n"))
    cs, out = crossovers(capped, "P=4", "N=10")
    check("explain: no crossover beyond a declared bound (P = 101 with P <= 50)",
          cs is not None and all(c["parameter"] != "P" for c in cs) and any(c["parameter"] == "t_s" for c in cs), out)
    # Two arguments that meet at the point only are a tie, with the crossover in each
    # parameter on the side where the other takes over.
    tie = write(tmp, "tie.pam", "numeric parameter P\nnumeric parameter N\nnumeric T = max(N, 0.5 * P)\n")
    rc, out, err = pamc("explain", tie, "-D", "N=2", "-D", "P=4", "--json")
    try:
        m = json.loads(out)["T"]["extrema"][0]
        when = sorted(c["other_dominates_when"] for c in m["crossovers"])
        # which of the two is listed as dominant follows the printed order
        want = ["N < 2", "P > 4"] if m["args"][m["dominant"]]["expression"] == "N" else ["N > 2", "P < 4"]
        ok = len(m["tied"]) == 1 and m["same"] == [] and when == want
    except Exception as e:  # noqa: BLE001
        ok, out = False, f"{out} {e}"
    check("explain: a tie at the point stays a tie, with a crossover in N and in P on the side the other takes over", ok, out + err)
    # sweep --plot marks a crossover only where the dominant branch changes: the Jacobi's
    # branches that meet for P >= 2 (their doubles differ by 1e-21) are not one.
    svg = os.path.join(tmp, "jacobi.svg")
    rc, out, err = pamc("sweep", jacobi, "-D", "N=1000", "-D", "K=10", "--sweep", "P=1:16", "--plot", svg)
    text = open(svg).read() if os.path.exists(svg) else ""
    check("sweep --plot: no crossover marker where two branches are one function",
          rc == 0 and "<svg" in text and "P = " not in text, err + text[-300:])
    svg = os.path.join(tmp, "mrm.svg")
    rc, out, err = pamc("sweep", MRM, "-D", "N=10", "--sweep", "P=1:300", "--plot", svg)
    text = open(svg).read() if os.path.exists(svg) else ""
    check("sweep --plot still marks the MRM's crossover P = 101", rc == 0 and text.count("P = 101") == 1, err)

    rc, out, err = pamc("explain", MRM, "-D", "P=1000")
    check("explain with an unbound parameter exits 1", rc == 1 and "[UnboundParameter]" in err, err)
    rc, out, err = pamc("explain", MRM, "-D", "P=x", "-D", "N=1")
    check("explain with a bad -D exits 2", rc == 2, err)

    # --- sensitivity ---
    rc, out, err = pamc("sensitivity", MRM, "-D", "P=1000", "-D", "N=1e6", "--json")
    try:
        s = json.loads(out)["T_main"]["parameters"]
        ok = (s["N"]["elasticity"] == 1 and s["P"]["elasticity"] == 1 and s["P"]["derivative"] == "0.1 * N"
              and s["P"]["value"] == 100000)
    except Exception as e:  # noqa: BLE001
        ok, out = False, f"{out} {e}"
    check("sensitivity at P=1000, N=1e6: elasticities 1 and 1, dT/dP = 0.1 * N", ok, out + err)
    rc, out, err = pamc("sensitivity", MRM, "-D", "P=10", "-D", "N=1e6", "--json")
    try:
        s = json.loads(out)["T_main"]["parameters"]
        ok = s["P"]["elasticity"] == 0 and s["N"]["elasticity"] == 1
    except Exception as e:  # noqa: BLE001
        ok, out = False, f"{out} {e}"
    check("sensitivity at P=10: P elasticity 0", ok, out + err)
    rc, out, err = pamc("sensitivity", MRM, "-D", "P=101", "-D", "N=1e6")
    check("sensitivity reports a tie at the kink", rc == 0 and "tie" in out, out + err)
    rc, out, err = pamc("sensitivity", MRM, "-D", "P=1000", "-D", "N=1e6")
    check("sensitivity text shows the symbolic derivative", rc == 0 and "0.1 * N" in out and "elasticity" in out, out + err)
    rc, out, err = pamc("sensitivity", MRM, "-D", "N=1")
    check("sensitivity with an unbound parameter exits 1", rc == 1 and "[UnboundParameter]" in err, err)
    rc, out, err = pamc("sensitivity", MRM, "--bogus")
    check("sensitivity with an unknown option exits 2", rc == 2, err)
    for sub in ["sweep", "explain", "sensitivity"]:
        rc, out, err = pamc(sub, "--help")
        check(f"{sub} --help", rc == 0 and f"pamc {sub}" in out, err)

    return harness.summary("analysis checks")


if __name__ == "__main__":
    sys.exit(main())
