#!/usr/bin/env python3
"""`pamc lsp` as an editor meets it (docs/editors.md): a client speaking the Language Server
Protocol over the server's stdin and stdout. initialize; didOpen of a model with an error
and a warning, whose diagnostics must carry their kinds and places; hover on the MRM's
process (its closed form N * max(0.1 * P, 10.1)) and on an open loop (its reason);
definition into a machine file and a stdlib-style import; references; completion;
documentSymbol; inlay hints with values at the defaults; didChange and the new
diagnostics; a model that takes longer than the time budget answered with a message;
shutdown and exit."""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))  # harness, run_hostile
import harness  # noqa: E402
from harness import check  # noqa: E402
from lsp_client import Client, initialize, uri  # noqa: E402

WARNED = """numeric parameter N = 4
resource a = fcfs(0, 1)
resource b = fcfs(0, 1)
process main = seq (i = 1, N) { use(a, 1) ; use(b, sqrt(i)) }
process late = delay(1 - 2)
"""

# Requests whose answers are checked wait for the analysis however slow the build (a
# sanitizer build is ten times slower); the time budget has a test of its own.
PATIENT = {"timeBudgetMs": 60000}
DEBOUNCE_MS = 1000  # the edits below are 50 ms apart: far inside it, even on a loaded machine

X1E_USER = """import "x1e.pam"
numeric parameter n = 1000
numeric t = n / vector_unit_clock
"""


def pos(line, character):
    return {"line": line, "character": character}


def doc(u):
    return {"textDocument": {"uri": u}}


def open_doc(c, u, text, version=1):
    c.notify("textDocument/didOpen", {"textDocument": {"uri": u, "languageId": "pamela", "version": version, "text": text}})


def slow_model(count):
    """count processes that each take a noticeable time to simplify, none sharing work."""
    text = ("numeric parameter N\nnumeric parameter P\nnumeric parameter t = 3\n"
            "resource cpu(p) = fcfs(p, 1)\nresource link(p) = fcfs(P + p, 1)\n"
            "process send(p, n) = use(link(p), t + n)\n"
            "process bcast(p, n) = seq (r = 1, ceil(log2(P))) send(p, n)\n")
    for k in range(count):
        text += (f"process m{k} = " + "par (j = 0, N - 1) " * 16 + "{\n"
                 "  par (p = 0, P - 1) use(cpu(p), t * N / P) ;\n"
                 f"  seq (e = 0, N - 1) {{ seq (r = 1, ceil(log2(P))) use(cpu(e div (N / P) + {k}), t) ; "
                 f"bcast(e div (N / P), {k + 2}) }}\n}}\n")
    return text


def hover_text(answer):
    r = answer.get("result")
    return r["contents"]["value"] if r else ""


def harness_pamc(*args):
    harness.PAMC = PAMC
    return harness.pamc(*args)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    global PAMC
    pamc = PAMC = os.path.abspath(ap.parse_args().pamc)
    tmp = tempfile.mkdtemp(prefix="pamc-lsp-")
    warned = harness.write(tmp, "warned.pam", WARNED)
    x1e_user = harness.write(tmp, "uses_x1e.pam", X1E_USER)
    mrm = os.path.join(harness.ROOT, "samples", "mrm.pam")
    matmul = os.path.join(harness.ROOT, "samples", "matmul.pam")

    c = Client([pamc, "lsp"], cwd=tmp)
    init = initialize(c, tmp, PATIENT)
    caps = init["result"]["capabilities"]
    check("initialize: capabilities", all(caps.get(k) for k in
          ["hoverProvider", "definitionProvider", "referencesProvider", "documentSymbolProvider", "inlayHintProvider"])
          and "completionProvider" in caps, caps)
    c.notify("initialized", {})

    # --- diagnostics: a warning from the checker, then an error from lowering, with their
    # places and kinds ---
    u = uri(warned)
    open_doc(c, u, WARNED)
    diags = c.diagnostics(u, predicate=lambda ds: len(ds) >= 2)
    by_code = {d["code"]: d for d in diags}
    err, warn = by_code.get("NegativeTime"), by_code.get("AliasedResource")
    check("diagnostics: the error", err and err["severity"] == 1 and "a negative time in delay" in err["message"]
          and err["range"]["start"] == pos(4, 23), diags)
    check("diagnostics: the warning", warn and warn["severity"] == 2 and "one server under two names" in warn["message"]
          and warn["range"]["start"] == pos(2, 9) and warn["range"]["end"] == pos(2, 10), diags)
    check("diagnostics: source", all(d.get("source") == "pamc" for d in diags), diags)

    # a document opened through a symbolic link keeps its name in every diagnostic
    os.makedirs(os.path.join(tmp, "real"))
    os.symlink(os.path.join(tmp, "real"), os.path.join(tmp, "link"))
    linked = uri(harness.write(os.path.join(tmp, "link"), "linked.pam", WARNED))
    open_doc(c, linked, WARNED)
    diags = c.diagnostics(linked, predicate=lambda ds: len(ds) >= 2)
    check("diagnostics: under the document's own URI (a symbolic link in its path)",
          sorted(d["code"] for d in diags) == ["AliasedResource", "NegativeTime"], diags)

    # --- didChange: an undefined name; then fixed, the warning stays ---
    c.clear()
    broken = WARNED.replace("delay(1 - 2)", "delay(M)")
    c.notify("textDocument/didChange", {"textDocument": {"uri": u, "version": 2}, "contentChanges": [{"text": broken}]})
    diags = c.diagnostics(u)
    check("didChange: the new error", [(d["code"], d["range"]["start"]) for d in diags] == [("UndefinedName", pos(4, 21))], diags)
    c.clear()
    fixed = WARNED.replace("delay(1 - 2)", "delay(2)")
    c.notify("textDocument/didChange", {"textDocument": {"uri": u, "version": 3}, "contentChanges": [{"text": fixed}]})
    diags = c.diagnostics(u)
    check("didChange: error gone, warning kept", [d["code"] for d in diags] == ["AliasedResource"], diags)
    h = hover_text(c.request("textDocument/hover", {**doc(u), "position": pos(3, 10)}))
    check("hover: a process with an open loop gives the reason",
          "T_main = N + sum (i = 1, N) { sqrt(i) }" in h and "sqrt(i), which has no closed sum" in h, h)
    h = hover_text(c.request("textDocument/hover", {**doc(u), "position": pos(3, 16)}))
    check("hover: the loop keyword says why it stays open",
          h.startswith("This loop stays open") and "sqrt(i), which has no closed sum" in h, h)
    hints = c.request("textDocument/inlayHint", {**doc(u), "range": {"start": pos(0, 0), "end": pos(9, 0)}})["result"]
    fixed_path = harness.write(tmp, "fixed.pam", fixed)
    evaluated = {l.split(" = ")[0].split()[-1]: l.split(" = ")[1] for l in harness_pamc("eval", fixed_path)[1].splitlines()}
    labels = sorted(x["label"].strip() for x in hints)
    check("inlay hints: each top-level equation at the defaults, as pamc eval says",
          labels == sorted(f"{k} = {v}" for k, v in evaluated.items()) and len(labels) == 2, (labels, evaluated))

    # --- the MRM: hover, definition, references, completion, symbols ---
    m = uri(mrm)
    text = open(mrm).read()
    open_doc(c, m, text)
    lines = text.split("\n")
    main_line = next(k for k, l in enumerate(lines) if l.startswith("process main"))
    h = hover_text(c.request("textDocument/hover", {**doc(m), "position": pos(main_line, 9)}))
    check("hover: the MRM's closed form", "T_main = N * max(0.1 * P, 10.1)" in h, h)
    check("hover: facts and assumptions", "% from the model:" in h and "% assumes P >= 1" in h, h)
    use_line = next(k for k, l in enumerate(lines) if l.startswith("use(s"))
    d = c.request("textDocument/definition", {**doc(m), "position": pos(use_line, 4)})["result"]
    s_line = next(k for k, l in enumerate(lines) if l.startswith("resource s"))
    check("definition: a resource in the same file", d and d["uri"] == m and d["range"]["start"] == pos(s_line, 9), d)
    refs = c.request("textDocument/references", {**doc(m), "position": pos(s_line, 9), "context": {"includeDeclaration": True}})["result"]
    check("references: declaration and use", sorted(r["range"]["start"]["line"] for r in refs) == [s_line, use_line], refs)
    h = hover_text(c.request("textDocument/hover", {**doc(m), "position": pos(use_line, 7)}))
    check("hover: a numeric", "t_s = 0.1" in h, h)
    comp = c.request("textDocument/completion", {**doc(m), "position": pos(use_line, 0)})["result"]
    labels = {i["label"]: i for i in comp["items"]}
    check("completion: names, builtins, keywords, indices in scope",
          all(k in labels for k in ["P", "N", "t_l", "t_s", "s", "main", "sqrt", "seq", "delay", "i", "p"]), sorted(labels))
    comp = c.request("textDocument/completion", {**doc(m), "position": pos(1, 0)})["result"]
    check("completion: no loop index out of its scope", not any(i["label"] == "i" for i in comp["items"]),
          [i["label"] for i in comp["items"]])
    syms = c.request("textDocument/documentSymbol", doc(m))["result"]
    names = [x["name"] for x in syms]
    main_sym = next((x for x in syms if x["name"] == "main"), None)
    check("documentSymbol: the outline", names[:4] == ["P", "N", "t_l", "t_s"] and main_sym
          and main_sym["range"]["start"]["line"] == main_line and main_sym["range"]["end"]["line"] > use_line, syms)

    # --- definition into a machine file and an import from the samples' folder ---
    x = uri(x1e_user)
    open_doc(c, x, X1E_USER)
    d = c.request("textDocument/definition", {**doc(x), "position": pos(2, 18)})["result"]
    machine = os.path.realpath(os.path.join(harness.ROOT, "machines", "x1e.pam"))
    check("definition: into machines/x1e.pam", d and d["uri"] == uri(machine)
          and open(machine).read().split("\n")[d["range"]["start"]["line"]].startswith("numeric vector_unit_clock"), d)
    comm_user = harness.write(tmp, "uses_comm.pam", 'import "comm.pam"\nnumeric t = comm_p2p(1, 2, 3)\n')
    cu = uri(comm_user)
    open_doc(c, cu, open(comm_user).read())
    d = c.request("textDocument/definition", {**doc(cu), "position": pos(1, 14)})["result"]
    comm = os.path.realpath(os.path.join(harness.ROOT, "stdlib", "comm.pam"))
    check("definition: into stdlib/comm.pam", d and d["uri"] == uri(comm)
          and open(comm).read().split("\n")[d["range"]["start"]["line"]].startswith("numeric comm_p2p("), d)
    refs = c.request("textDocument/references", {**doc(cu), "position": pos(1, 14), "context": {"includeDeclaration": True}})["result"]
    check("references: across the import", {r["uri"] for r in refs} == {cu, uri(comm)}, refs)
    h = hover_text(c.request("textDocument/hover", {**doc(cu), "position": pos(1, 9)}))
    check("hover: a numeric through a stdlib function, closed", "t = 7" in h, h)
    mm = uri(matmul)
    mtext = open(matmul).read()
    open_doc(c, mm, mtext)
    syms = c.request("textDocument/documentSymbol", doc(mm))["result"]
    check("matmul: outline", len(syms) > 3, syms)
    das = os.path.join(harness.ROOT, "machines", "das.pam")
    k = next(k for k, l in enumerate(mtext.split("\n")) if l.strip().startswith("mult(owner"))
    d = c.request("textDocument/definition", {**doc(mm), "position": pos(k, mtext.split("\n")[k].index("mult") + 2)})["result"]
    refs_done = d is not None and d["uri"] == uri(os.path.realpath(das)) and \
        open(das).read().split("\n")[d["range"]["start"]["line"]].startswith("process mult(p)")
    check("definition: into the imported machines/das.pam", refs_done, d)

    # --- messages of the wrong shape are answered with errors; the server stays up ---
    c.proc.stdin.write(b"Content-Length: 9\r\n\r\n{not json")
    c.proc.stdin.flush()
    c.notify("textDocument/didOpen", {"textDocument": 7})
    r = c.request("textDocument/hover", {**doc(m), "position": "here"})
    check("hostile: a bad position is an error answer", r.get("error", {}).get("code") == -32602, r)
    r = c.request("textDocument/hover", {"textDocument": {"uri": "file:///nowhere.pam"}, "position": pos(0, 0)})
    check("hostile: a document never opened is an error answer", "error" in r, r)
    r = c.request("workspace/symbol", {"query": ""})
    check("hostile: an unknown method is MethodNotFound", r.get("error", {}).get("code") == -32601, r)
    bad = uri(harness.write(tmp, "nul.pam", "x"))
    open_doc(c, bad, "process main = delay(1)\u0000\n")
    diags = c.diagnostics(bad)
    check("hostile: a NUL byte is pamc's InvalidEncoding", [d["code"] for d in diags] == ["InvalidEncoding"], diags)
    h = hover_text(c.request("textDocument/hover", {**doc(m), "position": pos(main_line, 9)}))
    check("hostile: the server still answers", "N * max(0.1 * P, 10.1)" in h, h)

    # --- a model that takes longer than the budget: a message, not a hang ---
    c.close()
    # A small text that takes seconds to simplify: 40 processes, each a block-mapped loop
    # under 16 nested pars (about 0.15 s each).  The front end's part comes at once and the
    # model's seconds later, so the hover below surely falls between them.  (A large
    # generated model raced: its front part took as long to send as its model to simplify.)
    big = os.path.join(tmp, "slow.pam")
    with open(big, "w") as f:
        f.write(slow_model(40))
    c = Client([pamc, "lsp", "--limit", "600"], cwd=tmp)
    initialize(c, tmp, {"timeBudgetMs": 100})
    b = uri(big)
    open_doc(c, b, open(big).read())
    c.diagnostics(b, timeout=300)  # the front end's part: names are known, simplifying goes on
    t0 = time.time()
    h = c.request("textDocument/hover", {**doc(b), "position": pos(11, 8)}, timeout=20)  # on m1
    took = time.time() - t0
    check("time budget: a message instead of a hang", "pamc is still" in hover_text(h) and took < 5,
          (took, hover_text(h)))
    comp = c.request("textDocument/completion", {**doc(b), "position": pos(10, 0)}, timeout=20)["result"]
    check("time budget: completion meanwhile", any(i["label"] == "m39" for i in comp["items"]), len(comp["items"]))
    rc = c.close()
    check("shutdown and exit: status 0", rc == 0, rc)

    # --- edits 50 ms apart, within the debounce: analysed once, as the last left the text ---
    c = Client([pamc, "lsp", "--debounce", str(DEBOUNCE_MS)], cwd=tmp)
    initialize(c, tmp, PATIENT)
    open_doc(c, u, WARNED)
    c.diagnostics(u, predicate=lambda ds: len(ds) >= 2)
    c.clear()
    for k in range(1, 6):
        c.notify("textDocument/didChange", {"textDocument": {"uri": u, "version": 1 + k},
                                            "contentChanges": [{"text": WARNED.replace("delay(1 - 2)", f"delay(A{k})")}]})
        time.sleep(0.05)
    c.diagnostics(u)
    c.drain(0.5)  # anything published later
    published = [n["params"]["diagnostics"] for n in c.notifications
                 if n["method"] == "textDocument/publishDiagnostics" and n["params"]["uri"] == u]
    check("debounce: five edits 50 ms apart, diagnostics of the last only",
          published and all(len(p) == 1 and p[0]["message"] == "undefined name 'A5'" for p in published), published)
    c.close()

    # --- -I relative to the server's folder, for a document in another folder ---
    os.makedirs(os.path.join(tmp, "incs"))
    os.makedirs(os.path.join(tmp, "docs"))
    harness.write(os.path.join(tmp, "incs"), "extra.pam", "numeric extra_cost = 3\n")
    e = uri(harness.write(os.path.join(tmp, "docs"), "uses_extra.pam", 'import "extra.pam"\nnumeric t = 2 * extra_cost\n'))
    c = Client([pamc, "lsp", "-I", "incs"], cwd=tmp)
    initialize(c, tmp, PATIENT)
    open_doc(c, e, 'import "extra.pam"\nnumeric t = 2 * extra_cost\n')
    diags = c.diagnostics(e)
    h = hover_text(c.request("textDocument/hover", {**doc(e), "position": pos(1, 9)}))
    check("-I: a relative folder is the server's, wherever the document is", diags == [] and "t = 6" in h, (diags, h))
    c.close()

    # --- mutated models (run_hostile.py's mutator) as one document edited 40 times: every
    # text gets diagnostics from a finished analysis, none from one that died ---
    import random
    import run_hostile
    rng = random.Random(2026)
    texts = [run_hostile.mutate(rng, open(f).read()) for f in rng.sample(run_hostile.sources(), 40)]
    c = Client([pamc, "lsp", "--debounce", "0", "--limit", "20"], cwd=tmp)
    initialize(c, tmp, PATIENT)
    hu = uri(os.path.join(tmp, "mutant.pam"))
    died, unplaced = [], []
    for k, mutant in enumerate(texts):
        c.clear()
        if k == 0:
            open_doc(c, hu, mutant)
        else:
            c.notify("textDocument/didChange", {"textDocument": {"uri": hu, "version": k + 1}, "contentChanges": [{"text": mutant}]})
        r = c.request("textDocument/hover", {**doc(hu), "position": pos(0, 0)}, timeout=60)  # waits for the analysis
        c.drain(0.05)
        for n in c.notifications:
            for d in n["params"].get("diagnostics", []):
                if "could not analyse" in d["message"]:
                    died.append(mutant)
                if "range" not in d or ("code" not in d and "pamc stopped analysing" not in d["message"]):
                    unplaced.append(d)
        if "error" in r:
            died.append(r)
    check("hostile: 40 mutated models, no analysis dies", not died, died[:2])
    check("hostile: every diagnostic has a place and a kind", not unplaced, unplaced[:3])
    check("hostile: the server still answers after them", c.close() == 0)

    # --- an analysis that crashes (here: a SIGSEGV sent to it) is a diagnostic, and the
    # server goes on ---
    c = Client([pamc, "lsp"], cwd=tmp)
    initialize(c, tmp, PATIENT)
    open_doc(c, b, open(big).read())
    deadline, children = time.time() + 20, []
    while not children and time.time() < deadline:
        time.sleep(0.05)
        children = [int(d) for d in os.listdir("/proc") if d.isdigit() and os.path.exists(f"/proc/{d}/stat")
                    and open(f"/proc/{d}/stat").read().rsplit(")", 1)[-1].split()[1] == str(c.proc.pid)]
    for child in children:
        os.kill(child, signal.SIGSEGV)
    diags = c.diagnostics(b, timeout=30, predicate=lambda ds: any("could not analyse" in d["message"] for d in ds))
    check("crash: a dead analysis is a diagnostic", children and diags and diags[-1]["severity"] == 1, (children, diags))
    t0 = time.time()
    r = c.request("textDocument/hover", {**doc(b), "position": pos(10, 9)})
    check("crash: a request is answered at once, not after the budget", "result" in r and time.time() - t0 < 1.5, r)
    open_doc(c, m, text)
    h = hover_text(c.request("textDocument/hover", {**doc(m), "position": pos(main_line, 9)}))
    check("crash: the server still analyses", "N * max(0.1 * P, 10.1)" in h, h)
    check("crash: shutdown", c.close() == 0)

    # --- limit: an analysis that runs too long is stopped, with a diagnostic (the slow
    # model above: seconds of simplifying) ---
    huge = os.path.join(tmp, "huge.pam")
    with open(huge, "w") as f:
        f.write(slow_model(40))
    c = Client([pamc, "lsp", "--limit", "1"], cwd=tmp)
    initialize(c, tmp)
    b = uri(huge)
    open_doc(c, b, open(huge).read())
    diags = c.diagnostics(b, timeout=120, predicate=lambda ds: any("stopped" in d["message"] for d in ds))
    check("limit: stopped with a message", any("pamc stopped analysing this model after 1 s" in d["message"] for d in diags), diags)
    c.close()
    # exit without shutdown: status 1, as the protocol says
    c = Client([pamc, "lsp"], cwd=tmp)
    initialize(c, tmp)
    c.notify("exit", None)
    check("exit without shutdown: status 1", c.proc.wait(timeout=10) == 1)

    # --- the VS Code extension starts the server its settings name, and it answers ---
    node = shutil.which("node")
    if node:
        ext = os.path.join(harness.ROOT, "editors", "vscode", "extension.js")
        settings = {"pamela.server.path": pamc, "pamela.machines": ["x1e"], "pamela.timeBudgetMs": 500}
        p = subprocess.run([node, os.path.join(HERE, "vscode_extension.js"), ext, json.dumps(settings)],
                           capture_output=True, text=True, timeout=60)
        started = json.loads(p.stdout) if p.returncode == 0 else None
        check("vscode: the extension runs `pamc lsp` with its settings", started and started["command"] == pamc
              and started["args"][:3] == ["lsp", "--machine", "x1e"] and "500" in started["args"]
              and started["selector"] == [{"scheme": "file", "language": "pamela"}], (p.stdout, p.stderr))
        if started:
            c = Client([started["command"], *started["args"]], cwd=tmp)
            initialize(c, tmp, PATIENT)
            plain = harness.write(tmp, "plain.pam", "numeric t = 1 / vector_unit_clock\n")  # x1e comes from --machine
            open_doc(c, uri(plain), open(plain).read())
            d = c.request("textDocument/definition", {**doc(uri(plain)), "position": pos(0, 20)})["result"]
            check("vscode: the server it starts imports the machine from the settings",
                  d is not None and d["uri"].endswith("/machines/x1e.pam"), d)
            c.close()
    else:
        print("note: node not found; the VS Code extension was not checked")
    return harness.summary("lsp checks")


if __name__ == "__main__":
    sys.exit(main())
