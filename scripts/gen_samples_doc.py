#!/usr/bin/env python3
"""Writes docs/samples.md from docs/samples.md.in and the samples' real pamc output, so the
page cannot drift from what pamc prints.

  python3 scripts/gen_samples_doc.py --pamc build/pamc            write docs/samples.md and
                                                                  docs/img/seismic_heatmap.png
  python3 scripts/gen_samples_doc.py --pamc build/pamc --check    fail if docs/samples.md
                                                                  differs (the CTest test)

The template is markdown with three kinds of directive:
  @@ pamc ARGS [| drop REGEX]   a code block: `$ pamc ARGS`, then its output (stdout, then
                                stderr), lines matching REGEX left out
  @@ py NAME                    markdown made by the function NAME below from pamc output
  {{eval ARGS : FORMAT}}        inline: the value of the target (`--target X`, else T_main)
                                of `pamc eval ARGS`, formatted with the Python FORMAT
Commands run from the repository root; `pamc` is the --pamc binary.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import doc_compare  # noqa: E402  (numbers compared within a tolerance)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEMPLATE = os.path.join(ROOT, "docs", "samples.md.in")
PAGE = os.path.join(ROOT, "docs", "samples.md")
HEATMAP = os.path.join("docs", "img", "seismic_heatmap.png")
HEATMAP_ARGS = ("sweep samples/seismic.pam --sweep P=1:2048:x2 --sweep dataset=1:6 --target comp_2 "
                "--target comm_2 --target io_2 --target comp_4 --target comm_4 --target io_4 --heatmap --plot")

PAMC = "build/pamc"


class Failure(Exception):
    pass


def pamc(args, check=True):
    r = subprocess.run([PAMC] + list(args), capture_output=True, text=True, cwd=ROOT)
    if check and r.returncode != 0:
        raise Failure(f"pamc {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r


def value(args):
    """T_main (or --target's equation) from `pamc eval ARGS`."""
    args = list(args)
    target = args[args.index("--target") + 1] if "--target" in args else "T_main"
    out = pamc(["eval"] + args).stdout
    m = re.search(rf"^numeric {re.escape(target)} = (\S+)$", out, re.M)
    if not m:
        raise Failure(f"pamc eval {' '.join(args)}: no {target} in\n{out}")
    return float(m.group(1))


# --- @@ py sections --------------------------------------------------------------------

def gauss_crossover():
    """Where block and cyclic GAUSS take the same time, as t_miss / t_hit (both models are
    linear in t_miss: two points give each line, a third checks it)."""
    out = pamc(["compile", "samples/gauss_block.pam"]).stdout
    t_hit = float(re.search(r"^numeric parameter t_hit = (\S+)", out, re.M).group(1))
    rows = ["| P | block at t_miss = 0 | cyclic at t_miss = 0 | crossover t_miss | t_miss / t_hit |",
            "|---|---|---|---|---|"]
    for P in (2, 4, 8, 16, 32, 64):
        line = {}
        for m in ("gauss_block", "gauss_cyclic"):
            a = value([f"samples/{m}.pam", "-D", f"P={P}", "-D", "t_miss=0"])
            b = value([f"samples/{m}.pam", "-D", f"P={P}", "-D", "t_miss=1e-7"])
            mid = value([f"samples/{m}.pam", "-D", f"P={P}", "-D", "t_miss=5e-8"])
            if abs(mid - (a + b) / 2) > 1e-9 * abs(mid):
                raise Failure(f"{m} P={P} is not linear in t_miss")
            line[m] = (a, (b - a) / 1e-7)
        (ab, sb), (ac, sc) = line["gauss_block"], line["gauss_cyclic"]
        x = (ab - ac) / (sc - sb)
        rows.append(f"| {P} | {ab:.4g} s | {ac:.4g} s | {x:.3g} s | {x / t_hit:.2f} |")
    return "\n".join(rows)


def residuals():
    out = []
    for name in ("mrm", "matmul", "adi_i", "adi_j", "gauss_block", "gauss_cyclic", "psrs_original",
                 "psrs_improved", "sp_tzetar", "cg", "seismic"):
        err = pamc(["compile", f"samples/{name}.pam", "--stats"]).stderr
        m = re.search(r"^residual reductions: (\d+)", err, re.M)
        out.append(f"  {name}: {m.group(1) if m else '?'}")
    return "```\n" + "\n".join(out) + "\n```"


CLASSES = (("S", 12), ("W", 36), ("A", 64), ("B", 102), ("C", 162))
BANDWIDTHS = (("2.5", "2.5e9"), ("5.5", "5.5e9"), ("8.5", "8.5e9"))


def tzetar_fig5():
    rows = ["| class | size | AVL | 2.5 GB/s | 5.5 GB/s | 8.5 GB/s |", "|---|---|---|---|---|---|"]
    for cls, size in CLASSES:
        avl = value(["samples/sp_tzetar.pam", "-D", f"size={size}", "--target", "tzetar.avl"])
        ts = [value(["samples/tzetar_mv/tzetar_mv.pam", "-D", f"size={size}", "-D", f"bandwidth={bw}"])
              for _, bw in BANDWIDTHS]
        rows.append(f"| {cls} | {size} | {avl:g} | " + " | ".join(f"{1e3 * t:.4g} ms" for t in ts) + " |")
    return "\n".join(rows)


def tzetar_fig6():
    rows = ["| class | with MV, normal build (MV 3) | with MV, -O stream0 (MV 1) | without MV | stream0 / without MV |",
            "|---|---|---|---|---|"]
    for cls, size in CLASSES:
        normal = value(["samples/tzetar_mv/tzetar_mv.pam", "-D", f"size={size}"])
        stream0 = value(["samples/tzetar_mv/tzetar_mv.pam", "-D", f"size={size}", "-D", "mflag=0"])
        no_mv = value(["samples/tzetar_mv/tzetar_no_mv.pam", "-D", f"size={size}"])
        rows.append(f"| {cls} | {1e3 * normal:.4g} ms | {1e3 * stream0:.4g} ms | {1e3 * no_mv:.4g} ms | "
                    f"{stream0 / no_mv:.3g} |")
    return "\n".join(rows)


TABLE2 = {1: ("test", 42, (6.95, 3.6, 0.574, 31.2)), 2: ("small", 215, (41.3, 12.2, 0.632, 161)),
          3: ("medium", 6084, (664, 134, 1.45, 5285))}


def seismic_table2():
    rows = ["| data set | | total | phase 1 | phase 2 | phase 3 | phase 4 |", "|---|---|---|---|---|---|---|"]
    for d, (name, total, phases) in TABLE2.items():
        got = [value(["samples/seismic.pam", "-D", f"dataset={d}", "--target", f"phase_{k}"]) for k in (1, 2, 3, 4)]
        tot = value(["samples/seismic.pam", "-D", f"dataset={d}"])
        rows.append(f"| {name} | Armstrong and Eigenmann (1997), Table 2 | {total:g} | " + " | ".join(f"{p:g}" for p in phases) + " |")
        rows.append(f"| | pamc | {tot:.4g} | " + " | ".join(f"{g:.4g}" for g in got) + " |")
        rows.append(f"| | pamc / paper | {tot / total:.3f} | " +
                    " | ".join(f"{g / p:.3f}" for g, p in zip(got, phases)) + " |")
    return "\n".join(rows)


def seismic_datasets():
    rows = ["| data set | trace file | P = 1 | P = 16 | P = 256 | P = 2048 |", "|---|---|---|---|---|---|"]
    names = ("test", "small", "medium", "large", "xlarge", "ultra")
    sizes = ("0.011 GB", "0.22 GB", "1.73 GB", "20 GB", "280 GB (assumed)", "3.9 TB")
    for d in range(1, 7):
        ts = [value(["samples/seismic.pam", "-D", f"dataset={d}", "-D", f"P={P}"]) for P in (1, 16, 256, 2048)]
        rows.append(f"| {names[d - 1]} | {sizes[d - 1]} | " + " | ".join(f"{t:.4g} s" for t in ts) + " |")
    return "\n".join(rows)


SECTIONS = {f.__name__: f for f in (gauss_crossover, residuals, tzetar_fig5, tzetar_fig6, seismic_table2,
                                    seismic_datasets)}


# --- the template ----------------------------------------------------------------------

def code_block(args_text):
    drop = None
    if " | drop " in args_text:
        args_text, drop = args_text.split(" | drop ", 1)
    args = shlex.split(args_text)
    r = pamc(args)
    lines = (r.stdout + r.stderr).rstrip("\n").split("\n")
    if drop:
        lines = [line for line in lines if not re.search(drop, line)]
    return "```\n$ pamc " + args_text + "\n" + "\n".join(lines) + "\n```"


def inline(m):
    args_text, fmt = m.group(1).rsplit(" : ", 1)
    return format(value(shlex.split(args_text)), fmt.strip())


def render():
    with open(TEMPLATE) as f:
        template = f.read()
    out = []
    for line in template.split("\n"):
        if line.startswith("@@ pamc "):
            out.append(code_block(line[len("@@ pamc "):]))
        elif line.startswith("@@ py "):
            name = line[len("@@ py "):].strip()
            if name not in SECTIONS:
                raise Failure(f"docs/samples.md.in: unknown section '{name}'")
            out.append(SECTIONS[name]())
        else:
            out.append(re.sub(r"\{\{eval (.*?)\}\}", inline, line))
    return "\n".join(out)


def main():
    global PAMC
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pamc", default=os.path.join(ROOT, "build", "pamc"))
    ap.add_argument("--check", action="store_true", help="fail if docs/samples.md is not what this writes")
    args = ap.parse_args()
    PAMC = os.path.abspath(args.pamc)
    try:
        text = render()
        if args.check:
            with open(PAGE) as f:
                old = f.read()
            if doc_compare.differences(old, text):
                fd, path = tempfile.mkstemp(prefix="samples_", suffix=".md")
                with os.fdopen(fd, "w") as f:
                    f.write(text)
                diff = "\n".join(doc_compare.differences(old, text))
                raise Failure(f"docs/samples.md differs from the samples' output (new page: {path}); "
                              f"run scripts/gen_samples_doc.py:\n{diff[:3000]}")
            # the heat map's command must still draw (the image itself is not compared)
            with tempfile.TemporaryDirectory() as tmp:
                pamc(shlex.split(HEATMAP_ARGS) + [os.path.join(tmp, "heat.png")])
            print("docs/samples.md matches the samples' output")
        else:
            with open(PAGE, "w") as f:
                f.write(text)
            pamc(shlex.split(HEATMAP_ARGS) + [HEATMAP])
            print(f"wrote docs/samples.md and {HEATMAP}")
    except Failure as e:
        print(f"gen_samples_doc: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
