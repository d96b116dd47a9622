#!/usr/bin/env python3
"""Checks the editor support in editors/ (docs/editors.md) on every Pamela file of the
project (samples, the corpus, stdlib, machines, golden models): a reference lexer that
follows grammar/Pamela.g4 (keywords read from it, builtin functions from
compiler/check/check.cpp) splits each file into comments, strings, numbers, keywords,
names and operators, and the highlighter must give each its scope:

  --part textmate  editors/vscode/syntaxes/pamela.tmLanguage.json through VS Code's engine
                   (vscode-textmate + vscode-oniguruma, installed with `npm ci` from
                   tests/editors/package-lock.json into BUILD/editors-npm);
  --part vim       editors/vim/{ftdetect,syntax}/pamela.vim through `vim -es`.

Exit 0 pass, 1 fail, 77 skipped (npm or vim absent; CTest shows the test as skipped).
Usage: python3 tests/editors/check_editors.py --part textmate|vim --build build"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SKIP = 77


def model_files():
    pats = ["samples/*.pam", "samples/corpus/*.pam", "stdlib/*.pam", "machines/*.pam", "tests/golden/**/*.pam"]
    files = sorted({f for p in pats for f in glob.glob(os.path.join(ROOT, p), recursive=True)})
    assert len(files) >= 50, files
    return files


def grammar_keywords():
    """KEYWORD : 'word' ; rules of the lexer in grammar/Pamela.g4."""
    text = open(os.path.join(ROOT, "grammar", "Pamela.g4")).read()
    words = re.findall(r"^[A-Z]+\s*:\s*'([a-z]+)'\s*;", text, re.M)
    assert "numeric" in words and "delay" in words, words
    return set(words)


def builtin_functions():
    text = open(os.path.join(ROOT, "compiler", "check", "check.cpp")).read()
    table = text[text.index("builtin_functions()"):]
    table = table[:table.index("};")]
    names = set(re.findall(r'\{"([a-z0-9_]+)",', table))
    assert "sqrt" in names and "log2" in names, names
    return names


KEYWORDS = grammar_keywords()
BUILTINS = builtin_functions()
NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
OPERATORS = ["||", "==", "!=", "<=", ">=", "<", ">", "=", "+", "-", "*", "/", "^", ";"]
REDUCTION_CONTEXT = re.compile(r"\s*\(\s*[A-Za-z_][A-Za-z_0-9]*\s*=(?!=)")


def lex(line):
    """(start, end, kind, text) of each lexeme, as ANTLR's lexer for Pamela.g4 splits the
    line (longest match; comments and strings end at the line's end)."""
    out, i = [], 0
    while i < len(line):
        ch = line[i]
        if ch in " \t\r\f":
            i += 1
        elif ch == "%":
            out.append((i, len(line), "comment", line[i:]))
            break
        elif ch == '"' and '"' in line[i + 1:]:
            j = line.index('"', i + 1) + 1
            out.append((i, j, "string", line[i:j]))
            i = j
        elif NUMBER.match(line, i):
            j = NUMBER.match(line, i).end()
            out.append((i, j, "number", line[i:j]))
            i = j
        elif NAME.match(line, i):
            j = NAME.match(line, i).end()
            word = line[i:j]
            kind = "keyword" if word in KEYWORDS else "builtin" if word in BUILTINS else "name"
            out.append((i, j, kind, word))
            i = j
        else:
            op = next((o for o in OPERATORS if line.startswith(o, i)), None)
            j = i + (len(op) if op else 1)
            out.append((i, j, "operator" if op else "punctuation", line[i:j]))
            i = j
    return out


# The expected highlighting of each kind of lexeme: (TextMate scope prefix, Vim item).
KEYWORD_SCOPES = {
    "import": ("keyword.control.import", "pamelaInclude"),
    "numeric": ("storage.type", "pamelaType"), "process": ("storage.type", "pamelaType"),
    "resource": ("storage.type", "pamelaType"),
    "parameter": ("storage.modifier", "pamelaModifier"),
    "region": ("keyword.other.region", "pamelaRegion"),
    "seq": ("keyword.control.loop", "pamelaRepeat"), "par": ("keyword.control.loop", "pamelaRepeat"),
    "if": ("keyword.control.conditional", "pamelaConditional"),
    "else": ("keyword.control.conditional", "pamelaConditional"),
    "sum": ("keyword.control.reduction", "pamelaReduction"),
    "delay": ("keyword.other.primitive", "pamelaPrimitive"), "use": ("keyword.other.primitive", "pamelaPrimitive"),
    "mod": ("keyword.operator.word", "pamelaWordOp"), "div": ("keyword.operator.word", "pamelaWordOp"),
    "and": ("keyword.operator.word", "pamelaWordOp"), "or": ("keyword.operator.word", "pamelaWordOp"),
    "not": ("keyword.operator.word", "pamelaWordOp"),
}
FOR_KIND = {
    "comment": ("comment.line.percentage", "pamelaComment"),
    "string": ("string.quoted.double", "pamelaString"),
    "number": ("constant.numeric", "pamelaNumber"),
    "builtin": ("support.function.builtin", "pamelaBuiltin"),
    "operator": ("keyword.operator", "pamelaOperator"),
}
# A plain name must not look like any of those.
NOT_A_NAME = ("keyword.", "storage.", "constant.", "comment.", "string.", "support.function")


def expected(line, lexeme):
    """(kind for messages, TextMate scope prefix, Vim item) the lexeme must have, or None."""
    start, end, kind, text = lexeme
    if kind == "keyword":
        if text in ("max", "min"):
            if REDUCTION_CONTEXT.match(line, end):
                return "reduction " + text, "keyword.control.reduction", "pamelaReduction"
            return "function " + text, "support.function.builtin", "pamelaBuiltin"
        if text not in KEYWORD_SCOPES:
            raise SystemExit("FAIL: grammar/Pamela.g4 has a keyword the check does not know: " + text)
        return ("keyword " + text,) + KEYWORD_SCOPES[text]
    if kind in FOR_KIND:
        return (kind,) + FOR_KIND[kind]
    return None


def check_textmate(files, build):
    npm, node = shutil.which("npm"), shutil.which("node")
    if not npm or not node:
        print("SKIPPED: npm/node not found; the TextMate grammar needs npm to install vscode-textmate "
              "(apt-get install npm)")
        return SKIP
    prefix = os.path.join(os.path.abspath(build), "editors-npm")
    os.makedirs(prefix, exist_ok=True)
    for f in ("package.json", "package-lock.json"):
        shutil.copy(os.path.join(HERE, f), prefix)
    p = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=prefix,
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print("FAIL: npm ci in " + prefix + "\n" + p.stdout + p.stderr)
        return 1
    grammar = os.path.join(ROOT, "editors", "vscode", "syntaxes", "pamela.tmLanguage.json")
    p = subprocess.run([node, os.path.join(HERE, "tokenize.js"), grammar, *files], capture_output=True, text=True,
                       env=dict(os.environ, NODE_PATH=os.path.join(prefix, "node_modules")), timeout=120)
    if p.returncode != 0:
        print("FAIL: tokenize.js\n" + p.stderr)
        return 1
    tokens = json.loads(p.stdout)

    def scopes_at(file):
        """Per line, per character: the scopes (innermost last)."""
        rows = []
        for line_tokens in tokens[file]:
            row = {}
            for start, end, scopes in line_tokens:
                for c in range(start, end):
                    row[c] = scopes
            rows.append(row)
        return rows

    return compare(files, scopes_at, lambda scopes, want: any(s.startswith(want) for s in scopes),
                   lambda scopes: any(s.startswith(NOT_A_NAME) for s in scopes), 1, "TextMate")


def check_vim(files, build):
    vim = shutil.which("vim")
    if not vim:
        print("SKIPPED: vim not found (apt-get install vim)")
        return SKIP
    dump = tempfile.NamedTemporaryFile(prefix="pamc-vim-", suffix=".txt", delete=False).name
    os.unlink(dump)
    try:
        p = subprocess.run([vim, "-es", "-N", "-u", "NONE", "-i", "NONE", "--cmd",
                            "set rtp^=" + os.path.join(ROOT, "editors", "vim"), "-c", "filetype on", "-c", "syntax on",
                            "-S", os.path.join(HERE, "vim_dump.vim"), *files],
                           capture_output=True, text=True, timeout=300, env=dict(os.environ, VDUMP=dump), stdin=subprocess.DEVNULL)
        if not os.path.exists(dump):
            print("FAIL: vim -es wrote nothing (exit %d)\n%s%s" % (p.returncode, p.stdout, p.stderr))
            return 1
        lines = open(dump).read().split("\n")
    finally:
        if os.path.exists(dump):
            os.unlink(dump)
    items, current = {}, None
    for line in lines:
        if line.startswith("FILE "):
            filetype, name = line[5:].split(" ", 1)
            if filetype != "pamela":
                print("FAIL: ftdetect: vim gives %s the filetype '%s'" % (name, filetype))
                return 1
            current = items.setdefault(name, [])
        elif current is not None:
            current.append(line)

    def items_at(file):
        rows = []
        for runs in items[file]:
            row, marks = {}, [r.split(":", 1) for r in runs.split()]
            # runs "COL:NAME" (1-based); a run lasts to the next one
            for k, (col, name) in enumerate(marks):
                end = int(marks[k + 1][0]) if k + 1 < len(marks) else 10**6
                for c in range(int(col) - 1, min(end - 1, int(col) - 1 + 10**4)):
                    row[c] = [name] if name else []
            rows.append(row)
        return rows

    special = {v for _, v in FOR_KIND.values()} | {v for _, v in KEYWORD_SCOPES.values()}
    return compare(files, items_at, lambda names, want: want in names,
                   lambda names: any(n in special for n in names), 2, "Vim")


def compare(files, highlight_of, has, looks_special, which, engine):
    failures, counts = [], {}
    for file in files:
        rel = os.path.relpath(file, ROOT)
        rows = highlight_of(file)
        source = open(file).read().split("\n")
        for n, line in enumerate(source):
            row = rows[n] if n < len(rows) else {}
            for lexeme in lex(line):
                start, end, kind, text = lexeme
                want = expected(line, lexeme)
                if want is None:
                    if kind == "name":
                        bad = [c for c in range(start, end) if looks_special(row.get(c, []))]
                        if bad:
                            failures.append("%s:%d:%d: the name '%s' is highlighted as %s" %
                                            (rel, n + 1, start + 1, text, row.get(bad[0])))
                    continue
                label, target = want[0], want[which]
                counts[label.split(" ")[0]] = counts.get(label.split(" ")[0], 0) + 1
                for c in range(start, end):
                    if not has(row.get(c, []), target):
                        failures.append("%s:%d:%d: %s '%s' should be %s, column %d is %s" %
                                        (rel, n + 1, start + 1, label, text, target, c + 1, row.get(c, [])))
                        break
    summary = ", ".join("%d %ss" % (v, k) for k, v in sorted(counts.items()))
    if failures:
        print("FAIL: %s: %d lexemes highlighted wrongly, e.g.\n  %s" % (engine, len(failures), "\n  ".join(failures[:20])))
        return 1
    print("ok: %s highlights every lexeme of %d files as Pamela.g4 lexes it: %s" % (engine, len(files), summary))
    for kind in ("comment", "string", "number", "keyword", "reduction", "function", "operator"):
        if not counts.get(kind):
            print("FAIL: no %s was checked: the files lack one, so the check proves nothing for it" % kind)
            return 1
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=["textmate", "vim"], required=True)
    ap.add_argument("--build", default="build")
    ap.add_argument("--pamc", help="ignored (the suites' common option)")
    a = ap.parse_args()
    files = model_files()
    return (check_textmate if a.part == "textmate" else check_vim)(files, a.build)


if __name__ == "__main__":
    sys.exit(main())
