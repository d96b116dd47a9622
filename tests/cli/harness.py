"""What the command-line test scripts share: running pamc, recording checks, writing
model files. Not a test itself (CTest runs tests/*/run_*.py)."""
import os, subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MRM = os.path.join(ROOT, "samples", "mrm.pam")
PAMC = "build/pamc"  # set by each script from --pamc
failures = []
count = 0


def pamc(*args, stdin=None, timeout=120):
    p = subprocess.run([PAMC, *args], capture_output=True, text=True, timeout=timeout, input=stdin)
    return p.returncode, p.stdout, p.stderr


def check(name, ok, detail=""):
    global count
    count += 1
    if not ok:
        failures.append(name)
        print(f"FAIL {name}: {detail}")


def write(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def summary(what):
    """Prints the tally; the script's exit status."""
    print(f"{count - len(failures)} of {count} {what} passed")
    return 1 if failures else 0
