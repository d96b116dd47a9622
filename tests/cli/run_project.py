#!/usr/bin/env python3
"""pamc project (docs/projection.md): on synthetic data from samples/projection/generate.py,
an application that is exactly 0.6 x 435.gromacs + 0.4 x 470.lbm by path length is found by
both searches and projected within 1% on every target; a target identical to the base
projects 1.00x; with 5% counter noise the exact search's projection error is no worse than
the genetic search's (the paper's Table 2 settings); the search is reproducible by --seed;
text, JSON and CSV agree; bad input is a located error with exit 1 and no partial file."""
import harness
from harness import ROOT, check, pamc, write
import argparse, json, os, subprocess, sys, tempfile

GEN = os.path.join(ROOT, "samples", "projection", "generate.py")
A, B = "435.gromacs", "470.lbm"


def generate(out, *args):
    subprocess.run([sys.executable, GEN, "--out", out, *args], check=True)
    return [os.path.join(out, "metrics.csv"), "--targets", os.path.join(out, "targets.csv"),
            "--coefficients", os.path.join(out, "coefficients.csv")]


def project_json(*args):
    rc, out, err = pamc("project", *args, "--json")
    try:
        return rc, json.loads(out) if rc == 0 else None, err
    except ValueError:
        return rc, None, err + out


def shares(method):
    return {s["benchmark"]: s["path_share"] for s in method["surrogates"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-project-")

    # --- exact combination: 0.6 A + 0.4 B by path length, no noise ---
    exact_in = generate(os.path.join(tmp, "exact"), "--exact-ab", "--apps", "1")
    ga_small = ["--population", "2000", "--generations", "300", "--limit", "0.005", "--seed", "3"]
    rc, r, err = project_json(*exact_in, "--application", "app_AB", *ga_small)
    check("exact combination: runs", rc == 0 and r is not None, err)
    if r:
        app = r["applications"][0]
        for t in app["targets"]:
            truth = t["measured"]
            for m in ("ga", "exact"):
                check(f"{m} on {t['target']}: projection within 1% of the truth",
                      abs(t[m]["projection"] - truth) <= 0.01 * truth, json.dumps(t[m])[:300])
            if t["target"] == "identical":
                for m in ("ga", "exact"):
                    check(f"{m}: a target identical to the base projects 1.00x", abs(t[m]["projection"] - 1) < 1e-12,
                          t[m]["projection"])
                    check(f"{m}: eq. 10 as printed does not (sum of weights)",
                          abs(t[m]["eq10_as_printed"] - sum(s["weight"] for s in t[m]["surrogates"])) < 1e-9)
        ex, ga = shares(app["targets"][0]["exact"]), shares(app["targets"][0]["ga"])
        check("exact search selects exactly {A, B} with path shares 0.6, 0.4",
              set(ex) == {A, B} and abs(ex[A] - 0.6) < 1e-6 and abs(ex[B] - 0.4) < 1e-6, ex)
        check("genetic search: {A, B} carry 99% of the path length, shares within 1%",
              ga.get(A, 0) + ga.get(B, 0) >= 0.99 and abs(ga.get(A, 0) - 0.6) <= 0.006 and abs(ga.get(B, 0) - 0.4) <= 0.004, ga)
        check("per-group errors of eq. 7 are reported per mode",
              set(app["targets"][0]["exact"]["group_errors"]) == {"PST", "SMT"} and
              len(app["targets"][0]["exact"]["group_errors"]["SMT"]) == 6)

    rc, out, err = pamc("project", *exact_in, "--application", "app_AB", "--method", "exact")
    check("text output: the identical target projects 1x and names the surrogates",
          rc == 0 and "target identical" in out and "    exact  1x" in out and A in out and B in out, out[:600])

    # --- reproducible: the same seed gives the same surrogates ---
    small = ["--population", "300", "--generations", "40", "--method", "ga", "--application", "app1"]
    noisy_in = generate(os.path.join(tmp, "noise5"), "--noise", "0.05", "--apps", "6", "--seed", "2009")
    runs = [project_json(*noisy_in, *small, "--seed", "11")[1] for _ in range(2)]
    strip = lambda r: [[t["ga"]["surrogates"] for t in a["targets"]] for a in r["applications"]] if r else None
    check("--seed: two runs give the same surrogates and weights", runs[0] and strip(runs[0]) == strip(runs[1]))

    # --- 5% noise, the paper's GA settings (Table 2, 10% limit): exact no worse than GA ---
    rc, r, err = project_json(*noisy_in)
    check("5% noise: runs", rc == 0 and r is not None, err)
    if r:
        err_of = {m: [abs(t[m]["error"]) for a in r["applications"] for t in a["targets"] if t["target"] != "identical"]
                  for m in ("ga", "exact")}
        mean = {m: sum(v) / len(v) for m, v in err_of.items()}
        check("5% noise: the exact search's mean projection error is no worse than the GA's",
              mean["exact"] <= mean["ga"], mean)
        check("5% noise: the exact search projects within 2% on average", mean["exact"] < 0.02, mean)

    # --- --base-mode: SMT ranks the groups and gives the cpi; identical still projects 1 ---
    rc, r, err = project_json(*exact_in, "--application", "app_AB", "--method", "exact", "--base-mode", "SMT")
    check("--base-mode SMT: runs, identical target 1.00x", rc == 0 and r["base_mode"] == "SMT" and
          abs(r["applications"][0]["targets"][-1]["exact"]["projection"] - 1) < 1e-12, err)

    # --- CSV output: one row per application, target and method ---
    csv_path = os.path.join(tmp, "out.csv")
    rc, out, err = pamc("project", *exact_in, "--method", "exact", "--csv", csv_path)
    rows = open(csv_path).read().splitlines() if os.path.exists(csv_path) else []
    check("--csv: header and one row per application x target", rc == 0 and len(rows) == 1 + 2 * 5 and
          rows[0].startswith("application,target,method,surrogates,projection"), rows[:2])

    # --- bad input ---
    good = open(os.path.join(tmp, "exact", "metrics.csv")).read().splitlines()
    targets = os.path.join(tmp, "exact", "targets.csv")
    header = good[1].split(",")
    col_fma = header.index("FPU_FMA_PI")

    def bad_metrics(name, lines):
        return write(tmp, name, "\n".join(lines) + "\n")

    row3 = good[3].split(",")
    row3[col_fma] = "abc"
    p = bad_metrics("nan.csv", good[:3] + [",".join(row3)] + good[4:])
    col = len(",".join(row3[:col_fma])) + 2
    cases = [
        ("a cell that is not a number: file, row and column", ["project", p, "--targets", targets], 1,
         [f"nan.csv:4:{col}: error: column 'FPU_FMA_PI': 'abc' is not a number", "[DataError]"]),
        ("an unknown metric column", ["project", bad_metrics("col.csv", [good[1].replace("FPU_FMA_PI", "FLOPS")] + good[2:]),
                                      "--targets", targets], 1, ["col.csv:1:", "'FLOPS'", "Table 1"]),
        ("a program without a row for one mode",
         ["project", bad_metrics("mode.csv", [l for l in good if not l.startswith("401.bzip2,benchmark,SMT")]),
          "--targets", targets], 1, ["mode.csv:", "'401.bzip2' has no row for mode 'SMT'"]),
        ("a benchmark without relative runtimes",
         ["project", os.path.join(tmp, "exact", "metrics.csv"), "--targets",
          write(tmp, "t.csv", "\n".join(l for l in open(targets).read().splitlines() if not l.startswith("470.lbm")) + "\n")],
         1, ["t.csv:2:1: error: benchmark '470.lbm'", "has no row"]),
        ("a negative relative runtime",
         ["project", os.path.join(tmp, "exact", "metrics.csv"), "--targets",
          write(tmp, "neg.csv", open(targets).read().replace("\n470.lbm,", "\n470.lbm,-"))], 1,
         ["neg.csv:", "relative runtime must be positive"]),
        ("an unknown name in the coefficients",
         ["project", os.path.join(tmp, "exact", "metrics.csv"), "--targets", targets, "--coefficients",
          write(tmp, "coef.csv", "name,value\nG3,2\nFLOPS_PI,4\n")], 1, ["coef.csv:3:1: error: 'FLOPS_PI' is neither a metric"]),
        ("an unknown --base-mode", ["project", os.path.join(tmp, "exact", "metrics.csv"), "--targets", targets,
                                    "--base-mode", "ST"], 1, ["--base-mode ST: no row has this mode"]),
        ("a file with a header and no rows", ["project", write(tmp, "hdr.csv", good[1] + "\n"), "--targets", targets], 1,
         ["hdr.csv:1:1: error: a header but no data rows"]),
        ("an empty targets file", ["project", os.path.join(tmp, "exact", "metrics.csv"), "--targets", write(tmp, "e.csv", "")],
         1, ["e.csv: error: no header row"]),
        ("a missing file", ["project", os.path.join(tmp, "none.csv"), "--targets", targets], 1, ["none.csv", "error"]),
        ("no --targets is a usage error", ["project", os.path.join(tmp, "exact", "metrics.csv")], 2, ["--targets"]),
        ("a bad --method is a usage error", ["project", os.path.join(tmp, "exact", "metrics.csv"), "--targets", targets,
                                             "--method", "anneal"], 2, ["--method"]),
    ]
    for name, args, code, needles in cases:
        rc, out, err = pamc(*args)
        check(name, rc == code and all(n in err for n in needles) and "internal error" not in err, f"rc={rc} {err}")
    no_csv = os.path.join(tmp, "never.csv")
    rc, out, err = pamc("project", p, "--targets", targets, "--csv", no_csv)
    check("an error leaves no partial CSV", rc == 1 and not os.path.exists(no_csv), err)
    return harness.summary("project checks")


if __name__ == "__main__":
    sys.exit(main())
