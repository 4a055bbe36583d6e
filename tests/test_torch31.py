"""PyTorch backend (and NumPy where it shares the cause): in-place updates of a value that is
one of the operands Python chose (``max``/``min``, ``a if c else b``, ``a or b``), values
whose type differs between calls of a test the same for every example, and lanes that
compute in an int wider than the batch's. Against the per-example loop over 0-d tensors
(torch.func semantics) / rows."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vectorize import VectorizeError, vmap  # noqa: E402


def _loop(f, *args):
    """The per-example loop, each example on its own copies (an in-place update of an
    argument changes it, as it does per example)."""
    args = [a.clone() if isinstance(a, torch.Tensor) else a.copy() for a in args]
    return [f(*row) for row in zip(*args)]


def _refused_here(f, *args):
    with pytest.raises(VectorizeError) as info:
        vmap(f)(*args)
    first = str(info.value).splitlines()[0]
    assert "test_torch31.py:" in first, first
    return first


# ------------------------------------- an in-place update of the operand Python chose
def max_updated(x, y):                  # fuzz_torch27 seed 9048, minimized
    r = max(x, y)
    r -= 1
    return x + y * 10


def min_updated(x, y):
    r = min(x, y)
    r += 1
    return x + y * 10


def max_of_itself_updated(x, y):        # fuzz_torch27 seed 9048
    r = max(x, x)
    r -= x
    return x % -2


def max_of_a_list_updated(x, y):
    r = max([x, y])
    r -= 1
    return x + y * 10


def arm_updated(x, y):
    r = x if x > y else y
    r -= 1
    return x + y * 10


def or_updated(x, y):
    r = x or y
    r -= 1
    return x + y * 10


@pytest.mark.parametrize("f", [max_updated, min_updated, max_of_itself_updated,
                               max_of_a_list_updated, arm_updated, or_updated])
def test_an_in_place_update_of_a_chosen_operand_is_refused(f):
    # per example `r` is `x` or `y` itself, a 0-d tensor `r -= 1` changes: the loop reads
    # the changed one; the batch computed max/where into a new tensor and returned x + 10 y
    # unchanged (max_updated: 31 where the loop gives 21)
    x = torch.tensor([1.0, 5.0, -1.0, 0.0])
    y = torch.tensor([3.0, 2.0, -2.0, 4.0])
    rows = torch.stack(_loop(f, x, y))
    assert not torch.equal(rows, (x + y * 10) if f is not max_of_itself_updated
                           else x % -2)                                   # the premise
    assert "in place" in _refused_here(f, x.clone(), y.clone())


def max_updated_dead(x, y):
    r = max(x, y)
    r -= 1
    return r


def max_rebound(x, y):
    r = max(x, y)
    r = r - 1
    return x + y * 10 + r


@pytest.mark.parametrize("f", [max_updated_dead, max_rebound])
def test_a_chosen_operand_computes_where_nothing_reads_the_change(f):
    x = torch.tensor([1.0, 5.0, -1.0, 0.0])
    y = torch.tensor([3.0, 2.0, -2.0, 4.0])
    expected = torch.stack(_loop(f, x, y))
    got = vmap(f)(x.clone(), y.clone())
    assert got.dtype == expected.dtype and torch.equal(got, expected), (got, expected)


def arm_of_rows_updated(a, b):
    r = a if a.sum() > b.sum() else b
    r += 1
    return a + 10 * b


def test_numpy_rows_an_in_place_update_of_a_chosen_row_is_refused():
    # per example `r` is the row `a` or `b` itself, which `+=` changes: [2, 3] and
    # [103, 104]; the batch gave [1, 2] and [93, 94]
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[0.0, 0.0], [9.0, 9.0]])
    assert np.array_equal(np.stack(_loop(arm_of_rows_updated, a, b)),
                          [[2.0, 3.0], [103.0, 104.0]])                   # the premise
    assert "in place" in _refused_here(arm_of_rows_updated, a.copy(), b.copy())


# ------------------------- a choice of a test the same for every example, then arithmetic
def shared_choice_plus(a, b):           # fuzz_torch27 seed 9652, minimized
    n = 0
    for i in range(3):
        n += i
    return (n if n else (b > 0)) + b


def test_a_shared_choice_of_a_python_int_then_arithmetic_is_refused():
    # per example `n` is the Python int 3, so 3 + an int16 tensor is int16 and wraps
    # (32767 + 3: -32766); the batch held the choice as an int64 tensor: 32770
    a = torch.zeros(3, dtype=torch.int32)
    b = torch.tensor([32767, 0, 3], dtype=torch.int16)
    rows = _loop(shared_choice_plus, a, b)
    assert rows[0].dtype == torch.int16 and int(rows[0]) == -32766          # the premise
    assert "differs between lanes" in _refused_here(shared_choice_plus, a, b)


def shared_exact_choice_plus(a, b):
    n = 2
    return (n if n else (b > 0)) + b


def test_a_choice_decided_for_every_example_still_computes():
    a = torch.zeros(3, dtype=torch.int32)
    b = torch.tensor([32767, 0, 3], dtype=torch.int16)
    expected = torch.stack(_loop(shared_exact_choice_plus, a, b))
    got = vmap(shared_exact_choice_plus)(a, b)
    assert got.dtype == expected.dtype == torch.int16 and torch.equal(got, expected)


# ----------------------------------------------- a lane computing in a wider int than the batch
def big_or_x_plus_flag(a, b):
    r = a if a > 0 else 2147483647
    return r + b


def or_plus_flag(a, b):                 # fuzz_torch27 seed 9509, minimized
    return (a or -3) + (b == 0.5)


@pytest.mark.parametrize("module", ["torch", "numpy"])
def test_a_lane_wider_than_the_batch_is_refused(module):
    # per example the Python int 2147483647 + True is an int64 2147483648 (NumPy: NEP 50's
    # default int, PyTorch: a Python int beside a bool tensor); the batch held the choice as
    # int32 and wrapped to -2147483648
    if module == "torch":
        a = torch.tensor([0, 1], dtype=torch.int32)
        b = torch.tensor([True, False])
    else:
        a = np.array([0, 1], dtype=np.int32)
        b = np.array([True, False])
    rows = _loop(big_or_x_plus_flag, a, b)
    assert int(rows[0]) == 2147483648                                     # the premise
    assert "cannot hold" in _refused_here(big_or_x_plus_flag, a, b)


def test_a_python_int_lane_beside_a_bool_tensor_is_refused():
    # per example -3 + a bool tensor is int64 where `a` is 0, int32 elsewhere; the batch
    # computed every lane in int32
    a = torch.tensor([0], dtype=torch.int32)
    b = torch.tensor([1])
    assert _loop(or_plus_flag, a, b)[0].dtype == torch.int64               # the premise
    assert "cannot hold" in _refused_here(or_plus_flag, a, b)


def narrow_or_x_plus_one(a, b):
    r = a if a > 0 else 7
    return r + 1


def test_a_python_int_lane_plus_a_python_int_still_computes():
    a = torch.tensor([0, 1, 5], dtype=torch.int32)
    rows = _loop(narrow_or_x_plus_one, a, a)
    got = vmap(narrow_or_x_plus_one)(a, a)
    assert [int(v) for v in got] == [int(r) for r in rows] == [8, 2, 6]


# ------------------------------------------- an empty batch of NumPy arrays on the torch backend
def pair_of_rows(v, w, x):              # fuzz_long --kind vectors --backend torch, seed 70000
    return (float(x < x) + x), x


def test_signature_call_on_an_empty_numpy_batch_with_the_torch_backend():
    # the generated PyTorch code was called on the NumPy arrays themselves (`.detach()` of
    # an ndarray: AttributeError), then numpy.vectorize's own ValueError for size 0 without
    # otypes; with the NumPy backend (and on tensors) the empty batch gives empty results
    from vectorize import vectorize
    empty, rows = np.zeros(0), np.zeros((0, 1))
    wanted = vectorize(pair_of_rows, signature="(n),(n),()->(),()")(rows, rows, empty)
    got = vectorize(pair_of_rows, signature="(n),(n),()->(),()", fallback="error",
                    backend="torch")(rows, rows, empty)
    assert len(got) == len(wanted) == 2
    for g, w in zip(got, wanted):
        assert isinstance(g, np.ndarray) and g.shape == w.shape == (0,) and g.dtype == w.dtype


# -------------------------------------- `and`/`or` whose left side is the same for every example
def shared_and_sum(v):                  # fuzz_long --kind vectors --backend torch, seed 70000
    v0, v1 = math.tanh(v[0]), (math.tanh(float(len(v))) and v.sum())
    return v0, v1


def test_and_of_a_shared_left_side_on_an_empty_batch():
    # the generated code was `torch.where(<a Python bool>, v.sum(dim=1), ...)`, which PyTorch
    # refuses (TypeError): an empty batch failed with numpy.vectorize's ValueError
    from vectorize import vectorize
    rows = np.zeros((0, 2))
    got = vectorize(shared_and_sum, signature="(n)->(),()", fallback="error",
                    backend="torch")(rows)
    assert [g.shape for g in got] == [(0,), (0,)]


def test_and_of_a_shared_left_side_runs_batched():
    # (on a batch the TypeError made vmap fall back to the per-example loop, warning that
    # it may be a bug of vectorize)
    v = torch.tensor([[1.0, 2.0], [3.0, -4.0], [0.5, 0.25]], dtype=torch.float64)
    rows = _loop(shared_and_sum, v)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(shared_and_sum)(v)
    for k in range(2):
        expected = torch.tensor([float(r[k]) for r in rows], dtype=torch.float64)
        assert torch.equal(got[k].double(), expected), (got[k], expected)
