#!/usr/bin/env python3
"""Records what every JSON-producing command prints, so a change to how JSON is built can
be shown to leave the output byte-identical (issue 17: JSON through nlohmann-json).

  scripts/json_equality.py record --pamc OLD/pamc --pamela-eval OLD/pamela_eval --out /tmp/old
  scripts/json_equality.py record --pamc build/pamc --pamela-eval build/runtime/pamela_eval --out /tmp/new
  scripts/json_equality.py compare /tmp/old /tmp/new
  scripts/json_equality.py layout OLD/pamc build/pamc

Two builds of different code differ in more than their JSON code: GiNaC seeds its hashes
with the addresses of its classes' type names (and pamc's alpha_hash with their class-info
objects), so its term order (the order of an --emit json tree's operands, of explain's
max/min arguments, of a floating-point sum, which loop bound fails first) follows the
executable's layout (tests/layout). To compare code and not layout, link the old code as
pamc_layout_probe with tests/layout/layout_pad.cpp's pad sized (and a zero-filled one added
for .bss) so that `layout` reports shifts of 0, and record that.

Cases: every model under samples/ and tests/ through `compile --emit json [--all]`, and
(where it compiles) `eval --json` (several points: small integers, a fraction, huge and tiny
values, each header's `% expect:` point, every top-level equation as a target),
`explain --json`, `sensitivity --json`, `simulate --json` (one run and three exponential
runs); `validate --json` on the MA traces of tests/cli/data and made-up ones; `fit`,
`hybrid` and `project --json` on the repository's data; pamela_eval on every model; and
fixtures (written to --fixtures, the same path for both recordings, since paths are
printed) whose names and contents hold quotes, backslashes, control characters, UTF-8 and
bytes that are not UTF-8, and models whose values are NaN, infinite, huge exact integers,
tiny exact decimals and repeating fractions. A case's file holds its command, its exit
status, stdout and stderr (bytes as printed). Keep both executables outside the worktree
(or both inside): pamc also looks for stdlib/ next to itself, and error messages list
where it looked."""
import argparse, concurrent.futures, glob, json, os, re, shutil, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 60

WEIRD = ['q"uote', 'back\\slash', 'ctl\x01\x08\x0c\x0d\x1f\x7f', 'tab\tand\nnewline', 'utf8 \u00e9\u6f22\u5b57\U0001f600']
WEIRD_BYTES = [b'bad\xffutf8', b'half\xe6\xbc']  # names that are not UTF-8

# values JSON must carry (at x = 2): NaN, infinities, huge and tiny exact numbers, fractions
NUMBERS = {"big": "10 ^ 40 * x", "tiny": "x / 10 ^ 30", "third": "x / 3", "neg_third": "0 - x / 3",
           "root": "sqrt(x)", "neg_root": "sqrt(1 - x)", "log_zero": "log(x - 2)", "huge_exp": "exp(1000 * x)",
           "small_exp": "exp(0 - 1000 * x)", "whole": "1e20 * x", "e15": "1e15 * x / 2", "e16": "123456789012345678 * x",
           "point1": "0.1 * x", "neg_zero": "0 - 0 * x", "vec": "[1, 2, 3] * x / 7", "div_zero": "x / (x - 2)",
           "subnormal": "exp(0 - 370 * x)", "pow_frac": "x ^ 0.5 * 1e-300"}

REGION_MODEL = """numeric parameter size
region tzetar {
  numeric vector_flops = size ^ 3
  numeric avl = size / 3
}
process main = delay(size)
"""

NO_REGION_MODEL = "numeric parameter n\nprocess main = delay(n)\n"


def models():
    found = []
    for top in ("samples", "tests"):
        found += glob.glob(os.path.join(ROOT, top, "**", "*.pam"), recursive=True)
    return sorted(found)


def expect_points(path):
    pts = []
    try:
        for line in open(path, encoding="utf-8", errors="replace"):
            m = re.match(r"% expect: (.*?) =>", line)
            if m:
                try:
                    pts.append(dict(kv.split("=") for kv in m.group(1).split()))
                except ValueError:
                    pass
    except OSError:
        pass
    return pts[:2]


def defines(point):
    return [a for k, v in point.items() for a in ("-D", f"{k}={v}")]


def run(argv, stdin=None):
    try:
        p = subprocess.run(argv, capture_output=True, timeout=TIMEOUT, input=stdin, cwd=ROOT,
                           env=dict(os.environ, PAMC_PATH=ROOT))  # stdlib/ and machines/ for any pamc
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout", b"", b""


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
    return path


def fixtures(fx):
    """Files whose names and contents JSON must quote; the same bytes at every recording."""
    if os.path.isdir(fx):
        shutil.rmtree(fx)
    os.makedirs(fx)
    mrm = open(os.path.join(ROOT, "samples", "mrm.pam"), "rb").read()
    trace = open(os.path.join(ROOT, "tests", "cli", "data", "tzetar_classW.trace"), "rb").read()
    seismic = open(os.path.join(ROOT, "tests", "cli", "data", "seismic_phase2.csv"), "rb").read()
    hybrid = open(os.path.join(ROOT, "samples", "hybrid", "r10000.csv"), "rb").read()
    out = {"models": [], "traces": [], "csv": [], "hybrid": []}
    names = [w.encode() for w in WEIRD] + WEIRD_BYTES
    for i, n in enumerate(names):
        d = os.path.join(fx.encode(), b"d%d" % i)
        os.makedirs(d)
        out["models"].append(write(os.path.join(d, n + b".pam"), mrm))
        out["traces"].append(write(os.path.join(d, n + b".trace"), trace))
        out["csv"].append(write(os.path.join(d, n + b".csv"), seismic))
    # trace regions and hybrid codes/machines named with the same bytes
    lines = [b"header"]
    for n in names:
        r = n.replace(b":", b"_").replace(b"\n", b" ")
        lines.append(b"MA:2:ma_vec_loop_start:" + r + b":a:1:b:2.5:c:3e-7:2")
        lines.append(b"MA:2:ma_vec_loop_stop:" + r + b":1:1e300:2:3:0.1:5:6:1.5e-9:0:0:0")
    out["traces"].append(write(os.path.join(fx.encode(), b"regions.trace"), b"\n".join(lines) + b"\n"))
    out["traces"].append(write(os.path.join(fx.encode(), b"nothing.trace"), b"no MA lines here\n"))
    rows = hybrid.split(b"\n")
    weird_rows = rows[:2]
    for k, row in enumerate(rows[2:]):
        if not row:
            continue
        cells = row.split(b",")
        cells[0] = names[k % len(names)].replace(b",", b";").replace(b"\n", b" ") + b"_" + cells[0]
        weird_rows.append(b",".join(cells))
    out["hybrid"].append(write(os.path.join(fx.encode(), b"hybrid.csv"), b"\n".join(weird_rows) + b"\n"))
    out["numbers"] = [write(os.path.join(fx, f"n_{k}.pam"), f"numeric parameter x\nnumeric v = {e}\nprocess main = delay(x)\n")
                      for k, e in NUMBERS.items()]
    out["numbers"] += [write(os.path.join(fx, f"s_{k}.pam"), f"numeric parameter x\nprocess main = delay({e})\n")
                       for k, e in NUMBERS.items()]
    out["regions"] = write(os.path.join(fx, "regions.pam"), REGION_MODEL)
    out["no_regions"] = write(os.path.join(fx, "no_regions.pam"), NO_REGION_MODEL)
    return out


def plan(pamc, fx):
    """The cases: (name, argv, stdin)."""
    cases = []
    fxs = fixtures(fx)
    eval_jobs = []
    all_models = models() + fxs["models"] + fxs["numbers"] + [fxs["regions"], fxs["no_regions"]]
    for k, m in enumerate(all_models):
        tag = f"m{k:03d}"
        cases.append((f"{tag}.emit", [pamc, "compile", m, "--emit", "json"], None))
        cases.append((f"{tag}.emit_all", [pamc, "compile", m, "--emit", "json", "--all"], None))
        rc, out, _ = run([pamc, "compile", m, "--emit", "json"])
        if rc != 0:
            continue
        doc = json.loads(out.decode("utf-8", errors="replace"))
        free = [p["name"] for p in doc["parameters"] if "default" not in p]
        tops = [e["name"] for e in doc["equations"]]
        points = [{p: v for p in free} for v in ("4", "2.5", "1000", "3e-7", "123456789012345678901234567", "1/3")]
        points += expect_points(m if isinstance(m, str) else m.decode(errors="replace"))
        for i, pt in enumerate(points):
            cases.append((f"{tag}.eval{i}", [pamc, "eval", m, "--json", "--max-terms", "1e7", *defines(pt)], None))
        targets = [a for t in tops for a in ("--target", t)]
        cases.append((f"{tag}.eval_targets", [pamc, "eval", m, "--json", *targets, *defines(points[0])], None))
        for i, pt in enumerate(points[:2] + points[3:4]):
            cases.append((f"{tag}.explain{i}", [pamc, "explain", m, "--json", *defines(pt)], None))
            cases.append((f"{tag}.sensitivity{i}", [pamc, "sensitivity", m, "--json", *defines(pt)], None))
        small = {p: "3" for p in free}
        cases.append((f"{tag}.simulate", [pamc, "simulate", m, "--json", "--max-events", "100000", *defines(small)], None))
        cases.append((f"{tag}.simulate_runs", [pamc, "simulate", m, "--json", "--max-events", "100000", "--runs", "3",
                                               "--dist", "exp", "--seed", "5", *defines(small)], None))
        if m in fxs["numbers"]:
            for t in ("v", "T_main"):
                for what in ("eval", "explain", "sensitivity"):
                    cases.append((f"{tag}.{what}_{t}", [pamc, what, m, "--json", "--target", t, "-D", "x=2"], None))
            cases.append((f"{tag}.simulate_2", [pamc, "simulate", m, "--json", "-D", "x=2"], None))
        eval_jobs.append((m, free))
    # validate: the seed's trace, made-up traces, models with and without regions
    data = os.path.join(ROOT, "tests", "cli", "data")
    tz = sorted(glob.glob(os.path.join(ROOT, "samples", "tzetar_mv", "*.pam")))
    traces = [os.path.join(data, "tzetar_classW.trace")] + fxs["traces"]
    for k, m in enumerate(tz + [fxs["regions"], fxs["no_regions"]] + fxs["models"][:2]):
        for pi, pts in enumerate((["-D", "size=36"], ["-D", "problem_size=72", "-D", "nprocs=4"], ["-D", "n=2", "-D", "size=2.5"])):
            for j, t in enumerate(traces):
                cases.append((f"v{k:02d}.{j}.{pi}", [pamc, "validate", m, "--trace", t, "--json", *pts], None))
            cases.append((f"v{k:02d}.all.{pi}",
                          [pamc, "validate", m, "--json", *pts] + [a for t in traces for a in ("--trace", t)], None))
    # fit (tests/cli/run_fit.py's cases), with data paths JSON must quote
    seismic = os.path.join(data, "seismic_phase.pam")
    every = "c_comm_start,c_comm_trans,c_rd_start,c_wr_start,c_mem_trans"
    for j, csv in enumerate([os.path.join(data, f) for f in ("seismic_phase2.csv", "seismic_phase2_exact.csv",
                                                              "seismic_phase4.csv")] + fxs["csv"]):
        cases.append((f"fit{j:02d}.all", [pamc, "fit", seismic, "--data", csv, "--fit", every, "--json"], None))
        cases.append((f"fit{j:02d}.rel", [pamc, "fit", seismic, "--data", csv, "--fit", every, "--relative", "--json"], None))
        cases.append((f"fit{j:02d}.comm", [pamc, "fit", seismic, "--data", csv, "--fit", "c_comm_start,c_comm_trans",
                                           "--target", "comm_time", "--json"], None))
    cases.append(("fit.cpi", [pamc, "fit", os.path.join(data, "cpi.pam"), "--data", os.path.join(data, "cpi_m0.csv"),
                              "--fit", "m0,cpi_pipeline", "--json"], None))
    # hybrid and project: the samples' data
    for j, csv in enumerate([os.path.join(ROOT, "samples", "hybrid", "r10000.csv")] + fxs["hybrid"]):
        cases.append((f"hybrid{j}", [pamc, "hybrid", csv, "--json"], None))
        cases.append((f"hybrid{j}.min", [pamc, "hybrid", csv, "--json", "--min-size", "100", "--alpha", "0.01"], None))
    ex = os.path.join(ROOT, "samples", "projection", "example")
    proj = [os.path.join(ex, "metrics.csv"), "--targets", os.path.join(ex, "targets.csv"),
            "--coefficients", os.path.join(ex, "coefficients.csv")]
    cases.append(("project.exact", [pamc, "project", *proj, "--method", "exact", "--json"], None))
    cases.append(("project.ga", [pamc, "project", *proj, "--population", "200", "--generations", "30", "--seed", "3",
                                 "--json"], None))
    return cases, eval_jobs


def pamela_eval_cases(tool, eval_jobs):
    """One job file per model: pamela_eval prints a line per model."""
    cases = []
    for k, (m, free) in enumerate(eval_jobs):
        mb = m if isinstance(m, bytes) else m.encode()
        pts = b"".join(b"point " + b" ".join(v.encode() for _ in free) + b"\n"
                       for v in ("4", "2.5", "0.3", "3e-7", "-1"))
        cases.append((f"pe{k:03d}", [tool, "-"], b"model\t" + mb + b"\n" + pts))
    return cases


def record(a):
    cases, jobs = plan(a.pamc, a.fixtures)
    if a.pamela_eval:
        cases += pamela_eval_cases(a.pamela_eval, jobs)
    if os.path.isdir(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)

    def one(case):
        name, argv, stdin = case
        rc, out, err = run(argv, stdin)
        shown = [x if isinstance(x, bytes) else x.encode() for x in argv[1:]]
        head = b"$ " + b" ".join(repr(x).encode() for x in shown) + b"\n" + (b"stdin: " + repr(stdin).encode() + b"\n"
                                                                              if stdin else b"")
        write(os.path.join(a.out, name + ".txt"),
              head + b"exit " + str(rc).encode() + b"\n--- stdout\n" + out + b"--- stderr\n" + err)
        return rc

    with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as pool:
        rcs = list(pool.map(one, cases))
    json_ok = sum(1 for rc in rcs if rc == 0)
    print(f"recorded {len(cases)} outputs in {a.out} ({json_ok} exit 0, {len(cases) - json_ok} errors)")


def text(path):
    """A recorded output; project's search time (wall-clock seconds) masked."""
    data = open(path, "rb").read()
    return re.sub(rb'"seconds": [-+.0-9e]+', b'"seconds": S', data) if "project" in path else data


def compare(a):
    old = sorted(os.listdir(a.old))
    new = set(os.listdir(a.new))
    differ = [n for n in old if n not in new or text(os.path.join(a.old, n)) != text(os.path.join(a.new, n))]
    extra = sorted(new - set(old))
    for n in differ[:20]:
        print("differs:", n)
        subprocess.run(["diff", "-a", os.path.join(a.old, n), os.path.join(a.new, n)])
    for n in extra[:20]:
        print("only in", a.new + ":", n)
    print(f"{len(old) - len(differ)} of {len(old)} outputs identical" + (f"; {len(extra)} extra" if extra else ""))
    return 1 if differ or extra else 0


# Type names that are not GiNaC expression classes (no hash seed), placed with other code.
NOT_HASHED = {"_ZTSN5GiNaC12map_functionE", "_ZTSN4pamc3sym9EvalErrorE"}


def layout(a):
    """How far GiNaC's type names and class infos (its hash seeds) moved from one executable
    to the other."""
    def names(exe, wanted):
        out = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
        return {p[2]: int(p[0], 16) for p in (l.split() for l in out.splitlines())
                if len(p) == 3 and wanted(p[1], p[2]) and p[2] not in NOT_HASHED}
    ok = True
    for what, wanted in (("type names", lambda t, n: n.startswith(("_ZTSN5GiNaC", "_ZTSN4pamc3sym"))),
                         ("class infos", lambda t, n: t in "Bb" and "reg_info" in n)):
        old, new = names(a.old, wanted), names(a.new, wanted)
        shifts = sorted({new[k] - old[k] for k in old if k in new})
        print(f"GiNaC's {what} moved by", ", ".join(map(str, shifts)), "bytes")
        ok = ok and shifts == [0]
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("record")
    r.add_argument("--pamc", required=True)
    r.add_argument("--pamela-eval")
    r.add_argument("--out", required=True)
    r.add_argument("--fixtures", default="/tmp/pamc-json-fixtures")
    r.add_argument("--jobs", type=int, default=2)
    c = sub.add_parser("compare")
    c.add_argument("old")
    c.add_argument("new")
    g = sub.add_parser("layout")
    g.add_argument("old")
    g.add_argument("new")
    a = ap.parse_args()
    if a.what == "layout":
        return layout(a)
    a.pamc = os.path.abspath(a.pamc) if a.what == "record" else None
    if a.what == "record" and a.pamela_eval:
        a.pamela_eval = os.path.abspath(a.pamela_eval)
    return record(a) if a.what == "record" else compare(a)


if __name__ == "__main__":
    sys.exit(main() or 0)
