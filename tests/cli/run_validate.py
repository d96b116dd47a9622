#!/usr/bin/env python3
"""pamc validate (docs/cli.md) and MA regions (docs/language.md): seed 000's tzetar loop,
class W, one MPI task (size 36) against the seed's trace (section 5.2): vector flops
725,760 predicted vs 708,816 measured, vector load-store 1,179,360 vs 1,123,632, AVL 35 vs
33.351922; `pamc eval` of the same counters; and clean diagnostics for bad traces."""
import harness
from harness import ROOT, check, pamc, write
import argparse, json, os, re, sys, tempfile

TZETAR = os.path.join(ROOT, "samples", "sp_tzetar.pam")
TRACE = os.path.join(ROOT, "tests", "cli", "data", "tzetar_classW.trace")
START = ("MA:2:ma_vec_loop_start:tzetar:(size^2)*(size-1)*26:1179360:(size^2)*(size-1)*16:725760:"
         "(size-1)/(size/64+1):35.000000:3")
STOP = "MA:2:ma_vec_loop_stop:tzetar:1:244916:151434:1123632:708816:8:177196:33.351922:0:2421:445"


def validate_json(*args):
    rc, out, err = pamc("validate", *args, "--json")
    try:
        return rc, json.loads(out) if rc == 0 else None, err
    except ValueError:
        return rc, None, err + out


def row(out, counter):
    """The text output's row of one counter: [predicted, measured, error %, trace value]."""
    m = re.search(r"^  " + counter + r" +(\S+) +(\S+) +(\S+)  (.*)$", out, re.M)
    return list(m.groups()) if m else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    harness.PAMC = ap.parse_args().pamc
    tmp = tempfile.mkdtemp(prefix="pamc-validate-")

    # --- the seed's numbers, text output ---
    rc, out, err = pamc("validate", TZETAR, "--trace", TRACE, "-D", "size=36")
    check("validate tzetar class W: exit 0", rc == 0, err)
    check("validate: names the region and its one call", "region tzetar: 1 call" in out, out)
    check("vector flops: 725760 predicted, 708816 measured, -2.33%, trace 725760",
          row(out, "vector_flops") == ["725760", "708816", "-2.33", "725760"], out)
    check("vector load-store: 1179360 predicted, 1123632 measured, -4.73%",
          row(out, "vector_loadstore") == ["1179360", "1123632", "-4.73", "1179360"], out)
    check("AVL: 35 predicted, 33.351922 measured, -4.71%", row(out, "avl") == ["35", "33.351922", "-4.71", "35"], out)
    check("MV score: 3 predicted, no counter, trace 3", row(out, "mv") == ["3", "-", "-", "3"], out)
    check("no cross-check mismatch at size 36", "differs" not in out, out)

    # --- JSON ---
    rc, r, err = validate_json(TZETAR, "--trace", TRACE, "-D", "size=36")
    check("validate --json: exit 0", rc == 0 and r is not None, err)
    if r:
        reg = r["traces"][0]["regions"][0]
        c = reg["counters"]
        check("json: region tzetar, in model and trace, 1 call",
              reg["region"] == "tzetar" and reg["in_model"] and reg["in_trace"] and reg["calls"] == 1, json.dumps(reg))
        check("json: vector_flops", c["vector_flops"]["predicted"] == 725760 and c["vector_flops"]["measured"] == 708816
              and abs(c["vector_flops"]["error_percent"] - 100 * (708816 - 725760) / 725760) < 1e-9, json.dumps(c))
        check("json: vector_loadstore", c["vector_loadstore"]["predicted"] == 1179360
              and c["vector_loadstore"]["measured"] == 1123632, json.dumps(c))
        check("json: avl", c["avl"]["predicted"] == 35 and c["avl"]["measured"] == 33.351922
              and c["avl"]["trace_value"] == 35, json.dumps(c))
        check("json: the time counter has no measurement", c["time"]["measured"] is None and c["time"]["predicted"] > 0,
              json.dumps(c))

    # size from the input parameters: problem_size 72 on 4 tasks is size 36 per task
    rc, r, err = validate_json(TZETAR, "--trace", TRACE, "-D", "problem_size=72", "-D", "nprocs=4")
    check("size derived from problem_size 72 and 4 tasks: same prediction",
          rc == 0 and r["traces"][0]["regions"][0]["counters"]["vector_flops"]["predicted"] == 725760, err)

    # --- eval gives the same predicted numbers ---
    rc, out, err = pamc("eval", TZETAR, "-D", "size=36", "--target", "tzetar.vector_flops", "--target",
                        "tzetar.vector_loadstore", "--target", "tzetar.avl", "--json")
    check("eval --target tzetar.COUNTER", rc == 0 and json.loads(out) ==
          {"tzetar.vector_flops": 725760, "tzetar.vector_loadstore": 1179360, "tzetar.avl": 35}, out + err)
    rc, out, err = pamc("eval", TZETAR, "-D", "size=130", "--target", "tzetar.avl")
    check("eval: AVL uses integer division (size 130: 129 / 3 = 43)", out.strip() == "numeric tzetar.avl = 43", out + err)
    rc, out, err = pamc("compile", TZETAR)
    check("compile prints the region block", rc == 0 and "region tzetar {\n  numeric vector_loadstore = " in out, out + err)
    rc, out, err = pamc("compile", TZETAR, "--emit", "json")
    check("--emit json: counters carry region and counter",
          rc == 0 and any(e.get("region") == "tzetar" and e.get("counter") == "avl" and e["name"] == "tzetar.avl"
                          for e in json.loads(out)["equations"]), out[:300] + err)
    rc, out, err = pamc("compile", TZETAR, "--emit", "cpp")
    check("--emit cpp: counters as tzetar_vector_flops", rc == 0 and "inline double tzetar_vector_flops(" in out, err)

    # --- a trace with other lines, two calls, an unmodelled region, a second task ---
    mixed = write(tmp, "mixed.trace", "\n".join([
        "NAS SP benchmark, class W", "MA:1:ma_subroutine_start:adi", START, STOP,
        "  Iteration 1 done", START, STOP.replace("708816", "708818").replace("33.351922", "33.351924"),
        "MA:2:ma_vec_loop_start:txinvr:a:1:b:2:c:3.0:2", "MA:2:ma_vec_loop_stop:txinvr:2:1:1:1:1:1:1:1:0:0:0",
        "MA:1:ma_subroutine_stop:adi", ""]))
    rc, out, err = pamc("validate", TZETAR, "--trace", mixed)
    check("non-MA lines and other MA APIs are skipped; two calls give the mean",
          rc == 0 and "region tzetar: 2 calls, measured is the mean" in out
          and row(out, "vector_flops")[1] == "708817" and row(out, "avl")[1] == "33.351923", out + err)
    check("a region only in the trace is reported as not in the model",
          "region txinvr: not in the model (1 call)" in out, out)
    nothing = write(tmp, "nothing.trace", "no MA lines here\n")
    rc, out, err = pamc("validate", TZETAR, "--trace", TRACE, "--trace", nothing)
    check("two traces (one per task): each reported; a region missing from a trace is said",
          rc == 0 and len(re.findall(r"^trace ", out, re.M)) == 2 and "region tzetar: not in the trace" in out, out + err)

    # --- bad traces: file:line:col diagnostics, exit 1 ---
    def bad(name, lines, want, detail):
        path = write(tmp, name + ".trace", "\n".join(lines) + "\n")
        rc, out, err = pamc("validate", TZETAR, "--trace", path)
        check("bad trace, " + detail, rc == 1 and want.replace("FILE", path) in err and "[DataError]" in err
              and out == "", f"exit {rc}: {err}{out}")

    bad("short", ["header", STOP[:STOP.rindex(":")]], "FILE:2:", "a stop line with 14 fields")
    bad("short_msg", ["header", STOP[:STOP.rindex(":")]], "has 14 colon-separated fields, expected 15",
        "the field count is named")
    bad("number", [START, STOP.replace("708816", "7o8816")], "FILE:2:54: error: vector_flops '7o8816' is not a number",
        "a measured value that is not a number, at its column")
    bad("start_value", [START.replace(":725760:", ":x:"), STOP], "FILE:1:", "a start value that is not a number")
    bad("orphan", [STOP], "FILE:1:23: error: ma_vec_loop_stop of 'tzetar' without a ma_vec_loop_start",
        "a stop without a start")
    bad("open", [START], "ma_vec_loop_start of 'tzetar' is never stopped", "a start never stopped")
    bad("depth", [START.replace("MA:2:", "MA:two:"), STOP], "FILE:1:4: error: context depth", "a bad depth")
    rc, out, err = pamc("validate", TZETAR, "--trace", os.path.join(tmp, "missing.trace"))
    check("a missing trace file: IOError, exit 1", rc == 1 and "[IOError]" in err, err)

    # --- usage and model errors ---
    rc, out, err = pamc("validate", TZETAR)
    check("no --trace: usage error, exit 2", rc == 2 and "--trace" in err, err)
    rc, out, err = pamc("validate", TZETAR, "--trace", TRACE, "-D", "size=abc")
    check("a bad -D value: exit 2", rc == 2, err)
    unbound = write(tmp, "unbound.pam", "numeric parameter size\nregion tzetar {\n  numeric vector_flops = size ^ 3\n}\n")
    rc, out, err = pamc("validate", unbound, "--trace", TRACE)
    check("an unbound parameter: UnboundParameter, exit 1", rc == 1 and "[UnboundParameter]" in err, err)
    rc, out, err = pamc("validate", unbound, "--trace", TRACE, "-D", "size=36")
    check("a model without a prediction for a counter leaves it out",
          rc == 0 and row(out, "vector_flops") == ["46656", "708816", "+1419.24", "725760 (differs from the model)"]
          and row(out, "avl") is None, out + err)
    broken = write(tmp, "broken.pam", "region tzetar {\n  numeric flops = 1\n}\n")
    rc, out, err = pamc("validate", broken, "--trace", TRACE)
    check("an unknown counter name: UnknownCounter, exit 1", rc == 1 and "[UnknownCounter]" in err, err)
    return harness.summary("validate checks")


if __name__ == "__main__":
    sys.exit(main())
