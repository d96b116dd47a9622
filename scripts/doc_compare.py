"""Compares a generated page with the checked-in one, numbers within a tolerance.

A page made from pamc's output holds doubles whose last digits follow the order in which
the floating-point operations ran (sweep, fit), and that order may change with the build;
the page drifts when a word or a number changes by more than that. Numbers are compared
with a relative tolerance (and an absolute one for values that are rounding noise around
zero, such as a relative error of -1.9e-14 %); everything else must be the same text.
"""
import re

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def differences(old, new, rel=1e-9, abs_tol=1e-9):
    """The first few places where the pages differ beyond the tolerance ([] when none)."""
    out = []
    old_lines, new_lines = old.splitlines(), new.splitlines()
    if len(old_lines) != len(new_lines):
        return [f"{len(old_lines)} lines against {len(new_lines)}"]
    for k, (a, b) in enumerate(zip(old_lines, new_lines), 1):
        if a == b:
            continue
        if NUMBER.sub("#", a) != NUMBER.sub("#", b):
            out.append(f"line {k}: {a!r} against {b!r}")
        else:
            for x, y in zip(NUMBER.findall(a), NUMBER.findall(b)):
                fx, fy = float(x), float(y)
                if abs(fx - fy) > max(abs_tol, rel * max(abs(fx), abs(fy))):
                    out.append(f"line {k}: {x} against {y}")
                    break
        if len(out) >= 10:
            break
    return out
