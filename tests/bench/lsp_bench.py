#!/usr/bin/env python3
"""`pamc lsp` latency as an editor sees it. Not part of CTest.

  python3 tests/bench/lsp_bench.py --pamc build/pamc [--models samples/*.pam]

For every model (default: every sample and corpus model), one server session:
  open    didOpen to the answer of a hover sent at once (the analysis: parse, check,
          simplify, values at the defaults; the hover waits for it),
  hover   then a hover on every declared name of the file, one at a time (answered from
          the finished analysis),
  change  didChange (a comment added) to the next hover's answer, with --debounce 0.
Prints the median and the worst of each, and the model of the worst.
"""
import argparse, glob, os, statistics, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "lsp"))
from lsp_client import Client, initialize, uri  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("--models", nargs="*")
    a = ap.parse_args()
    models = a.models or sorted({os.path.realpath(f) for p in ["samples/*.pam", "samples/*/*.pam"]
                                 for f in glob.glob(os.path.join(ROOT, p))})
    c = Client([os.path.abspath(a.pamc), "lsp", "--debounce", "0", "--time-budget", "60000"])
    initialize(c, ROOT)
    opens, hovers, changes = [], [], []
    for m in models:
        u, text = uri(m), open(m).read()
        t0 = time.perf_counter()
        c.notify("textDocument/didOpen", {"textDocument": {"uri": u, "languageId": "pamela", "version": 1, "text": text}})
        syms = c.request("textDocument/documentSymbol", {"textDocument": {"uri": u}})["result"]
        first = syms[-1]["selectionRange"]["start"] if syms else {"line": 0, "character": 0}
        c.request("textDocument/hover", {"textDocument": {"uri": u}, "position": first}, timeout=120)
        opens.append((time.perf_counter() - t0, m))
        for s in syms:
            t0 = time.perf_counter()
            r = c.request("textDocument/hover", {"textDocument": {"uri": u}, "position": s["selectionRange"]["start"]})
            hovers.append((time.perf_counter() - t0, m))
            assert r.get("result"), (m, s["name"], r)
        t0 = time.perf_counter()
        c.notify("textDocument/didChange", {"textDocument": {"uri": u, "version": 2},
                                            "contentChanges": [{"text": text + "\n% edited\n"}]})
        c.request("textDocument/hover", {"textDocument": {"uri": u}, "position": first}, timeout=120)
        changes.append((time.perf_counter() - t0, m))
        c.notify("textDocument/didClose", {"textDocument": {"uri": u}})
    c.close()
    print(f"{len(models)} models, {len(hovers)} hovers")
    for what, xs in [("open -> first hover (analysis)", opens), ("hover (analysed)", hovers),
                     ("change -> next hover (re-analysis)", changes)]:
        worst = max(xs)
        print(f"{what:36s} median {statistics.median(x for x, _ in xs) * 1000:8.2f} ms   "
              f"worst {worst[0] * 1000:8.2f} ms ({os.path.relpath(worst[1], ROOT)})")


if __name__ == "__main__":
    main()
