"""Hostile inputs of issue 20: each must work as numpy.vectorize does or be refused by a
located `VectorizeError` / a clear error, never an internal error, a hang or a silent change.

- lambdas on continuation lines and in containers (the source line alone does not parse);
- a 1,000-term expression (recursion deeper than Python's default limit);
- `np.matrix` arguments (numpy.vectorize hands out numbers and returns matrices);
- ``VECTORIZE_NUM_THREADS`` that is not a positive int (checked on the first call);
- ``-w`` as root on another user's file keeps its owner, group and mode.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from differential import assert_values_equal

from vectorize import VectorizeError, VectorizeFallbackWarning, vectorize, vmap

ROOT = pathlib.Path(__file__).parent.parent
FILES = pathlib.Path(__file__).parent / "hostile_files"


def _load(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lambdas = _load(FILES / "continuation_lambdas.py", "hostile_continuation_lambdas")
X = np.linspace(-2.0, 3.0, 11)


# ----------------------------------------------------------------------------------- lambdas
@pytest.mark.parametrize("func", [
    lambdas.square, lambdas.table["b"], lambdas.pair[0], lambdas.pair[1], lambdas.scales[0],
    lambdas.scales[1], lambdas.uses_them, *lambdas.make_offsets()],
    ids=["continuation", "in_a_dict", "tuple_first", "tuple_second", "list_first",
         "list_second", "calling_them", "comprehension_0", "comprehension_1",
         "comprehension_2"])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_lambdas_wherever_their_line_starts(func, n):
    x = X[:n]
    want = np.vectorize(func, otypes=[float])(x)
    assert_values_equal(vectorize(func, fallback="error")(x), want)
    if n:
        assert_values_equal(vmap(func, fallback="error")(x), want)


def test_a_lambda_refused_is_located_on_its_own_line(tmp_path):
    path = tmp_path / "located_lambda.py"
    path.write_text(textwrap.dedent("""\
        import numpy as np
        fs = {"a": 1,
              "b":
                  lambda v: v + np.append(v, 1)[0]}
        """))
    module = _load(path, "hostile_located_lambda")
    with pytest.raises(VectorizeError) as info:
        vectorize(module.fs["b"], fallback="error")(X)
    assert f"{path}:4:" in str(info.value)
    assert "np.append" in str(info.value)


# ------------------------------------------------------------------------ deep expressions
def _sum_of_terms(tmp_path, count: int, marked: bool = False) -> pathlib.Path:
    terms = " + ".join(f"{k}.0 * x" for k in range(count))
    path = tmp_path / f"terms_{count}.py"
    path.write_text("import numpy as np\nfrom vectorize import vectorize\n\n\n"
                    + ("@vectorize\n" if marked else "")
                    + f"def f(x):\n    return {terms}\n\n\nprint(f(np.arange(3.0)))\n")
    return path


def test_a_thousand_term_expression(tmp_path):
    module = _load(_sum_of_terms(tmp_path, 1000), "hostile_thousand_terms")
    limit = sys.getrecursionlimit()
    vf = vectorize(module.f, fallback="error")      # (one wrapper: one transform of the sum)
    for n in (0, 1, 5):
        x = X[:n]
        assert_values_equal(vf(x), np.vectorize(module.f, otypes=[float])(x))
    assert sys.getrecursionlimit() == limit      # put back after the transform


def test_a_deep_expression_through_the_cli(tmp_path):
    path = _sum_of_terms(tmp_path, 400, marked=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "vectorize", "-w", "-q", str(path)],
                         capture_output=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr.decode()
    assert "vectorize" not in path.read_text()
    out = subprocess.run([sys.executable, str(path)], capture_output=True, env=env,
                         timeout=300, check=True).stdout.decode()
    assert out.split() == ["[", "0.", "79800.", "159600.]"]


# ----------------------------------------------------------------------------------- matrix
def product_plus_one(a, b):
    return a * b + 1.0


def two_results(a, b):
    return a * b, a - b


A = np.matrix([[1.0, 2.0], [3.0, 4.0]])
B = np.matrix([[5.0, -6.0], [7.0, 0.5]])


@pytest.mark.parametrize("args", [(A, B), (A, 2.0), (2.0, A), (A, np.ones(2)),
                                  (np.arange(2.0), B)], ids=str)
def test_matrix_arguments_are_numbers_per_example(args):
    want = np.vectorize(product_plus_one)(*args)
    got = vectorize(product_plus_one, fallback="error")(*args)
    assert type(got) is type(want) is np.matrix
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_matrix_tuple_outputs_and_too_many_dimensions():
    want = np.vectorize(two_results)(A, B)
    got = vectorize(two_results, fallback="error")(A, B)
    for g, w in zip(got, want):
        assert type(g) is type(w) is np.matrix
        np.testing.assert_array_equal(g, w)
    with pytest.raises(ValueError):
        np.vectorize(product_plus_one)(A, np.ones((3, 1, 1)))
    with pytest.raises(ValueError):
        vectorize(product_plus_one, fallback="error")(A, np.ones((3, 1, 1)))


def times_corner_of_square(x, m):
    return x * (m * m)[0, 0]       # a matrix product where m is an np.matrix


def test_a_matrix_the_function_sees_whole_runs_numpys_loop():
    x = np.arange(3.0)
    with pytest.raises(VectorizeError, match="matrix"):
        vectorize(times_corner_of_square, excluded={1}, fallback="error")(x, A)
    with pytest.warns(VectorizeFallbackWarning, match="matrix"):
        got = vectorize(times_corner_of_square, excluded={1})(x, A)
    want = np.vectorize(times_corner_of_square, excluded={1})(x, A)
    np.testing.assert_array_equal(want, [0.0, 7.0, 14.0])
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------------------------- VECTORIZE_NUM_THREADS
def plus_one(x):
    return x + 1.0


@pytest.mark.parametrize("value", ["abc", "0", "-3", "1.5"])
def test_a_bad_thread_count_fails_on_the_first_call(monkeypatch, value):
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", value)
    with pytest.raises(ValueError, match="VECTORIZE_NUM_THREADS must be a positive int"):
        vectorize(plus_one, fallback="error")(np.arange(3.0))      # a small batch
    with pytest.raises(ValueError, match="VECTORIZE_NUM_THREADS"):
        vmap(plus_one, fallback="error")(np.arange(3.0))


@pytest.mark.parametrize("value", ["1", "3", ""])
def test_good_thread_counts(monkeypatch, value):
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", value)
    x = np.linspace(0, 1, 100_000)
    assert_values_equal(vectorize(plus_one, fallback="error")(x), x + 1.0)


# ------------------------------------------------------------------------- -w keeps owners
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root")
def test_write_as_root_keeps_another_users_owner_group_and_mode(tmp_path):
    path = tmp_path / "theirs.py"
    path.write_text("import numpy as np\nfrom vectorize import vectorize\n\n\n@vectorize\n"
                    "def f(x):\n    return x + 1.0\n")
    os.chown(path, 4321, 4322)
    path.chmod(0o640)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "vectorize", "-w", "-q", str(path)],
                         capture_output=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr.decode()
    st = path.stat()
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (4321, 4322, 0o640)
    assert "@vectorize" not in path.read_text()


def test_write_refuses_where_the_owner_cannot_be_kept(tmp_path, monkeypatch):
    """A user who may write another user's file (through its group) but not give the
    replacement to that user: nothing is written, the error says why."""
    import io

    from vectorize import cli
    path = tmp_path / "shared.py"
    text = "from vectorize import vectorize\n\n\n@vectorize\ndef f(x):\n    return x + 1.0\n"
    path.write_text(text)
    real_fstat = os.fstat

    def other_owner(fd):
        st = real_fstat(fd)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid + 1,
                               st.st_gid, st.st_size, st.st_atime, st.st_mtime, st.st_ctime))

    def refuse(fd, uid, gid):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "fstat", other_owner)
    monkeypatch.setattr(os, "fchown", refuse)
    err = io.StringIO()
    assert cli.main(["-w", str(path)], out=io.StringIO(), err=err) == 2
    assert "cannot write the file" in err.getvalue() and "owner" in err.getvalue()
    assert path.read_text() == text
    assert [p.name for p in tmp_path.iterdir()] == ["shared.py"]
