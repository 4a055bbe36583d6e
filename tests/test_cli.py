"""The file rewriter as a user runs it: ``python -m vectorize`` in a subprocess.

The examples (and ``tests/cli_files/loops.py``) are rewritten, then the original and the
rewritten modules are both run and their results compared: the rewritten module must compute
what the original computed, without importing vectorize. Each mode, exit status, stdin,
directories, idempotence, files left untouched on errors, and a corpus of bad inputs (each a
located diagnostic, exit 2, never a traceback).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import itertools
import os
import pathlib
import shutil
import stat
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).parent.parent
EXAMPLES = ROOT / "examples"
FILES = pathlib.Path(__file__).parent / "cli_files"
REWRITTEN = ["seed_func", "newton", "collatz", "tax", "models", "signatures"]
_names = itertools.count()


def cli(*args, stdin: bytes | None = None, cwd=None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    result = subprocess.run([sys.executable, "-m", "vectorize", *map(str, args)], input=stdin,
                            capture_output=True, cwd=cwd, env=env, timeout=300)
    assert b"Traceback" not in result.stderr, result.stderr.decode()
    return result


def load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(f"cli_module_{next(_names)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def assert_same(original, rewritten, where="result"):
    """The rewritten module's results are the original's: the same keys, lengths, shapes and
    values (a list of 0-d arrays and a list of NumPy scalars hold the same numbers)."""
    if isinstance(original, dict):
        assert original.keys() == rewritten.keys(), where
        for key in original:
            assert_same(original[key], rewritten[key], f"{where}[{key!r}]")
    elif isinstance(original, (list, tuple)):
        assert isinstance(rewritten, type(original)), where
        assert len(original) == len(rewritten), where
        for i, (a, b) in enumerate(zip(original, rewritten)):
            assert_same(a, b, f"{where}[{i}]")
    else:
        a, b = np.asarray(original), np.asarray(rewritten)
        assert a.shape == b.shape, f"{where}: shape {a.shape} != {b.shape}"
        assert a.dtype.kind in "biuf" and b.dtype.kind in "biuf", where
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12, equal_nan=True,
                                   err_msg=where)


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory):
    """The examples and the loop file, rewritten in place by one ``-w`` run over their
    directory."""
    directory = tmp_path_factory.mktemp("rewritten")
    for name in REWRITTEN + ["quickstart"]:
        shutil.copy(EXAMPLES / f"{name}.py", directory)
    shutil.copy(FILES / "loops.py", directory)
    result = cli("-w", directory)
    assert result.returncode == 0, result.stderr.decode()
    return directory, result


@pytest.mark.parametrize("name", REWRITTEN)
def test_rewritten_example_computes_what_the_original_does(rewritten, name):
    directory, _ = rewritten
    text = (directory / f"{name}.py").read_text()
    assert not [line for line in text.splitlines()     # it no longer needs the package
                if line.startswith(("from vectorize", "import vectorize", "@"))]
    assert_same(load(EXAMPLES / f"{name}.py").main(), load(directory / f"{name}.py").main())


def test_seed_program_becomes_numpy_and_its_loops_one_call(rewritten):
    text = (rewritten[0] / "seed_func.py").read_text()
    assert "    root = np.where(tmp > 5, tmp, -t)\n" in text
    assert "root_ls = list(func(inputs, b))" in text
    assert "roots = func_2(inputs, b)" in text


def test_helpers_get_batched_versions_and_the_originals_stay(rewritten):
    text = (rewritten[0] / "newton.py").read_text()
    assert "def newton_step(x, a):" in text          # still used by main()
    assert "def newton_step_batched(x, a):" in text
    assert "x_if = newton_step_batched(x_lanes, a_lanes)" in text


def test_loops_over_examples(rewritten):
    directory, _ = rewritten
    text = (directory / "loops.py").read_text()
    for line in ['r["comprehension"] = list(clip(values))',
                 'r["array"] = clip(values, -1.0)',
                 'r["tuple"] = list(clip(np.asarray((1.0, -1.0, 3.0))))',
                 "appended.extend(clip(values, 0.5))"]:
        assert line in text
    for kept in ["busy.append(clip(x))", "[clip(x * 2) for x in values]",
                 "[clip(x, offset) for x in values]", "[split(x) for x in values]",
                 "[shifted(row, 1.0) for row in ROWS]", "for x in (v for v in values)",
                 "        last.append(clip(x))",
                 # ints for a float64 `x`: the decorator gave int results where `clip`
                 # returns `x` (tests/test_cli_call_sites_more.py)
                 'r["range"] = [clip(i, 2.0) for i in range(6)]']:
        assert kept in text
    assert_same(load(FILES / "loops.py").main(), load(directory / "loops.py").main())


def test_a_function_whose_decorator_object_is_used_is_left_with_a_warning(rewritten):
    directory, result = rewritten
    assert (directory / "quickstart.py").read_bytes() == (EXAMPLES / "quickstart.py").read_bytes()
    assert b"quickstart.py:27:11: warning: `func.source` uses the object" in result.stderr


def test_rewriting_twice_changes_nothing(rewritten):
    directory, _ = rewritten
    result = cli("--check", directory)
    assert result.returncode == 0, result.stdout + result.stderr
    assert b"would rewrite" not in result.stdout


def test_rewritten_files_pass_ruff(rewritten):
    directory, _ = rewritten
    ruff = shutil.which("ruff")
    cmd = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    result = subprocess.run([*cmd, "check", "--isolated", "--output-format", "concise",
                             str(directory)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


SEED = (EXAMPLES / "seed_func.py").read_bytes()


def test_modes_print_diff_and_stdin(rewritten, tmp_path):
    path = tmp_path / "seed.py"
    path.write_bytes(SEED)
    expected = (rewritten[0] / "seed_func.py").read_bytes()
    printed = cli(path)
    assert (printed.returncode, printed.stdout) == (0, expected)
    diff = cli("--diff", path)
    assert diff.returncode == 0
    assert diff.stdout.startswith(f"--- {path}\n+++ {path}\n".encode())
    assert b"\n-@vectorize\n" in diff.stdout
    assert b"\n+    root = np.where(tmp > 5, tmp, -t)\n" in diff.stdout
    assert path.read_bytes() == SEED        # neither writes
    stdin = cli("-", stdin=SEED)
    assert (stdin.returncode, stdin.stdout) == (0, expected)
    bad = cli("--check", "-", "--stdin-filename", "seed.py", stdin=SEED + b"def f(:\n")
    assert bad.returncode == 2
    assert bad.stderr.startswith(b"seed.py:43:7: error: syntax error")


def test_write_replaces_atomically_and_keeps_encoding_newlines_and_mode(tmp_path):
    text = ("# -*- coding: latin-1 -*-\n\"\"\"Caf\xe9.\"\"\"\nimport numpy as np\n\n"
            "from vectorize import vectorize\n\n\n@vectorize\ndef f(x):\n"
            "    if x > 0:  # positive: caf\xe9\n        return x\n    return -x\n\n\n"
            "def main():\n    return f(np.linspace(-1.0, 1.0, 5))\n")
    path = tmp_path / "latin.py"
    path.write_bytes(text.replace("\n", "\r\n").encode("latin-1"))
    path.chmod(0o640)
    result = cli("-w", path)
    assert result.returncode == 0, result.stderr
    assert result.stderr.endswith(b"1 file rewritten.\n")
    data = path.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n")        # every line ends with CRLF
    new = data.decode("latin-1")
    assert '"""Caf\xe9."""' in new and "np.where(x > 0, x, -x)" in new
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latin.py"]   # no temporary left
    original = tmp_path / "original.py"
    original.write_bytes(text.encode("latin-1"))
    assert_same(load(original).main(), load(path).main())


def test_directories_recursively_only_python_files_skipping_hidden(tmp_path):
    for relative in ["a.py", "sub/b.py", "sub/deeper/c.py", ".hidden/d.py", "notes.txt",
                     "__pycache__/e.py"]:
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(SEED)
    result = cli("--check", tmp_path)
    assert result.returncode == 1
    assert result.stdout.decode().splitlines() == [
        f"would rewrite {tmp_path / name}" for name in ["a.py", "sub/b.py", "sub/deeper/c.py"]]


def test_function_option_rewrites_only_that_function(tmp_path):
    path = tmp_path / "two.py"
    path.write_bytes(SEED)
    result = cli("--function", "func_2", path)
    assert result.returncode == 0
    text = result.stdout.decode()
    assert "@vectorize\ndef func(t, b):" in text and "from vectorize import vectorize" in text
    assert ("def func_2(t, b):\n    t, b = np.asarray(t), np.asarray(b)\n"
            "    return np.where(t > 5.0, t * b, -t)") in text
    assert "[func(x, b) for x in inputs]" in text and "roots = func_2(inputs, b)" in text


def test_what_runs_of_a_file_imports_defs_and_constants_only(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "effects.py"
    path.write_text(f"import numpy as np\nfrom vectorize import vectorize\n\n"
                    f"open({str(marker)!r}, 'w').close()\nprint('module code ran')\n"
                    f"SCALE = np.float64(2.0) * 3\n\n\n@vectorize\ndef f(x):\n"
                    f"    return x * SCALE\n\n\nif __name__ == '__main__':\n    print(f(1.0))\n")
    result = cli(path)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    assert b"\nmodule code ran\n" not in b"\n" + result.stdout + result.stderr
    assert b"    return x * SCALE\n" in result.stdout


# a bad input, the diagnostic's first line (after the path), and the line the caret is under
BAD = {
    "syntax.py": (b"def f(x):\n    return x +\n", "2:15: error: syntax error",
                  "    return x +"),
    "latin.py": (b"from vectorize import vectorize\n\n\n@vectorize\ndef f(x):\n"
                 b"    return x  # caf\xe9\n", "6:20: error: cannot decode the file as utf-8",
                 "    return x  # caf\ufffd"),
    "yield_fn.py": (b"from vectorize import vectorize\n\n\n@vectorize\ndef gen(x):\n"
                    b"    yield x * 2\n", "6:5: error: `yield` expressions are not supported",
                    "    yield x * 2"),
    "global_fn.py": (b"from vectorize import vectorize\n\nCOUNT = 0\n\n\n@vectorize\n"
                     b"def counted(x):\n    global COUNT\n    COUNT += 1\n    return x + COUNT\n",
                     "8:5: error: `global` statements are not supported", "    global COUNT"),
    "no_rank.py": (b"from vectorize import vmap\n\n\n@vmap\ndef f(x, w):\n    return x * w\n",
                   "5:7: error: the file rewriter cannot tell what one example of `x` is",
                   "def f(x, w):"),
    "unknown_global.py": (b"import numpy as np\nfrom vectorize import vectorize\n\n"
                          b"W = np.random.default_rng(0).normal(size=3)\n\n\n@vectorize\n"
                          b"def f(x):\n    return x * W[0]\n",
                          "9:16: error: the file rewriter does not know the value of `W`",
                          "    return x * W[0]"),
    "np_taken.py": (b"from vectorize import vectorize\n\nnp = None\n\n\n@vectorize\n"
                    b"def f(x):\n    if x > 0:\n        return x\n    return -x\n",
                    "7:1: error: the rewritten code calls numpy `np`", "def f(x):"),
    "bad_option.py": (b"from vectorize import vectorize\n\nNAMES = []\nNAMES.append('b')\n\n\n"
                      b"@vectorize(excluded=NAMES)\ndef f(x, b):\n    return x\n",
                      "7:21: error: the file rewriter reads `excluded=` of `@vectorize` only "
                      "when it is written as a constant", "@vectorize(excluded=NAMES)"),
    "bad_annotation.py": (b"import numpy as np\nfrom vectorize import vmap\n\n\n@vmap\n"
                          b"def f(x: np.ndarray):\n    return x\n",
                          "6:10: error: the file rewriter does not understand the annotation",
                          "def f(x: np.ndarray):"),
    "star_args.py": (b"from vectorize import vectorize\n\n\n@vectorize\ndef f(*xs):\n"
                     b"    return xs[0]\n", "5:8: error: `f` takes *args or **kwargs",
                     "def f(*xs):"),
    "same_for_all.py": (b"from vectorize import vectorize\n\n\n@vectorize(excluded={'n'})\n"
                        b"def f(x, n: int):\n    if n > 3:\n        return 0.0\n    return x\n",
                        "5:1: error: `f` returns, on some path, a value that is the same",
                        "def f(x, n: int):"),
    "foreign.py": (b"from foreign_lib import h\nfrom vectorize import vectorize\n\n\n"
                   b"@vectorize\ndef f(x):\n    return h(x) + 1\n",
                   "6:1: error: `f` calls a function of another module that reads `LIMIT`",
                   "def f(x):"),
}


def test_bad_inputs_give_located_diagnostics_and_exit_2_while_good_files_are_rewritten(
        tmp_path):
    (tmp_path / "good.py").write_bytes(SEED)
    for name, (data, _, _) in BAD.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "foreign_lib.py").write_bytes(b"LIMIT = 2.0\n\n\ndef h(x):\n"
                                              b"    return x * LIMIT if x > 0 else -x\n")
    (tmp_path / "empty.py").write_bytes(b"")      # valid Python with nothing to do
    result = cli("-w", tmp_path)
    assert result.returncode == 2
    err = result.stderr.decode()
    blocks = {block.split(":", 1)[0].rsplit(os.sep, 1)[-1]: block
              for block in ("\n" + err).split(f"\n{tmp_path}{os.sep}")[1:]
              if not block.startswith("good.py")}
    assert blocks.keys() == BAD.keys(), err
    for name, (data, first, shown) in BAD.items():
        lines = blocks[name].splitlines()
        assert lines[0].startswith(f"{name}:{first}"), lines[0]
        col = int(first.split(":")[1])
        assert lines[1] == "    " + shown
        assert lines[2] == "    " + " " * (len(shown[:col - 1].expandtabs(8))) + "^", name
        assert (tmp_path / name).read_bytes() == data
    assert (tmp_path / "empty.py").read_bytes() == b""
    assert b"np.where" in (tmp_path / "good.py").read_bytes()
    assert err.endswith(f"1 file rewritten, 2 files left unchanged, {len(BAD)} errors.\n")


def test_explain_shows_rules_results_and_loops_that_stay(tmp_path):
    path = tmp_path / "loops.py"
    path.write_bytes((FILES / "loops.py").read_bytes())
    result = cli("--explain", path, EXAMPLES / "seed_func.py")
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert path.read_bytes() == (FILES / "loops.py").read_bytes()
    seed = out[out.index("seed_func.py:14: `func` becomes a batched function"):]
    assert "     17-20 |     if tmp > 5:\n" in seed
    assert "rule operator.conditional_expression: `a if cond else b` with a batched" in seed
    assert "=> |     root = np.where(tmp > 5, tmp, -t)" in seed
    for reason in [
            "the loop's body does more than `out.append(f(...))`",
            "the argument `x * 2` computes something from the loop variable",
            "`offset` goes to `lo`, which `clip` batches, and may not be one number",
            "`split` returns a tuple",
            "`shifted` is a @vmap function",
            "the loop goes over `v for v in values`, which the rewriter cannot prove is an array",
            "`x` is read after the loop, where it holds the last item",
            "it stores into `indexed[i]`: indexed loops are left as they are"]:
        assert reason in out, reason
    assert f"{path}:33: loop over examples -> one batched call\n" \
           "    [clip(x) for x in values]\n  => list(clip(values))\n" in out


def test_console_script_and_arguments():
    from vectorize.cli import main, main_entry  # noqa: F401 -- what the script runs
    pyproject = (ROOT / "pyproject.toml").read_text()
    scripts = pyproject[pyproject.index("[project.scripts]"):].split("\n\n")[0]
    assert 'vectorize = "vectorize.cli:main_entry"' in scripts.splitlines()
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exit_:
        with contextlib.redirect_stdout(out):
            main(["--version"])
    assert exit_.value.code == 0 and out.getvalue().startswith("vectorize ")
    missing = main(["--function", "nope", str(EXAMPLES / "seed_func.py")], out, err)
    assert missing == 2
    assert "error: no function named `nope`" in err.getvalue()
    assert main(["no/such/file.py"], out, err) == 2
    assert "no/such/file.py: error: no such file or directory" in err.getvalue()
    with pytest.raises(SystemExit) as exit_, contextlib.redirect_stderr(io.StringIO()):
        main(["-w", "--diff", "x.py"])
    assert exit_.value.code == 2      # argparse's usage errors
