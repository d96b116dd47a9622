#!/usr/bin/env python3
"""pamc sweep, explain and sensitivity (docs/cli.md): sweep values equal `pamc eval`,
ranges and grids, plots are real images and errors leave no file, the MRM's crossover
and elasticities, exit codes."""
import harness
from harness import MRM, ROOT, check, pamc, write
import argparse, csv, io, json, os, subprocess, sys, tempfile


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
