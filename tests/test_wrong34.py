"""Wrong results and internal errors found by benchmarks/fuzz_gen33.py: a zero divisor lost
in a loop of a helper (`vmap`), empty batches whose batched code raised what no example
raises (`vmap`)."""

import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap

TABLE = (1.5, -2.0, 3.0, 0.5, 4.0)


def _loop(f, *columns):
    """The per-example loop over NumPy scalars: its stacked result or its exception."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.stack([f(*row) for row in zip(*columns)]), None
        except Exception as exc:  # noqa: BLE001 -- compared by type
            return None, exc


def _ours(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except VectorizeError:
            raise
        except Exception as exc:  # noqa: BLE001
            return None, exc


# --- 1. a Python-number division the batch computes on a NumPy scalar (code every lane runs:
# a loop of a helper) keeps its zero-divisor check where the name carries it round the loop
# (fuzz_gen33 seed 130: 0.0 where every example raises ZeroDivisionError)

def _divides_in_loop(a, b):
    u = 1.0
    for _ in range(int(u) % 5):
        u /= (a > b)
    return abs(0.0)


def _calls_divides(a, b, c):
    u = round(_divides_in_loop(3.0, len(TABLE)), 2)   # noqa: F841


def seed130(x, y, n, k):
    r = 0.0
    s = _calls_divides(10.0 - k, abs(int(y)), 0.5)    # noqa: F841
    return r


def _assigned_in_loop(a, b):
    u = 1.0
    for _ in range(2):
        u = u / (a > b)
    return 2.0


def _calls_assigned(a, b, c):
    u = _assigned_in_loop(3.0, 5)     # noqa: F841


def assigned(x, k):
    s = _calls_assigned(1.0, x, 2.0)     # noqa: F841
    return x


def test_division_by_a_python_zero_in_a_helper_loop_raises_as_the_loop():
    x = np.array([0.0, 6.0, 3.0, 1.0])
    got, err = _ours(lambda: vmap(seed130, in_axes=(0, 0, 0, None))(x, x, x.astype(int), 7))
    assert isinstance(err, ZeroDivisionError), got
    _, ref = _loop(lambda a, b, c: seed130(a, b, c, 7), x, x, x.astype(int))
    assert isinstance(ref, ZeroDivisionError)


def test_a_name_carried_round_a_loop_keeps_its_python_checks():
    f = assigned
    x = np.array([0.0, 1.0, 2.0])
    _, ref = _loop(lambda v: f(v, 2), x)
    assert isinstance(ref, ZeroDivisionError)
    got, err = _ours(lambda: vmap(f, in_axes=(0, None))(x, 2))
    assert isinstance(err, ZeroDivisionError), got
    got, err = _ours(lambda: vectorize(f)(x, 2))
    assert isinstance(err, ZeroDivisionError), got


# --- 2. an empty batch: the loop runs no example, so nothing raises that only some examples
# (or none, through a handler) would raise

def _always_raises(a, b, c):
    raise ValueError("bad example")


def seed199(x, y, n, k):
    s = 0
    t = n
    r = k
    s, t = t, s
    try:
        s = abs(_always_raises(y, 0.5, y))
    except (ZeroDivisionError, ValueError):
        s = 1
    return s if t else r


def _zero_division(a, b):
    u = 1.0
    return u / False


def seed249(x, y, n, k):
    t = False
    r = 0.0
    if x < 5:
        raise ValueError("bad example")
    t3 = (_zero_division(k, 10.0), k)      # noqa: F841
    return r if not t else r


def _checked_raise(x):
    if x > 1.0:
        raise ValueError("bad example")
    return 1.0


def raises_after_a_helper_check(x, k):
    v = _checked_raise(x)
    w = 1.0 / (k - k)
    return v + w


@pytest.mark.parametrize("f,dtype", [(seed199, np.int64), (seed249, None)])
def test_an_empty_batch_returns_what_no_example_raises(f, dtype):
    e = np.zeros(0)
    if dtype is None:
        # seed249's helper raises on every path (1.0 / False), so every example raises,
        # ValueError or ZeroDivisionError by its value: no example returns, a located
        # refusal (docs/semantics.md: empty batches), not an empty array nor None
        with pytest.raises(VectorizeError, match="empty batch"):
            vmap(f, in_axes=(0, 0, 0, None))(e, e, e.astype(np.int64), 0)
    else:
        out = vmap(f, in_axes=(0, 0, 0, None))(e, e, e.astype(np.int64), 0)
        assert out.shape == (0,) and out.dtype == dtype
    # (the non-empty batch: every example takes the handler / raises, as the loop)
    x = np.array([6.0, 7.0, 1.0])
    got, err = _ours(lambda: vmap(f, in_axes=(0, 0, 0, None))(x, x, x.astype(np.int64), 0))
    lanes, ref = _loop(lambda a, b, c: f(a, b, c, 0), x, x, x.astype(np.int64))
    assert type(err) is type(ref)
    if ref is None:
        np.testing.assert_array_equal(got, lanes)


def test_an_empty_batch_after_a_per_example_check_of_a_helper():
    # every example raises, ValueError or ZeroDivisionError by its value: no result type,
    # and no exception every example raises: a located refusal, not ZeroDivisionError
    e = np.zeros(0)
    with pytest.raises(VectorizeError, match="empty batch") as info:
        vmap(raises_after_a_helper_check, in_axes=(0, None))(e, 2)
    assert "test_wrong34.py" in str(info.value)


def _every_example_raises(x):
    return x + 1.0 // 0.0


def test_an_empty_batch_still_raises_what_every_example_raises():
    with pytest.raises(ZeroDivisionError):
        vmap(_every_example_raises)(np.zeros(0))


# --- 3. `.copy()` of a number per example: an array of its own only where the number is a
# 0-d array (`np.asarray(x)`, `np.empty(())`, `np.where(...)` of numbers, `v[...]`); a NumPy
# scalar's copy (`np.float64(x).copy()`) is a NumPy scalar, whose item write raises TypeError

def scalar_copy(x):
    a = np.float64(x).copy()
    a[()] = 1.0
    return a


def asarray_copy(x):
    a = np.asarray(x).copy()
    a[()] = 1.0
    return a


def where_copy(x):
    a = np.where(x > 2.5, x, 0.0).copy()
    a[()] += 1.0
    return a


def empty_copy(x):
    a = np.empty(()).copy()
    a[()] = x
    return a


def test_the_copy_of_a_numpy_scalar_is_no_array_to_write_into():
    x = np.array([2.0, 3.0])
    with pytest.raises(TypeError):
        np.vectorize(scalar_copy)(x)
    for api in (lambda f: vectorize(f, fallback="error"), vmap):
        with pytest.raises((TypeError, VectorizeError)) as info:
            api(scalar_copy)(x)
        if info.type is VectorizeError:
            assert "test_wrong34.py" in str(info.value)


@pytest.mark.parametrize("f", [asarray_copy, where_copy, empty_copy])
def test_the_copy_of_a_0d_array_is_written_as_the_loop_writes(f):
    x = np.array([2.0, 3.0, -1.0])
    expected = np.vectorize(f)(x)
    got = vectorize(f, fallback="error")(x)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    lanes, _ = _loop(f, x)
    np.testing.assert_array_equal(vmap(f)(x), lanes)


# --- 4. PyTorch's own remainder: its vectorized loop gives NaN where the quotient is beyond
# the float range (a subnormal divisor), its 0-d path the exact remainder; `vmap` gives what
# `torch.func.vmap` gives (docs/semantics.md, "PyTorch"), and the fuzzers accept it

def test_torch_remainder_of_an_overflowing_quotient_is_torchs_own():
    torch = pytest.importorskip("torch")
    from fuzz.harness import _torch_remainder
    x = torch.tensor([-4.0, 5.3, 1e300, 7.0] * 4, dtype=torch.float64)
    y = torch.tensor([5e-324, 5e-324, 1e-10, 2.0] * 4, dtype=torch.float64)
    loop = torch.stack([a % b for a, b in zip(x, y)])
    assert not torch.isnan(loop).any()          # the 0-d path: exact
    theirs = torch.func.vmap(lambda a, b: a % b)(x, y)
    ours = vmap(lambda a, b: a % b, backend="torch")(x, y)
    assert torch.isnan(theirs[:3]).all() and theirs[3] == 1.0
    torch.testing.assert_close(ours, theirs, equal_nan=True, rtol=0, atol=0)
    assert math_isnan(_torch_remainder(-4.0, 5e-324))
    assert math_isnan(_torch_remainder(np.float32(3.0), np.float32(1e-40)))
    assert _torch_remainder(5.5, 2.0) == 1.5 and _torch_remainder(7, 2) == 1
    assert _torch_remainder("%s", 1.0) == "1.0"


def math_isnan(v) -> bool:
    return bool(np.isnan(v))


# --- 5. PyTorch: `max` / `min` of a Python float a float16 / float32 tensor cannot hold:
# per example compared in the tensor's dtype, the number kept as itself where it wins (the
# loop's results stack to float64), as NumPy's backend does (tests/test_wrong33.py)

_TORCH_WEAK = [("max({c}, x)", "1e300", "float16"), ("max(x, {c})", "1e-300", "float32"),
               ("min({c}, x)", "-1e300", "float16"), ("min(x, {c})", "-1e-300", "float16"),
               ("min({c}, x)", "1e-300", "float32"), ("max({c}, x)", "70000.0", "float16")]


@pytest.mark.parametrize("shape,c,dtype", _TORCH_WEAK)
def test_torch_max_min_of_a_number_the_tensor_cannot_hold_matches_the_loop(shape, c, dtype):
    torch = pytest.importorskip("torch")
    from fuzz.harness import ModuleWriter, Program
    f = ModuleWriter().load(Program(f"def f(x):\n    return {shape.format(c=c)}\n", ("x",), 1))
    x = torch.tensor([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -2.5, 6e4],
                     dtype=getattr(torch, dtype))
    rows = [f(v) for v in x]
    assert any(isinstance(r, float) for r in rows)      # (the number wins on some lanes)
    loop = torch.stack([torch.as_tensor(r, dtype=torch.float64) for r in rows])
    got = vmap(f, backend="torch")(x)
    assert got.dtype == torch.float64      # (a lane keeps the Python number itself)
    assert torch.equal(torch.isnan(got), torch.isnan(loop))
    keep = ~torch.isnan(loop)
    assert torch.equal(got[keep], loop[keep])
    assert torch.equal(torch.signbit(got[keep]), torch.signbit(loop[keep]))


def test_torch_max_of_three_with_such_a_number_is_refused_located():
    torch = pytest.importorskip("torch")
    x = torch.tensor([np.inf, 1.0], dtype=torch.float16)
    with pytest.raises(VectorizeError, match="more than two arguments") as info:
        vmap(lambda y: max(y, 2.0, 1e300), backend="torch")(x)
    assert "test_wrong34.py" in str(info.value)


# --- 6. `vectorize`: a NumPy function that raises TypeError for a Python bool, of a value
# that is a bool on some lanes only: checked at run time (lanes that may hold the bool, 0 or
# 1 in the batch's float, let numpy.vectorize decide), no longer refused where no lane is one

def negated_choice(a, c):
    r = (a > 1) if c > 0 else a * 0.5
    return np.negative(r)


def sign_of_choice(a, c):
    r = (a > 1) if c > 0 else a * 0.5
    return np.sign(r)


@pytest.mark.parametrize("f", [negated_choice, sign_of_choice])
@pytest.mark.parametrize("c", [[-1.0, -2.0, -3.0, -0.5], [-1.0, 2.0, -3.0, -0.5],
                               [1.0, 1.0, 1.0, 1.0]])
def test_a_bool_lane_raises_only_where_a_lane_takes_it(f, c):
    a = np.array([2.0, 0.5, 3.0, 5.0])
    c = np.array(c)
    try:
        expected, expected_err = np.vectorize(f)(a, c), None
    except Exception as exc:  # noqa: BLE001
        expected, expected_err = None, exc
    got, err = _ours(lambda: vectorize(f, fallback="error")(a, c))
    if expected_err is not None:
        assert isinstance(err, type(expected_err)), got
    else:
        assert err is None and got.dtype == expected.dtype and np.array_equal(got, expected)
