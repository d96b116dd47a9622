#!/usr/bin/env python3
"""Installs the build (cmake --install) into a temporary prefix, builds tests/consumer/
against it with find_package(pamela), and runs it on the MRM (expects T_main = 1e+08) and
on a broken model (expects the diagnostics, exit 1).

Usage: python3 tests/consumer/run_consumer.py --pamc build/pamc   (from the repo root;
the build folder is the pamc binary's folder)."""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pamc", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()
    build = os.path.dirname(os.path.abspath(args.pamc))
    tmp = tempfile.mkdtemp(prefix="pamela-consumer-")
    try:
        prefix = os.path.join(tmp, "prefix")
        steps = [
            ["cmake", "--install", build, "--prefix", prefix],
            ["cmake", "-S", HERE, "-B", os.path.join(tmp, "build"), "-DCMAKE_PREFIX_PATH=" + prefix,
             "-DCMAKE_BUILD_TYPE=Release"],
            ["cmake", "--build", os.path.join(tmp, "build")],
        ]
        for cmd in steps:
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                print("FAIL: " + " ".join(cmd) + "\n" + p.stdout + p.stderr)
                return 1
        for needed in ["include/pamela/pamela.h", "lib/cmake/pamela/pamelaConfig.cmake"]:
            if not os.path.exists(os.path.join(prefix, needed)) and not os.path.exists(
                    os.path.join(prefix, needed.replace("lib/", "lib64/"))):
                print("FAIL: the install has no " + needed)
                return 1
        exe = os.path.join(tmp, "build", "consumer")
        failures = 0
        p = subprocess.run([exe, os.path.join(ROOT, "samples", "mrm.pam"), "P=1000", "N=1e6"],
                           capture_output=True, text=True)
        if p.returncode != 0 or p.stdout.strip() != "T_main = 1e+08":
            print("FAIL: consumer on the MRM gave exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
            failures += 1
        else:
            print("ok: consumer MRM: " + p.stdout.strip() + "; " + p.stderr.strip())
        broken = os.path.join(tmp, "broken.pam")
        with open(broken, "w") as f:
            f.write("numeric parameter N\nnumeric x = N +\n")
        p = subprocess.run([exe, broken, "N=1"], capture_output=True, text=True)
        if p.returncode != 1 or "broken.pam:" not in p.stderr or "[SyntaxError]" not in p.stderr:
            print("FAIL: consumer on a broken model: exit %d\n%s" % (p.returncode, p.stderr))
            failures += 1
        else:
            print("ok: consumer reports diagnostics: " + p.stderr.splitlines()[0])
        # The installed pamc finds stdlib/ and machines/ relative to itself (share/pamc), so
        # the prefix can move: install, move, then run from / with --machine and an import.
        moved = os.path.join(tmp, "moved")
        p = subprocess.run(["cmake", "--install", build, "--prefix", os.path.join(tmp, "relocate")],
                           capture_output=True, text=True)
        os.rename(os.path.join(tmp, "relocate"), moved)
        imp = os.path.join(tmp, "imports.pam")
        with open(imp, "w") as f:
            f.write('import "comm.pam"\nnumeric parameter P\nprocess main = delay(P)\n')
        pamc = os.path.join(moved, "bin", "pamc")
        a = subprocess.run([pamc, "compile", "--machine", "x1e", os.path.join(ROOT, "samples", "sp_tzetar.pam")],
                           capture_output=True, text=True, cwd="/")
        b = subprocess.run([pamc, "eval", imp, "-D", "P=3"], capture_output=True, text=True, cwd="/")
        if p.returncode != 0 or a.returncode != 0 or b.returncode != 0 or b.stdout.strip() != "numeric T_main = 3" or \
                not os.path.exists(os.path.join(moved, "share", "pamc", "machines", "x1e.pam")) or \
                not os.path.exists(os.path.join(moved, "share", "man", "man1", "pamc.1")) or \
                not os.path.exists(os.path.join(moved, "share", "bash-completion", "completions", "pamc")):
            print("FAIL: a moved install: --machine x1e exit %d, import comm exit %d\n%s%s%s" %
                  (a.returncode, b.returncode, p.stderr, a.stderr, b.stdout + b.stderr))
            failures += 1
        else:
            print("ok: a moved install finds --machine x1e and import \"comm.pam\" from /")
        # As a user runs it: the prefix's bin on PATH, the command typed as `pamc`, from a
        # folder of their own (the program is then named "pamc", no folder: it must find
        # itself through /proc/self/exe, not through the name it was started by).
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        with open(os.path.join(work, "m.pam"), "w") as f:  # x1e's clock: 1.13 GHz
            f.write("numeric parameter N\nprocess main = delay(N / vector_unit_clock)\n")
        shutil.copy(imp, os.path.join(work, "imports.pam"))
        env = dict(os.environ, PATH=os.path.join(moved, "bin") + os.pathsep + os.environ.get("PATH", ""))
        env.pop("PAMC_PATH", None)
        runs = [(["pamc", "eval", "m.pam", "--machine", "x1e", "-D", "N=2.26e9"], "numeric T_main = 2"),
                (["pamc", "eval", "imports.pam", "-D", "P=3"], "numeric T_main = 3")]
        for cmd, want in runs:
            p = subprocess.run(cmd, capture_output=True, text=True, cwd=work, env=env)
            if p.returncode != 0 or p.stdout.strip() != want:
                print("FAIL: through PATH from %s: %s: exit %d, want %r\n%s%s" %
                      (work, " ".join(cmd), p.returncode, want, p.stdout, p.stderr))
                failures += 1
            else:
                print("ok: through PATH from another folder: " + " ".join(cmd) + " -> " + want)
        # The Python module (when built) from the moved prefix: it finds libpamela through
        # its relative run path, and the library finds machines/ and stdlib/ beside itself.
        pydir = os.path.join(build, "python")
        if os.path.isdir(pydir) and any(n.startswith("pamela.") for n in os.listdir(pydir)):
            site = os.path.join(moved, "lib", "python3", "dist-packages")
            code = ("import pamela, numpy\n"
                    "m = pamela.Model.from_text('import \"comm.pam\"\\nnumeric t = vector_unit_clock', 'py', machines=['x1e'])\n"
                    "print(pamela.__file__)\n"
                    "print(m.evaluate()['t'], pamela.Model(%r)(P=numpy.array([99, 200]), N=10).round(9).tolist())\n"
                    % os.path.join(ROOT, "samples", "mrm.pam"))
            env = dict(os.environ, PYTHONPATH=site)
            env.pop("PAMC_PATH", None)
            p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=work, env=env)
            lines = p.stdout.splitlines()
            if p.returncode != 0 or len(lines) != 2 or not lines[0].startswith(site) or \
                    lines[1] != "1130000000.0 [101.0, 200.0]":
                print("FAIL: the moved install's Python module: exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
                failures += 1
            else:
                print("ok: the moved install's Python module imports from " + site + " and finds --machine x1e")
        return 1 if failures else 0
    finally:
        if args.keep:
            print("kept " + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
