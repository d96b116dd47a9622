#!/usr/bin/env python3
"""Runs `pamc check` on every tests/errors/fail_*.pam and on generated hostile inputs.

Each fail_*.pam starts with one or more lines `% expect: [FILE:]LINE:COL Kind`; FILE
defaults to the test file itself. For each, pamc must exit 1 (not crash, not hang: 10 s)
and print `FILE:LINE:COL: error: ... [Kind]` followed by the source line and a caret line.
inc_*.pam are helpers imported by the tests, not tests. The hostile inputs (binary
garbage, bad UTF-8, a 1 MB line, 20,000 nested brackets, huge literals) are generated into
a temporary folder rather than committed.

Usage (from the repo root, as CTest runs it): python3 tests/errors/run_errors.py --pamc build/pamc
"""
import argparse, os, random, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EXPECT = re.compile(r"^%\s*expect:\s*(?:(\S+?):)?(\d+):(\d+)\s+(\w+)\s*$")
# `% command: compile` runs that subcommand instead of `check` (for errors found only once
# equations are substituted, such as ResourceConflict).
COMMAND = re.compile(r"^%\s*command:\s*(\w+)\s*$")
TIMEOUT = 30  # generous: CI machines are loaded; a hang still fails
# scripts/sanitize.sh scales it: under ASan the 20-million-node expansion takes ~30x longer.
TIMEOUT *= float(os.environ.get("PAMC_TIMEOUT_SCALE", "1"))


def run(pamc, path, command="check"):
    try:
        p = subprocess.run([pamc, command, path], capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None, "", "timeout"
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def check_case(pamc, path, expects, source_lines=None, command="check"):
    """expects: list of (file or None, line, col or None, kind). Returns a failure text or None."""
    rc, out, err = run(pamc, path, command)
    if rc is None:
        return "timed out after %d s" % TIMEOUT
    if rc < 0:
        return "killed by signal %d\n%s" % (-rc, err[-2000:])
    if not expects:
        return None if rc == 0 else "expected success, got exit %d\n%s" % (rc, err[-2000:])
    if rc != 1:
        return "expected exit 1, got %d\n%s" % (rc, err[-2000:])
    lines = err.splitlines()
    for (fname, line, col, kind) in expects:
        fname = fname or os.path.basename(path)
        pat = re.compile(r"^(.*[/\\])?%s:%d:%s: error: .* \[%s\]$" % (
            re.escape(fname), line, str(col) if col is not None else r"\d+", kind))
        hit = [i for i, l in enumerate(lines) if pat.match(l)]
        if not hit:
            return "missing %s:%d:%s [%s] in:\n%s" % (fname, line, col, kind, err[-3000:])
        i = hit[0]
        if i + 2 >= len(lines) or not lines[i + 1].startswith("  ") or not re.match(r"^\s*\^$", lines[i + 2]):
            return "no source line and caret after:\n%s" % "\n".join(lines[i:i + 3])
        if source_lines is not None and fname == os.path.basename(path) and col is not None:
            want = source_lines[line - 1] if line - 1 < len(source_lines) else ""
            shown = lines[i + 1][2:]
            want = "".join(c if 0x20 <= ord(c) < 0x7f else "?" * len(c.encode("utf-8")) for c in want.replace("\t", " "))
            if len(want) <= 100 and shown != want:
                return "source line shown as %r, want %r" % (shown, want)
            if len(want) <= 100 and lines[i + 2].index("^") - 2 != col - 1:
                return "caret at column %d, want %d" % (lines[i + 2].index("^") - 1, col)
    return None


def hostile_cases(tmp):
    """Yields (name, bytes, expects); expects [] means the model is valid."""
    rnd = random.Random(2024)
    yield "garbage.pam", bytes(rnd.randrange(256) for _ in range(4096)), [(None, None, None, "InvalidEncoding")]
    yield "bad_utf8.pam", b"% caf\xe9\nnumeric a = 1\n", [(None, 1, 6, "InvalidEncoding")]
    yield "overlong_utf8.pam", b"numeric a = 1 % \xc0\xaf\n", [(None, 1, 17, "InvalidEncoding")]
    yield "nul.pam", b"numeric a = 1\x00\n", [(None, 1, 14, "InvalidEncoding")]
    yield "ascii_garbage.pam", bytes(rnd.choice(b"abc(){}[];|,=+-*/^0123456789 \n%\"") for _ in range(200000)), \
        [(None, None, None, "SyntaxError")]
    # A 1 MB line of valid declarations, with one undefined name at its end.
    decls = "".join("numeric a%d = %d " % (i, i) for i in range(60000))
    text = decls + "process main = delay(zz)"
    yield "long_line.pam", text.encode(), [(None, 1, len(decls) + len("process main = delay(") + 1, "UndefinedName")]
    # A chain of `-` is nesting ((1 - 1) - 1 ...); one of `+` is flat (tests/cli/run_chains.py).
    yield "long_difference.pam", ("numeric x = " + " - ".join(["1"] * 300000)).encode(), [(None, 1, None, "NestingTooDeep")]
    for name, opener, closer, prefix, inner in [
            ("braces", "{", "}", "process main = ", "delay(1)"),
            ("parens", "(", ")", "numeric x = ", "1"),
            ("brackets", "[", "]", "numeric x = ", "1"),
            ("calls", "sqrt(", ")", "numeric x = ", "1")]:
        n = 20000
        text = prefix + opener * n + inner + closer * n
        col = len(prefix) + len(opener) * 1000 + len(opener)  # the 1001st opener's bracket
        yield "deep_%s.pam" % name, text.encode(), [(None, 1, col, "NestingTooDeep")]
    yield "deep_unbalanced.pam", ("process main = " + "{" * 20000).encode(), [(None, 1, 15 + 1001, "NestingTooDeep")]
    yield "deep_neg.pam", ("numeric x = " + "- " * 20000 + "1").encode(), [(None, 1, None, "NestingTooDeep")]
    yield "deep_not.pam", ("numeric x = " + "not " * 20000 + "1").encode(), [(None, 1, None, "NestingTooDeep")]
    yield "deep_if.pam", ("process main = " + "if (1) " * 20000 + "delay(1)").encode(), [(None, 1, None, "NestingTooDeep")]
    yield "deep_seq.pam", ("process main = " + "seq (i = 1, 2) " * 20000 + "delay(1)").encode(), \
        [(None, 1, None, "NestingTooDeep")]
    yield "deep_pow.pam", ("numeric x = " + "2 ^ " * 20000 + "1").encode(), [(None, 1, None, "NestingTooDeep")]
    yield "huge_exponent.pam", b"numeric x = 1e99999999999999999999999999\n", [(None, 1, 13, "NumberTooLarge")]
    yield "huge_negative_exponent.pam", b"numeric x = 2.5E-10001\n", [(None, 1, 13, "NumberTooLarge")]
    yield "huge_mantissa.pam", ("numeric x = " + "9" * 20000).encode(), [(None, 1, 13, "NumberTooLarge")]
    # Definitions that double at each level: refused at the outermost call, not built (compile).
    yield "doubling_defs.pam", ("numeric f0(x) = x + 1\n" + "".join(
        "numeric f%d(x) = f%d(f%d(x))\n" % (k, k - 1, k - 1) for k in range(1, 40)) + "numeric v = f39(1)\n").encode(), \
        [(None, 41, 13, "ModelTooLarge")]
    # Valid models: must pass.
    chain = "process c0 = delay(1)\n" + "".join("process c%d = c%d ; delay(1)\n" % (k, k - 1) for k in range(1, 20000))
    yield "ok_chain_20000.pam", (chain + "process main = c19999\n").encode(), []
    yield "ok_par_doubling.pam", ("process c0 = delay(1)\n" + "".join(
        "process c%d = c%d || c%d\n" % (k, k - 1, k - 1) for k in range(1, 40)) + "process main = c39\n").encode(), []
    yield "ok_empty.pam", b"", []
    yield "ok_comment_only.pam", b"% nothing here\n", []
    yield "ok_400_digits.pam", ("numeric x = " + "7" * 400 + ".5e-3\nprocess main = delay(x)\n").encode(), []
    yield "ok_exponent_limit.pam", b"numeric x = 1e10000 + 1e-10000\nprocess main = delay(x)\n", []
    yield "ok_nesting_999.pam", ("numeric x = " + "(" * 999 + "1" + ")" * 999 + "\n").encode(), []
    yield "ok_utf8_comment.pam", "% café ✓ 𝄞\nnumeric x = 1 % naïve\n".encode(), []
    yield "ok_crlf.pam", b"numeric x = 1\r\nprocess main = delay(x)\r\n", []
    yield "ok_bom.pam", b"\xef\xbb\xbfnumeric x = 1\n", []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", default="build/pamc")
    ap.add_argument("-v", action="store_true", help="print each case")
    args = ap.parse_args()
    if not os.access(args.pamc, os.X_OK):
        print("no pamc at %s: build first" % args.pamc)
        return 2
    failures, count = [], 0
    for name in sorted(os.listdir(HERE)):
        if not (name.startswith("fail_") and name.endswith(".pam")):
            continue
        path = os.path.join(HERE, name)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        expects = []
        command = "check"
        for l in lines:
            m = EXPECT.match(l)
            c = COMMAND.match(l)
            if c:
                command = c.group(1)
                continue
            if not m:
                break
            expects.append((m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)))
        count += 1
        if not expects:
            failures.append((name, "no '% expect: LINE:COL Kind' line at the top"))
            continue
        why = check_case(args.pamc, path, expects, lines, command)
        if why:
            failures.append((name, why))
        elif args.v:
            print("ok   " + name)
    with tempfile.TemporaryDirectory() as tmp:
        for name, data, expects in hostile_cases(tmp):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            count += 1
            expects = [(f, l, c, k) for (f, l, c, k) in expects]
            why = check_hostile(args.pamc, path, expects)
            if why:
                failures.append(("generated " + name, why))
            elif args.v:
                print("ok   generated " + name)
    for name, why in failures:
        print("FAIL %s: %s" % (name, why))
    print("%d of %d error cases passed" % (count - len(failures), count))
    return 1 if failures else 0


# Generated cases that need the later stages (normalize, lower): run with `compile`.
COMPILE = {"doubling_defs.pam", "ok_chain_20000.pam", "ok_par_doubling.pam"}


def check_hostile(pamc, path, expects):
    if os.path.basename(path) in COMPILE:
        return check_case(pamc, path, [(None, l, c, k) for (_, l, c, k) in expects], None, "compile")
    # A line or column of None matches any; the source line is not compared (binary input).
    if expects and expects[0][1] is None:
        rc, out, err = run(pamc, path)
        if rc is None:
            return "timed out after %d s" % TIMEOUT
        if rc < 0:
            return "killed by signal %d" % -rc
        if rc != 1:
            return "expected exit 1, got %d" % rc
        kind = expects[0][3]
        if not re.search(r"^.*:\d+:\d+: error: .* \[%s\]$" % kind, err, re.M):
            return "no [%s] error in:\n%s" % (kind, err[-2000:])
        return None
    exp = [(None, l, c, k) for (_, l, c, k) in expects]
    return check_case(pamc, path, exp, None)


if __name__ == "__main__":
    sys.exit(main())
