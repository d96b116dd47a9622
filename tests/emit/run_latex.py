#!/usr/bin/env python3
"""`pamc compile --emit latex` of every sample and corpus model (top-level equations and
--all) parses in KaTeX, the renderer notebooks and web pages use: KaTeX 0.16.22 from the
npm registry, installed with `npm ci` from tests/emit/package-lock.json into
BUILD/latex-npm (BUILD: the folder of the pamc under test). Also checks what the text
must say: the MRM's equation with \\max, fractions, floor and ceil brackets and \\bmod
where the model has them. Exit 77 (skipped) without node and npm."""
import argparse, glob, json, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def models():
    pats = ["samples/*.pam", "samples/*/*.pam", "tests/emit/models/*.pam"]
    return sorted({os.path.realpath(f) for p in pats for f in glob.glob(os.path.join(ROOT, p))})


def install_katex(build):
    npm, node = shutil.which("npm"), shutil.which("node")
    if not npm or not node:
        print("SKIPPED: node/npm not found (apt-get install npm): KaTeX comes from the npm registry")
        sys.exit(77)
    prefix = os.path.join(build, "latex-npm")
    os.makedirs(prefix, exist_ok=True)
    for f in ["package.json", "package-lock.json"]:
        shutil.copy(os.path.join(HERE, f), prefix)
    if not os.path.isdir(os.path.join(prefix, "node_modules", "katex")):
        p = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=prefix,
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            print("FAIL: npm ci in " + prefix + "\n" + p.stdout + p.stderr)
            sys.exit(1)
    return node, os.path.join(prefix, "node_modules", "katex")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    pamc = os.path.abspath(ap.parse_args().pamc)
    node, katex = install_katex(os.path.dirname(pamc))
    texts, failures = [], []
    for m in models():
        for extra in ([], ["--all"]):
            p = subprocess.run([pamc, "compile", "--emit", "latex", *extra, m], capture_output=True, text=True, timeout=300)
            name = os.path.relpath(m, ROOT) + (" --all" if extra else "")
            if p.returncode != 0:
                failures.append(f"{name}: pamc exited {p.returncode}: {p.stderr[:300]}")
                continue
            texts.append({"name": name, "latex": p.stdout})
    assert len(texts) >= 2 * 60, len(texts)
    by_name = {t["name"]: t["latex"] for t in texts}
    must = {
        "samples/mrm.pam": [r"T_{\mathrm{main}} &= N \cdot \max\left(0.1 \cdot P, 10.1\right)", "% assumes P >= 1"],
        "samples/matmul.pam": [r"\frac{", r"\left\lceil \log_{2}\left(P\right) \right\rceil", "t_{\\mathrm{byte}}"],
    }
    joined = "\n".join(by_name.values())
    for name, parts in must.items():
        for part in parts:
            if part not in by_name.get(name, ""):
                failures.append(f"{name}: expected {part!r} in\n{by_name.get(name)}")
    for construct in [r"\bmod", r"\left\lfloor", r"\sum_{", r"\min\left("]:
        if construct not in joined:
            failures.append(f"no model's LaTeX has {construct}")
    p = subprocess.run([node, os.path.join(HERE, "katex_parse.js"), katex], input=json.dumps(texts),
                       capture_output=True, text=True, timeout=600)
    print(p.stdout, end="")
    if p.returncode != 0:
        failures.append("KaTeX: " + p.stderr[-2000:])
    for f in failures:
        print("FAIL " + f)
    print(f"{len(texts)} LaTeX texts from {len(models())} models; {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
