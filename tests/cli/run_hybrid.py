#!/usr/bin/env python3
"""pamc hybrid (docs/predictability.md): seed 001's level 1 (two-factor ANOVA, codes x
machines with interaction) matches an independent computation with the textbook formulas
on a balanced design; level 2 judges m0 constant across problem sizes predictable and m0
that drifts not (samples/hybrid: HYDRO drifts, HEAT, HYDROT, SWEEP do not); JSON and text
agree; bad input is a located error with exit 1."""
import harness
from harness import ROOT, check, pamc, write
import argparse, json, math, os, random, subprocess, sys, tempfile

SAMPLE = os.path.join(ROOT, "samples", "hybrid", "r10000.csv")


def hybrid_json(*args):
    rc, out, err = pamc("hybrid", *args, "--json")
    try:
        return rc, json.loads(out) if rc == 0 else None, err
    except ValueError:
        return rc, None, err + out


def textbook_anova(rows):
    """Balanced two-factor ANOVA with interaction by the textbook sums of squares."""
    codes = sorted({c for c, _, _ in rows})
    machines = sorted({m for _, m, _ in rows})
    n = len(rows)
    r = n // (len(codes) * len(machines))
    mean = sum(y for _, _, y in rows) / n
    cm = {c: sum(y for cc, _, y in rows if cc == c) / (n / len(codes)) for c in codes}
    mm = {m: sum(y for _, mm_, y in rows if mm_ == m) / (n / len(machines)) for m in machines}
    cell = {(c, m): sum(y for cc, mm_, y in rows if cc == c and mm_ == m) / r for c in codes for m in machines}
    ss_c = r * len(machines) * sum((v - mean) ** 2 for v in cm.values())
    ss_m = r * len(codes) * sum((v - mean) ** 2 for v in mm.values())
    ss_cells = r * sum((v - mean) ** 2 for v in cell.values())
    ss_e = sum((y - cell[(c, m)]) ** 2 for c, m, y in rows)
    return {"code": ss_c, "machine": ss_m, "code x machine": ss_cells - ss_c - ss_m, "residual": ss_e}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-hybrid-")

    # --- level 1 against the textbook formulas, balanced 3 codes x 2 machines x 4 runs ---
    rng = random.Random(5)
    rows, lines = [], ["code,machine,cpi"]
    for c, base in (("HEAT", 1.1), ("HYDRO", 1.4), ("SWEEP", 1.2)):
        for m, extra in (("origin2000", 0.0), ("powerchallenge", 0.15)):
            for _ in range(4):
                y = base + extra + (0.1 if (c, m) == ("HYDRO", "powerchallenge") else 0) + rng.gauss(0, 0.03)
                rows.append((c, m, y))
                lines.append(f"{c},{m},{y:.6f}")
    rows = [(c, m, float(f"{y:.6f}")) for c, m, y in rows]
    rc, r, err = hybrid_json(write(tmp, "balanced.csv", "\n".join(lines) + "\n"))
    check("balanced design: runs", rc == 0 and r is not None, err)
    if r:
        want = textbook_anova(rows)
        got = {row["source"]: row for row in r["anova"][0]["rows"]}
        for source, ss in want.items():
            check(f"ANOVA {source}: sum of squares as by hand", abs(got[source]["ss"] - ss) <= 1e-9 * max(1, ss),
                  (got[source]["ss"], ss))
        check("ANOVA degrees of freedom 2, 1, 2, 18", [got[s]["df"] for s in ("code", "machine", "code x machine", "residual")] == [2, 1, 2, 18])
        check("ANOVA F = MS / MSE", abs(got["code"]["f"] - (want["code"] / 2) / (want["residual"] / 18)) < 1e-6 * got["code"]["f"])
        check("the built-in interaction is detected", got["code x machine"]["p"] < 0.05, got["code x machine"])
        check("without cpi_pipeline only the cpi table and no m0", len(r["anova"]) == 1 and r["m0"] == [])

    # --- level 2 on the seed-001-shaped sample ---
    rc, r, err = hybrid_json(SAMPLE)
    check("sample: runs", rc == 0 and r is not None, err)
    if r:
        verdict = {(s["code"], s["machine"]): s for s in r["m0"]}
        check("sample: eight code x machine studies", len(verdict) == 8, list(verdict))
        for (code, machine), s in verdict.items():
            want = code != "HYDRO"
            check(f"{code} on {machine}: {'predictable' if want else 'not predictable'} (F test)",
                  s["predictable"] is want and s["test"] == "F", json.dumps(s)[:300])
            check(f"{code} on {machine}: m0 per size with standard errors",
                  all(x["std_error"] and 0 < x["std_error"] < 0.02 for x in s["sizes"]))
        heat = verdict[("HEAT", "powerchallenge")]
        check("HEAT on powerchallenge: m0 near the generator's 0.42",
              all(abs(x["m0"] - 0.42) < 0.02 for x in heat["sizes"]), heat["sizes"])
        diff = {d["code"]: d for d in r["m0_difference"]}
        for code in ("HEAT", "HYDRO", "HYDROT", "SWEEP"):
            want = code != "HYDRO"
            check(f"{code}: m0(origin2000) - m0(powerchallenge) {'constant' if want else 'not constant'} across sizes",
                  code in diff and diff[code]["constant"] is want, json.dumps(diff.get(code))[:300])
        hyp = {h["hypothesis"]: h["rejected"] for h in r["hypotheses"]}
        check("the four hypotheses of seed 001 are reported", len(hyp) == 4, hyp)
        check("machine effect (cpi_memory): rejected, as in the paper", hyp.get("machine effect does not exist") is True)
    rc, out, err = pamc("hybrid", SAMPLE, "--min-size", "100")
    check("--min-size: smaller sizes left out of level 2",
          rc == 0 and "\n            50 " not in out.split("level 2")[1] and "verdict: not predictable" in out, out[-400:])
    check("text: the test used is named", "F test of equal m0" in out)

    # --- bad input ---
    good = open(SAMPLE).read().splitlines()
    cases = [
        ("a cell that is not a number", write(tmp, "nan.csv", "\n".join(good[:3] + [good[3].replace(",0.", ",x.", 1)] + good[4:]) + "\n"),
         ["nan.csv:4:", "is not a number", "[DataError]"]),
        ("h2 without T2", write(tmp, "noT.csv", "code,machine,size,cpi,cpi_pipeline,h2\nA,m,1,1,0.5,0.1\n"),
         ["noT.csv:1:", "'h2' has no latency column 'T2'"]),
        ("cpi_pipeline above cpi", write(tmp, "pipe.csv", "code,machine,size,cpi,cpi_pipeline,h2,T2\nA,m,1,1,1.5,0.1,10\n"),
         ["pipe.csv:2:", "cpi_pipeline exceeds cpi"]),
        ("a code never run on a machine", write(tmp, "cell.csv", "code,machine,cpi\nA,m,1\nA,m,1.1\nB,n,1\nB,n,2\nA,n,1\n"),
         ["cell.csv", "no observation of code 'B' on machine 'm'"]),
        ("a header and no rows", write(tmp, "hdr.csv", "code,machine,cpi\n"), ["hdr.csv:1:1: error: a header but no data rows"]),
        ("a missing column", write(tmp, "nocpi.csv", "code,machine,size\nA,m,1\n"), ["nocpi.csv:1:", "no column 'cpi'"]),
    ]
    for name, path, needles in cases:
        rc, out, err = pamc("hybrid", path)
        check(name, rc == 1 and all(n in err for n in needles) and "internal error" not in err, f"rc={rc} {err}")
    rc, out, err = pamc("hybrid", SAMPLE, "--alpha", "2")
    check("--alpha outside (0, 1) is a usage error", rc == 2 and "--alpha" in err, err)
    return harness.summary("hybrid checks")


if __name__ == "__main__":
    sys.exit(main())
