"""The file rewriter's rules, in-process: files that must stay unchanged (each with the reason)
and before/after pairs, each run both ways on the same calls (`vectorize.rewrite`)."""

from __future__ import annotations

import importlib.util
import itertools
import textwrap

import numpy as np
import pytest
from test_cli import assert_same

from vectorize.rewrite import rewrite_text

_names = itertools.count()

HEAD = "import numpy as np\n\nfrom vectorize import vectorize, vmap\n\n\n"

UNCHANGED = {
    "nothing is marked": "import numpy as np\n\n\ndef f(x):\n    return x if x > 0 else -x\n",
    "numpy's own vectorize is not ours": (
        "import numpy as np\n\n\n@np.vectorize\ndef f(x):\n    return x if x > 0 else -x\n"),
    "a call of vectorize is not a mark": (
        HEAD + "def f(x):\n    return -x\n\n\ng = vectorize(f)\nh = vmap(f)\n"),
    "only module-level functions are rewritten": (
        HEAD + "class C:\n    @vectorize\n    def m(self, x):\n        return -x\n\n\n"
               "def outer():\n    @vmap\n    def inner(x: float):\n        return -x\n\n"
               "    return inner\n"),
    "a name that only looks like ours": (
        "def vectorize(f):\n    return f\n\n\n@vectorize\ndef f(x):\n    return -x\n"),
}


@pytest.mark.parametrize("reason", sorted(UNCHANGED))
def test_unchanged(reason, tmp_path):
    text = UNCHANGED[reason]
    outcome = rewrite_text(text, str(tmp_path / "m.py"))
    assert not outcome.errors
    assert outcome.text == text


# (what is checked, the marked source after HEAD, lines the output holds, calls to compare)
CASES = {
    "excluded by name and by position": (
        '@vectorize(excluded={"n"})\ndef power(x, n: int):\n    y = 1.0\n    for _ in range(n):\n'
        '        y = y * x\n    return y if x > 0 else -y\n\n\n'
        "@vectorize(excluded={1})\ndef scaled(x, s: float):\n    return x * s if x > 0 else x\n",
        ["    result = power_batched(x.ravel(), n)", "def scaled(x, s: float):"],
        ["power(np.linspace(-2, 2, 9), 3)", "power([[1.0, -2.0], [3.0, 0.5]], 2)",
         "scaled(np.arange(-3.0, 3.0), 2.5)", "scaled(4.0, 0.5)"]),
    "keyword-only parameters and defaults stay in the signature": (
        "@vectorize\ndef clipped(x, lo=-1.0, *, hi=1.0):\n    if x < lo:\n        return lo\n"
        "    if x > hi:\n        return hi\n    return x\n",
        ["def clipped(x, lo=-1.0, *, hi=1.0):"],
        ["clipped(np.linspace(-3, 3, 13))", "clipped(np.linspace(-3, 3, 13), hi=2.0)",
         "clipped(np.linspace(-3, 3, 13), np.linspace(-1, 0, 13))", "clipped(0.5, 1.0)"]),
    "comments above, other decorators and annotations stay": (
        "def twice(f):\n    return lambda *a: 2 * f(*a)\n\n\n"
        "# the absolute value, per example\n@twice\n@vectorize\ndef absolute(x: np.float64):"
        "\n    return x if x >= 0 else -x\n",
        ["# the absolute value, per example\n@twice\ndef absolute(x: np.float64):\n"
         "    x = np.asarray(x)\n    return np.where(x >= 0, x, -x)"],
        ["absolute(np.linspace(-1, 1, 5))"]),
    "helpers get names nothing uses; integers stay integers": (
        "def step(n):\n    return n // 2 if n % 2 == 0 else 3 * n + 1\n\n\n"
        "def step_batched():\n    return 'taken'\n\n\n"
        "@vectorize\ndef steps(n: int):\n    count = 0\n    while n != 1:\n"
        "        n = step(n)\n        count += 1\n    return count\n",
        ["def step_batched_2(n):", "def step(n):", "def step_batched():"],
        ["steps(np.arange(1, 30))", "step(7)", "len(step_batched())"]),
    "vmap: unmapped and defaulted parameters, per-example matrices": (
        '@vmap(in_axes=(0, None, None))\n'
        'def affine(v: "float[:]", m: "float[:, :]", shift=1.0):\n'
        "    return m.dot(v) + shift\n\n\n"
        "@vmap(in_axes=0)\n"
        'def trace_of(m: "float[:, :]"):\n    return np.trace(m)\n',
        ["return v @ m.T + shift"],
        ["affine(np.arange(12.0).reshape(4, 3), np.arange(9.0).reshape(3, 3), 1.0)",
         "affine(np.ones((2, 3)), np.eye(3), -2.0)",
         "trace_of(np.arange(18.0).reshape(2, 3, 3))"]),
    "functools.partial spelling, vmap's in_axes and out_axes": (
        "import functools\n\n\n@functools.partial(vmap, in_axes=(1,), out_axes=1)\n"
        'def normalized(v: "float[:]"):\n    return v / np.sqrt(np.sum(v * v))\n',
        ["return np.moveaxis(normalized_batched(np.moveaxis(v, 1, 0)), 0, 1)"],
        ["normalized(np.arange(1.0, 13.0).reshape(3, 4))"]),
    "otypes that the results already have": (
        '@vectorize(otypes=[float], signature="(n)->()")\ndef mean_abs(v):\n'
        "    return np.mean(np.abs(v))\n",
        ["return result.reshape(shape)"],
        ["mean_abs(np.arange(-6.0, 6.0).reshape(3, 4))", "mean_abs([1.0, -3.0])"]),
}


def _load(path):
    spec = importlib.util.spec_from_file_location(f"rewrite_case_{next(_names)}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("what", sorted(CASES))
def test_before_and_after(what, tmp_path):
    source, holds, calls = CASES[what]
    text = HEAD + source
    before = tmp_path / "before.py"
    before.write_text(text)
    outcome = rewrite_text(text, str(before))
    assert not outcome.errors, [str(e) for e in outcome.errors]
    for line in holds:
        assert line in outcome.text, outcome.text
    assert "from vectorize import" not in outcome.text
    after = tmp_path / "after.py"
    after.write_text(outcome.text)
    old, new = _load(before), _load(after)
    for call in calls:
        assert_same(eval(call, vars(old)), eval(call, vars(new)), call)
    assert rewrite_text(outcome.text, str(after)).text == outcome.text   # idempotent


def test_numpy_imported_under_another_name_gets_np_added(tmp_path):
    text = textwrap.dedent('''\
        """Doc."""
        import math

        import numpy

        from vectorize import vectorize


        @vectorize
        def f(x):
            return math.sqrt(x) if x > 0 else numpy.float64(0.0)
        ''')
    outcome = rewrite_text(text, str(tmp_path / "m.py"))
    assert not outcome.errors
    # (`import math` went with the only code that read it: `math.sqrt` became `np.sqrt`)
    assert outcome.text.startswith('"""Doc."""\n\nimport numpy\nimport numpy as np\n'
                                   '\n\ndef f(x):\n')


def test_otypes_that_would_cast_are_refused(tmp_path):
    text = HEAD + "@vectorize(otypes=[int])\ndef f(x):\n    return x * 1.5\n"
    outcome = rewrite_text(text, str(tmp_path / "m.py"))
    assert [e.line for e in outcome.errors] == [6]
    assert "would cast the results" in outcome.errors[0].reason
    assert outcome.text == text


def test_a_module_constant_changed_in_place_is_unknown(tmp_path):
    text = HEAD + ("TABLE = np.zeros(3)\nTABLE[0] = 5.0\n\n\n@vectorize\ndef f(x):\n"
                   "    return x * TABLE[0]\n")
    outcome = rewrite_text(text, str(tmp_path / "m.py"))
    assert len(outcome.errors) == 1
    assert "may be changed in place on line 7" in outcome.errors[0].reason


@pytest.mark.parametrize("spelling, shape, dtype", [
    ('"float[:]"', (3,), np.float64), ('"int[:, :]"', (3, 3), np.int64),
    ('"np.float32[4]"', (4,), np.float32), ("np.int16", (), np.int16), ("bool", (), np.bool_)])
def test_annotation_spellings(spelling, shape, dtype, tmp_path):
    from vectorize.rewrite import marks, skeleton
    text = HEAD + f"@vmap\ndef f(x: {spelling}):\n    return x\n"
    tree = compile(text, "m.py", "exec", 0x400)
    skel = skeleton.build(tree, str(tmp_path / "m.py"), text, marks.is_mark)
    fdef = tree.body[-1]
    plan = marks.plan(fdef, skel.functions["f"], marks.mark_of(fdef.decorator_list[0],
                                                               skel.namespace),
                      skel.namespace, marks.Located("m.py", text.splitlines()))
    example = np.asarray(plan.params["x"].example)
    assert plan.params["x"].batched
    assert (example.shape, example.dtype) == (shape, np.dtype(dtype))


def test_a_piece_run_per_example_is_visible_and_warned(tmp_path):
    # a piece whose result is a number (a piece that is not, `str(x)`, makes the whole
    # function run per example, which cannot be rewritten)
    text = "import math\n\n" + HEAD + ("def label(x):\n    return math.ulp(x)\n\n\n"
                                       "@vectorize\ndef f(x):\n    return label(x) + 1\n")
    outcome = rewrite_text(text, str(tmp_path / "m.py"))
    assert not outcome.errors
    assert "np.array([math.ulp(x_i) for x_i in x])" in outcome.text
    assert [(w.line, w.reason) for w in outcome.warnings] == [
        (9, "runs per example (a Python loop in the rewritten code): `math.ulp` has no "
            "batching rule")]
    strict = rewrite_text(text.replace("@vectorize", "@vectorize(fallback='error')"),
                          str(tmp_path / "m.py"))
    assert strict.errors and strict.text == text.replace("@vectorize",
                                                         "@vectorize(fallback='error')")
