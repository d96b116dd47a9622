"""The Python module pamela (runtime/python, docs/python.md), run by pytest from CTest
("python: pytest") with the build tree's module on PYTHONPATH and PAMC naming the pamc the
values are checked against. Run by hand from the source tree:

  PYTHONPATH=build/python PAMC=build/pamc python3 -m pytest -q tests/python
"""
import glob
import json
import os
import pathlib
import subprocess
import time

import numpy as np
import pytest

import pamela

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLES = sorted(glob.glob(str(ROOT / "samples" / "*.pam")))
PAMC = os.environ.get("PAMC", str(ROOT / "build" / "pamc"))
MRM = ROOT / "samples" / "mrm.pam"
TZETAR = ROOT / "samples" / "sp_tzetar.pam"


def pamc_eval(path, **params):
    """pamc eval --json at one point: every top-level equation."""
    defines = [a for k, v in params.items() for a in ("-D", f"{k}={v!r}")]
    out = subprocess.run([PAMC, "eval", "--json", str(path), *defines],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_mrm_closed_form_and_value():
    m = pamela.Model(MRM)
    assert m.name == "mrm"
    assert m.parameters == ["P", "N"]
    t = m.function("main")
    assert t.name == "T_main"
    assert t.formula == "N * max(0.1 * P, 10.1)"
    # seed 002's machine repair model: 1000 clients, 10^6 iterations
    assert m(P=1000, N=1e6) == pytest.approx(1e8, rel=1e-15)
    assert t(1000, 1e6) == pytest.approx(1e8, rel=1e-15)
    assert isinstance(m(P=1000, N=1e6), float)


def test_a_point_whose_fallback_loops_would_run_for_hours_is_refused():
    # log2(P) is assumed an integer; at P = 3 the unsimplified model answers, and at
    # L = 10000 its loops would run 2 ^ 10000 steps: pamela.WorkLimit, a RuntimeError, at once.
    m = pamela.Model(str(ROOT / "samples" / "corpus" / "tree_cyclic_levels.pam"))
    t = m.function("main")
    assert t(5, 8) == 9 and t(5, 12) == 8
    with pytest.raises(pamela.WorkLimit, match="more than the limit of 1e9"):
        t(10000, 3)
    assert issubclass(pamela.WorkLimit, RuntimeError)


def test_vectorized_mrm_matches_the_formula():
    m = pamela.Model(str(MRM))
    P = np.arange(1, 1025)
    got = m(P=P, N=1e6)
    assert isinstance(got, np.ndarray) and got.shape == (1024,) and got.dtype == np.float64
    np.testing.assert_allclose(got, np.maximum(0.1 * P, 10.1) * 1e6, rtol=1e-15)
    # the saturation point of the seed: the server is the bottleneck from P = 101 on
    assert got[99] == pytest.approx(10.1e6) and got[101] == pytest.approx(10.2e6)


def test_broadcasting_follows_numpy():
    m = pamela.Model(MRM)
    P = np.arange(1, 5).reshape(4, 1)
    N = np.array([1.0, 10.0, 100.0])
    got = m(P=P, N=N)
    assert got.shape == (4, 3)
    np.testing.assert_allclose(got, np.maximum(0.1 * P, 10.1) * N)
    assert m(P=[[200]], N=2).shape == (1, 1)
    with pytest.raises(ValueError):
        m(P=np.arange(3), N=np.arange(4))  # shapes that do not broadcast


def test_strided_and_integer_inputs():
    m = pamela.Model(MRM)
    P = np.arange(1, 4000, dtype=np.int32)[::7]  # not float64, not contiguous
    np.testing.assert_allclose(m(P, 3), np.maximum(0.1 * P, 10.1) * 3)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: pathlib.Path(p).stem)
def test_every_sample_agrees_with_pamc_eval(path):
    m = pamela.Model(path)
    point = {p.name: 8 for p in m.parameter_info if p.default is None}
    want = pamc_eval(path, **point)
    got = m.evaluate(**point)
    assert set(got) == set(want)
    for name, value in want.items():
        assert got[name] == pytest.approx(value, rel=1e-12), name


def test_defaults_may_depend_on_earlier_parameters():
    m = pamela.Model(TZETAR)
    assert [p.name for p in m.parameter_info] == ["problem_size", "nprocs", "size", "bandwidth"]
    assert m.parameter_info[2].default == "ceil(problem_size / sqrt(nprocs))"
    assert m.parameter_info[2].bounds == [">= 2"]
    # size left to its default (ceil(64 / 2) = 32) while bandwidth, after it, is given:
    # the by-name path, vectorized
    sizes = np.array([12, 36, 64, 102, 162])
    got = m(problem_size=sizes, nprocs=4, bandwidth=8.5e9)
    for s, g in zip(sizes, got):
        assert g == pytest.approx(pamc_eval(TZETAR, problem_size=int(s), nprocs=4, bandwidth=8.5e9)["T_main"],
                                  rel=1e-12)
    # trailing defaults left out: the fast path
    np.testing.assert_allclose(m(sizes, 4), [m(problem_size=int(s), nprocs=4) for s in sizes], rtol=1e-15)
    counters = m.evaluate(problem_size=64, nprocs=4)
    assert counters["tzetar.vector_flops"] == 32**2 * 31 * 16


def test_machines_option_imports_a_machine_file():
    m = pamela.Model.from_text("numeric t = vector_unit_clock", "uses_x1e", machines=["x1e"])
    assert m.evaluate() == {"t": pytest.approx(1.13e9)}


def test_bad_arguments():
    m = pamela.Model(MRM)
    with pytest.raises(TypeError, match="no parameter 'Q'"):
        m(P=1, Q=2)
    with pytest.raises(TypeError, match="two values"):
        m(1, P=2)
    with pytest.raises(TypeError, match="at most 2"):
        m(1, 2, 3)
    with pytest.raises(ValueError, match="takes 2 arguments"):
        m(P=3)  # N has no default
    with pytest.raises(ValueError):
        m(P="many", N=1)
    with pytest.raises(pamela.Error) as e:
        m.function("nothing")
    assert e.value.diagnostics[0].kind == "UnknownTarget"


def test_a_model_that_does_not_compile_raises_with_diagnostics():
    with pytest.raises(pamela.Error) as e:
        pamela.Model.from_text("numeric parameter P\nprocess main = delay(P +)\n", "broken")
    assert isinstance(e.value, Exception)
    d = e.value.diagnostics[0]
    assert (d.file, d.line, d.kind) == ("broken.pam", 2, "SyntaxError")
    assert "broken.pam:2:" in str(e.value) and "^" in d.rendered
    with pytest.raises(pamela.Error) as e:
        pamela.Model(ROOT / "samples" / "no_such_model.pam")
    assert e.value.diagnostics[0].kind == "IOError"


def test_assumptions_and_where_they_fail():
    m = pamela.Model(MRM)
    assert "P >= 1" in m.assumptions
    assert m.violated_assumptions(P=10, N=5) == []
    assert m.violated_assumptions(P=0.5, N=5) != []
    # where "P >= 1" fails the library falls back to the unsimplified model: no clients,
    # no time (the closed form alone would say 10.1 * N)
    assert m.violated_assumptions(P=0, N=5) == ["P - 1 >= 0"]
    assert m(P=0, N=5) == 0.0


def test_unsimplified_model_gives_the_same_values():
    closed, reference = pamela.Model(MRM), pamela.Model(MRM, simplify=False)
    P = np.arange(1, 300)
    np.testing.assert_allclose(closed(P=P, N=20), reference(P=P, N=20), rtol=1e-12)


def test_a_million_points_run_at_the_library_speed():
    # docs/benchmarks.md: ~0.02-0.05 s on a loaded 2-core machine; a Python-level loop
    # over the points takes seconds. CPU time of the best of three, with slack for CI.
    m = pamela.Model(MRM)
    P = np.arange(1, 10**6 + 1)
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        m(P=P, N=1e6)
        best = min(best, time.process_time() - start)
    assert best < 0.5


def test_the_session_in_docs_python_md_runs_as_written(monkeypatch):
    import doctest
    monkeypatch.chdir(ROOT)  # its paths are relative to the source tree
    result = doctest.testfile(str(ROOT / "docs" / "python.md"), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 15 and result.failed == 0


def test_latex_is_what_pamc_emits_and_a_notebook_shows_it():
    m = pamela.Model(MRM)
    emitted = subprocess.run([PAMC, "compile", "--emit", "latex", str(MRM)], capture_output=True, text=True, check=True)
    assert m.latex() == emitted.stdout
    assert r"T_{\mathrm{main}} &= N \cdot \max\left(0.1 \cdot P, 10.1\right)" in m.latex()
    shown = m._repr_latex_()
    assert shown.startswith(r"\begin{align*}") and shown.rstrip().endswith(r"\end{align*}") and "%" not in shown


def test_sympy_expressions_differentiate_and_evaluate_like_the_model():
    sp = pytest.importorskip("sympy")
    s = pamela.Model(MRM).sympy()
    assert s.T_main == s.N * sp.Max(s.P / 10, sp.Rational(101, 10))
    assert sp.diff(s.T_main, s.N) == sp.Max(s.P / 10, sp.Rational(101, 10))
    assert s.evaluate("T_main", P=1000, N=10**6) == 100000000
    t = pamela.Model(TZETAR)
    ts = t.sympy()
    point = dict(problem_size=64, nprocs=4)
    want = t.evaluate(**point)
    for name in t.top_level_equations:
        assert float(ts.evaluate(name, **point)) == pytest.approx(want[name], rel=1e-12)
