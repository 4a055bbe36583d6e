"""Python's number semantics on arrays, where NumPy's differ: what `vectorize`'s generated
code calls for them (``from vectorize import pymath``).

``round(x, n)``: Python rounds the exact decimal value of the double (``round(2.675, 2)`` is
2.67, since 2.675 is 2.67499999999999982236431605997495353221893310546875;
``round(0.0005, 3)`` is 0.001), correctly rounded, ties to even; ``np.round`` scales by
``10**n`` in floating point first, which moves values near a tie (``np.round(0.0005, 3)`` is
0.0). `round` here equals Python's on every double.
"""

from __future__ import annotations

import builtins
import functools
import math
import operator

import numpy as np

_SPLIT = 134217729.0        # 2**27 + 1 (Dekker's split of a double into two halves)
_MAX_EXACT_DIGITS = 22      # 10.0 ** n is exact for |n| <= 22


def _two_product(a, b):
    """(p, e) with p = fl(a * b) and p + e == a * b exactly (Dekker, no FMA needed; no
    overflow or underflow: the callers' products lie between 0.5 and 2**51)."""
    p = a * b
    c = _SPLIT * a
    ah = c - (c - a)
    al = a - ah
    c = _SPLIT * b
    bh = c - (c - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def round(x, ndigits):    # noqa: A001 -- Python's round, on arrays
    """``np.array([builtins.round(v, ndigits) for v in x])`` for floats ``x`` (any shape),
    computed lane by lane on the array; the dtype of ``x`` is kept (a float32 per example is
    rounded as the double it is, then stored as float32, as numpy.vectorize does)."""
    x = np.asarray(x)
    if x.dtype.kind not in "f":
        return np.round(x, ndigits)
    n = operator.index(ndigits)
    v = np.asarray(x, dtype=np.float64)
    if abs(n) > _MAX_EXACT_DIGITS:
        return _per_lane(v, n, np.isfinite(v) & (v != 0), v.copy()).astype(x.dtype)
    p = 10.0 ** abs(n)
    with np.errstate(all="ignore"):
        y = v * p if n >= 0 else v / p
        below = np.floor(y)
        # y is x * 10**n rounded: where it lies within a few ulps of a tie (4 ulps is less
        # than |y| * 2**-49) the exact product may lie on the other side of it, or on it;
        # also where |y| >= 2**48 and where y or x is not finite (NaN makes `>` false).
        # (In place where it can: fresh arrays cost page faults on large batches.)
        gap = y - below
        gap -= 0.5
        np.abs(gap, out=gap)
        gap *= 2.0 ** 49
        near = ~((gap > y) & (gap > -y))
        lanes = np.flatnonzero(near) if near.any() else None
        if lanes is not None:
            exact = _near_tie(v[lanes], y[lanes], below[lanes], p, n)
        out = np.rint(y, out=y)            # elsewhere NumPy's answer is Python's
        if n >= 0:
            out /= p
        else:
            out *= p
        np.copysign(out, v, out=out)       # round(-0.001, 2) is -0.0
        if lanes is not None:
            out[lanes] = exact
    return out.astype(x.dtype, copy=False)


def _near_tie(v, y, below, p, n):
    """Python's results for lanes near a tie, or not finite, or huge (|y| >= 2**48):
    exactly decided where |y| < 2**51; the value itself where it has no digits below
    10**-n (|y| >= 2**53 or inf, and NaN); Python's round between."""
    out = v.copy()
    exact = np.abs(y) < 2.0 ** 51
    q = _exact_side(v[exact], below[exact], p, n)
    out[exact] = np.copysign(q / p if n >= 0 else q * p, v[exact])
    rest = ~exact & (np.abs(y) < 2.0 ** 53) & (v != 0)
    if rest.any():
        out[rest] = [builtins.round(float(e), n) for e in v[rest]]
    return out


def _exact_side(v, below, p, n):
    """The integer Python rounds ``v * 10**n`` to, for lanes where it lies near the tie
    ``below + 0.5``: the sign of the exact difference decides, ties go to the even one."""
    tie = below + 0.5
    if n >= 0:
        hi, lo = _two_product(v, p)        # hi + lo == v * 10**n exactly
        diff = (hi - tie) + lo             # hi - tie is exact (Sterbenz)
    else:
        hi, lo = _two_product(tie, p)      # hi + lo == tie * 10**-n exactly
        diff = (v - hi) - lo
    even = np.fmod(below, 2.0) == 0
    up = (diff > 0) | ((diff == 0) & ~even)
    return below + up


def _per_lane(v, n, lanes, out):
    out = np.array(out, dtype=np.float64)
    out[lanes] = [builtins.round(float(e), n) for e in v[lanes]]
    return out


# --------------------------------------------------------------------- exact int functions
# ``math.comb``/``perm``/``factorial``/``isqrt`` on int arrays: Python's exact ints where the
# result fits int64 (numpy.vectorize's output dtype for Python ints); Python's ValueError for
# negative arguments; OverflowError where a result may not fit (the estimate in floats can
# fire a little early: `vectorize` then runs the per-example loop, which decides).

_INT64_LIMIT = 9.2e18       # a little below 2**63: above it a result may not fit int64


def _ints(*args):
    arrays = [np.asarray(a) for a in args]
    for a in arrays:
        if a.dtype.kind not in "biu":
            raise TypeError(f"'{a.dtype}' object cannot be interpreted as an integer")
    return np.broadcast_arrays(*[a.astype(np.int64) for a in arrays])


def isqrt(n):
    """``math.isqrt`` lane by lane: the largest r with r * r <= n."""
    (n,) = _ints(n)
    if (n < 0).any():
        raise ValueError("isqrt() argument must be nonnegative")
    r = np.sqrt(n.astype(np.float64)).astype(np.int64)   # within one of the root
    r = np.where(r * r > n, r - 1, r)
    up = r + 1
    return np.where(up <= n // up, up, r)


def comb(n, k):
    """``math.comb(n, k)`` lane by lane: C(n, k), 0 where k > n. Each step
    C(n, i + 1) = C(n, i) * (n - i) / (i + 1) divides by g = gcd(C(n, i), i + 1) first, so
    nothing exceeds the next binomial coefficient."""
    n, k = _ints(n, k)
    if (n < 0).any():
        raise ValueError("n must be a non-negative integer")
    if (k < 0).any():
        raise ValueError("k must be a non-negative integer")
    beyond = k > n
    k = np.where(beyond, 0, np.minimum(k, n - k))
    return np.where(beyond, 0, _product_steps(n, k, binomial=True))


def perm(n, k=None):
    """``math.perm(n, k)`` lane by lane: n! / (n - k)!, 0 where k > n."""
    if k is None:
        return factorial(n)
    n, k = _ints(n, k)
    if (n < 0).any():
        raise ValueError("n must be a non-negative integer")
    if (k < 0).any():
        raise ValueError("k must be a non-negative integer")
    beyond = k > n
    return np.where(beyond, 0, _product_steps(n, np.where(beyond, 0, k), binomial=False))


def factorial(n):
    """``math.factorial(n)`` lane by lane."""
    (n,) = _ints(n)
    if (n < 0).any():
        raise ValueError("factorial() not defined for negative values")
    return _product_steps(n, n, binomial=False)


def _product_steps(n, k, binomial: bool):
    """prod(n - i for i < k), divided by k! when ``binomial``; OverflowError as soon as a
    lane's value (estimated in floats) may leave int64."""
    out = np.ones(n.shape, dtype=np.int64)
    size = np.ones(n.shape, dtype=np.float64)
    steps = int(k.max()) if k.size else 0
    for i in range(steps):
        live = i < k
        factor = n - i
        with np.errstate(all="ignore"):
            size = np.where(live, size * factor / (i + 1 if binomial else 1), size)
        if (size > _INT64_LIMIT).any():
            raise OverflowError("Python int too large to convert to C long")
        if binomial:
            g = np.gcd(out, i + 1)
            step = (out // g) * (factor // ((i + 1) // g))
        else:
            step = out * factor
        out = np.where(live, step, out)
    return out


_MISSING = object()


def lookup(table: dict, key, default=_MISSING):
    """``table.get(key, default)`` lane by lane (``table[key]`` without a default: Python's
    KeyError for the first lane whose key is missing), for a dict keyed by numbers: Python
    finds a key equal to the lane's (``4.0`` finds ``4``; NaN finds nothing)."""
    key = np.asarray(key)
    keys = sorted(table)
    values = np.asarray([table[k] for k in keys])
    keys = np.asarray(keys if keys else [0])
    at = np.minimum(np.searchsorted(keys, key), len(keys) - 1)
    found = keys[at] == key if table else np.zeros(key.shape, dtype=bool)
    if default is _MISSING:
        if not found.all():
            missing = key.reshape(-1)[np.argmin(found.reshape(-1))].item()
            raise KeyError(missing)
        return values[at]
    if not table:
        return np.broadcast_arrays(np.asarray(default), key)[0].copy()
    return np.where(found, values[at], default)


def nonempty_rows(mask, shape, ufunc: str):
    """``mask`` broadcast to ``shape`` (batch axis first), after checking that every example
    keeps some element: NumPy's ``ValueError`` for a reduction without identity (``max``,
    ``min``) of an empty array otherwise, as the example's own ``v[mask].max()`` raises."""
    mask = np.broadcast_to(mask, shape)
    if mask.size and not mask.any(axis=tuple(range(1, mask.ndim))).all() or (
            shape[1:] and 0 in shape[1:] and shape[0]):
        raise ValueError(f"zero-size array to reduction operation {ufunc} which has no "
                         "identity")
    return mask


class UndecidedSum(ArithmeticError):
    """`python_sum`: the examples' sums depend on which items are Python floats and which
    NumPy scalars, which the engine does not know; `vectorize` then runs the examples one by
    one (numpy.vectorize decides)."""


def python_sum(*items, start=0):
    """``sum([a, b, ...], start)`` of per-example numbers as Python 3.12 and later adds them
    (``Python/bltinmodule.c``, ``builtin_sum_impl``): from an int start, int items exactly
    until the first float; from there Python floats (``type(x) is float`` only) with
    Neumaier's compensated summation (``t = f + x``; ``c += (f - t) + x`` if ``|f| >= |x|``
    else ``(x - t) + f``; ``f = t``), int items added as floats without compensation, and at
    the end ``f + c`` where ``c`` is nonzero and finite; the first item that is neither
    (a NumPy scalar: ``np.sin(x)``, ``np.float64``) ends it, the compensation added, and
    the rest are added left to right as ``+`` adds them.

    Per example a float is a Python float or a NumPy scalar depending on how it was
    computed, which the engine does not track: each possible first NumPy scalar is tried
    (the left-to-right sum of earlier Pythons among them), and where the outcomes differ on
    some example, `UndecidedSum` is raised (`vectorize` replays the loop)."""
    values = [np.asarray(x) for x in items]
    first_numpy = range(-1 if np.asarray(start).dtype.kind == "f" else 0, len(values) + 1)
    outcomes = [_sum_until_numpy(start, values, k) for k in first_numpy]
    first = outcomes[-1]
    for other in outcomes[:-1]:
        same = (first == other) | ((first != first) & (other != other))
        if np.asarray(first).dtype.kind == "f":
            same &= np.signbit(first) == np.signbit(other)
        if not np.all(same):
            raise UndecidedSum("the sum depends on which items are Python floats")
    return first


def _sum_until_numpy(start, values, k):
    """`python_sum` where items ``k`` and later are NumPy scalars, earlier ones Python
    numbers (``k`` -1: ``start`` too)."""
    with np.errstate(all="ignore"):
        total, compensation, mode = start, None, "int"
        if k < 0:
            mode = "numpy"
        elif np.asarray(start).dtype.kind == "f":
            total, compensation, mode = np.asarray(start, dtype=float), 0.0, "float"
        for i, x in enumerate(values):
            integer = x.dtype.kind in "iub"
            if mode == "int" and integer and i < k:
                total = total + x
            elif mode == "float" and i < k and (integer or x.dtype == np.float64):
                if integer:
                    total = total + x
                    continue
                t = total + x
                compensation = compensation + np.where(
                    np.abs(total) >= np.abs(x), (total - t) + x, (x - t) + total)
                total = t
            elif mode == "int" and i < k and x.dtype == np.float64:
                total, compensation, mode = total + x, 0.0, "float"
            else:
                if mode == "float":
                    total = _compensated(total, compensation)
                total, mode = total + x, "numpy"
        if mode == "float":
            total = _compensated(total, compensation)
        return total


def _compensated(total, compensation):
    compensation = np.asarray(compensation)
    return np.where((compensation != 0) & np.isfinite(compensation),
                    total + compensation, total)


def _parts(z):
    z = np.asarray(z)
    if z.dtype.kind == "c":
        return z.real.astype(np.float64), z.imag.astype(np.float64)
    return z.astype(np.float64), np.zeros(z.shape)


def _complex(re, im):
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), dtype=np.complex128)
    out.real = re
    out.imag = im
    return out


def complex_mul(a, b):
    """``a * b`` where an operand is complex, as CPython computes it (the other made
    ``complex(x, 0.0)``): each part a difference or sum of two products, each rounded; NumPy's
    array loop may fuse a product into the sum (FMA), so ``z * z.conjugate()`` has an
    imaginary part of about 1e-16 where Python's is 0.0."""
    ar, ai = _parts(a)
    br, bi = _parts(b)
    with np.errstate(all="ignore"):
        return _complex(ar * br - ai * bi, ar * bi + ai * br)


def complex_div(a, b):
    """``a / b`` where an operand is complex, as CPython's ``_Py_c_quot`` computes it
    (Smith's method, dividing by the scaled denominator where NumPy multiplies by its
    reciprocal: the last bit differs); ``b == 0`` is the caller's check (ZeroDivisionError)."""
    ar, ai = _parts(a)
    br, bi = _parts(b)
    with np.errstate(all="ignore"):
        real_big = np.abs(br) >= np.abs(bi)
        # (a NaN part: neither branch, NaN + NaN j)
        ratio = np.where(real_big, bi / br, br / bi)
        denom = np.where(real_big, br + bi * ratio, br * ratio + bi)
        re = np.where(real_big, (ar + ai * ratio) / denom, (ar * ratio + ai) / denom)
        im = np.where(real_big, (ai - ar * ratio) / denom, (ai * ratio - ar) / denom)
        nan = np.isnan(br) | np.isnan(bi)
        if nan.any():
            re = np.where(nan, np.nan, re)
            im = np.where(nan, np.nan, im)
        return _complex(re, im)


def round_int(n, ndigits):
    """Python's ``round(n, ndigits)`` of ints: ``n`` itself for ``ndigits >= 0``, else the
    nearest multiple of ``10 ** -ndigits``, ties to the even multiple, exactly (NumPy rounds
    ints through float64: ``np.round(2**62 + 5, -1)`` is 2**62, Python's 2**62 + 10, and a
    uint64 beyond int64 comes back 0), in the dtype of ``n``; a result beyond it is the
    caller's check (OverflowError)."""
    n = np.asarray(n)
    ndigits = operator.index(ndigits)
    if ndigits >= 0:
        return n.copy()
    work = n.astype(np.uint64 if n.dtype == np.uint64 else np.int64)
    q = 10 ** -ndigits
    if q > np.iinfo(work.dtype).max:
        return np.zeros_like(n)     # every value within half of it (the caller checks)
    q = work.dtype.type(q)
    with np.errstate(all="ignore"):
        rest = work % q
        base = work - rest
        up = (rest > q // 2) | ((rest == q // 2) & ((base // q) % 2 == 1))
        return (base + q * up.astype(work.dtype)).astype(n.dtype)


_MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31])


def weekday(year, month, day):
    """``calendar.weekday(year, month, day)`` lane by lane (0 is Monday): the weekday of
    ``datetime.date(year, month, day)``, a year outside 1..9999 first brought in as
    `calendar` does (``2000 + year % 400``); Python's ValueError where a month is not in
    1..12 or a day not in its month (the per-example loop then says which example's). The
    day count is Hinnant's civil-from-days arithmetic, exact in int64."""
    year, month, day = _ints(year, month, day)
    year = np.where((year < 1) | (year > 9999), 2000 + year % 400, year)
    if ((month < 1) | (month > 12)).any():
        raise ValueError("month must be in 1..12")
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    last = _MONTH_DAYS[month] + ((month == 2) & leap)
    if ((day < 1) | (day > last)).any():
        raise ValueError("day is out of range for month")
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return (era * 146097 + doe - 719468 + 3) % 7      # (1970-01-01 was a Thursday)


# --------------------------------------------------------------------- math.fsum, math.prod
def _two_sum(a, b):
    """(s, e): s = fl(a + b) and e its exact error (Knuth's TwoSum: any order of magnitude,
    the same pair CPython's swap then ``lo = y - (hi - x)`` gives)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def fsum(rows):
    """``math.fsum(row)`` for each row of ``rows`` (the items along the last axis): the
    exactly rounded sum, bit for bit CPython's (``Modules/mathmodule.c``, ``math_fsum``:
    Shewchuk's partials, then the sum of the partials from the top with the half-even fix
    across partials). Here every row keeps one slot per item: a partial CPython drops for
    being zero stays as a zero, which changes no other partial (``x + 0.0`` is ``x``;
    ``0.0 + y`` moves ``y`` up as CPython's swap does), and the sum from the top passes
    zeros by (the partial below the one where it turns inexact is the nearest nonzero one,
    CPython's ``p[n-1]``). Infinities and NaN as CPython: their sum (``-inf + inf``:
    ValueError), the partials so far dropped; an intermediate overflow of finite items:
    OverflowError (`vectorize` then replays the loop, which raises for the first failing
    example). Selections are arithmetic on 0/1 masks, the partials being finite."""
    x = np.asarray(rows)
    if x.dtype.kind not in "biuf":
        raise TypeError(f"must be real number, not {x.dtype}")
    x = x.astype(np.float64)
    shape, k = x.shape[:-1], x.shape[-1]
    items = [np.ascontiguousarray(x[..., t]) for t in range(k)]
    p: list = []
    special = infinities = None
    all_finite = bool(np.isfinite(x).all())
    with np.errstate(all="ignore"):
        for item in items:
            v = item
            for j, y in enumerate(p):
                v, p[j] = _two_sum(v, y)
            if all_finite:
                # (an overflow stays in the top partial, inf or NaN from there on: checked
                # once, after the last item)
                p.append(v)
                continue
            finite = np.isfinite(item)
            # (NaN and infinite items: counted, this row's partials dropped)
            if not np.isfinite(v[finite]).all():
                raise OverflowError("intermediate overflow in fsum")
            if special is None:
                special, infinities = np.zeros(shape), np.zeros(shape)
            special = np.where(finite, special, special + item)
            infinities = np.where(np.isinf(item), infinities + item, infinities)
            p = [np.where(finite, y, 0.0) for y in p] + [np.where(finite, v, 0.0)]
        if all_finite and k and not np.isfinite(p[-1]).all():
            raise OverflowError("intermediate overflow in fsum")
        if special is not None and (np.isnan(infinities) & (special != 0)).any():
            raise ValueError("-inf + inf in fsum")
        hi = np.zeros(shape)
        lo = np.zeros(shape)
        below = np.zeros(shape)     # the sign of the nearest nonzero partial below the stop
        signs = [np.zeros(shape)]   # signs[j]: that of the nearest nonzero one below slot j
        for y in p[:-1]:
            sign = np.sign(y)
            signs.append(sign + (sign == 0) * signs[-1])
        done = np.zeros(shape, dtype=bool)
        total = np.zeros(shape)
        for j in range(k - 1, -1, -1):
            total, low = _two_sum(total, p[j])      # (|total| >= |p[j]|: exact as CPython's)
            stops = (low != 0) & ~done
            hi += total * stops
            lo += low * stops
            below += signs[j] * stops
            done |= stops
        hi += total * ~done                          # (never inexact: the exact sum)
        twice = lo * 2.0
        up = hi + twice
        hi = hi + twice * ((lo * below > 0) & (up - hi == twice))
        hi = hi + 0.0       # no partial left: CPython's 0.0 (never -0.0)
        if not np.isfinite(hi).all():
            raise OverflowError("a sum of partials at the edge of the double range")
        if special is not None:
            return np.where(special != 0, special, hi)
        return hi


def prod(rows, start=1):
    """``math.prod(row, start=start)`` for each row of ``rows`` (the items along the last
    axis): `prod_items` of the row's items."""
    x = np.asarray(rows)
    return prod_items(*[x[..., t] for t in range(x.shape[-1])], start=start,
                      shape=x.shape[:-1])


def prod_items(*items, start=1, shape=None):
    """``math.prod([a, b, ...], start=start)`` of per-example Python numbers, lane by lane:
    Python's product from ``start``, left to right. While the product and the items are ints
    (bools) it is an exact int: computed in int64 where it fits, else OverflowError
    (estimated in floats, which can fire a little early); from the first float on, float64
    products, each rounded as Python rounds it (an int item converted to float first).
    Items of any other dtype (a NumPy float32 or uint64 value, whose products differ):
    TypeError. `vectorize` replays the per-example loop where this raises, which decides."""
    values = [np.asarray(v) for v in items]
    out = np.asarray(start)
    for v in [out, *values]:
        if not (v.dtype.kind in "bi" or v.dtype.kind == "u" and v.dtype.itemsize < 8
                or v.dtype == np.float64):
            raise TypeError(f"math.prod of {v.dtype} items is not modelled")
    if shape is None:
        shape = np.broadcast_shapes(out.shape, *[v.shape for v in values])
    out = np.broadcast_to(out if out.dtype.kind == "f" else out.astype(np.int64), shape)
    size = np.abs(out.astype(np.float64))
    with np.errstate(all="ignore"):
        for v in values:
            if out.dtype.kind == "f" or v.dtype.kind == "f":
                out = out.astype(np.float64) * v.astype(np.float64)
                continue
            item = v.astype(np.int64)
            size = size * np.abs(item.astype(np.float64))
            if (size > _INT64_LIMIT).any():
                raise OverflowError("Python int too large to convert to C long")
            out = out * item
    return np.broadcast_to(out, shape).copy()


def prod_numpy(rows, start=1):
    """`prod` of NumPy scalars per example (`vmap`): `prod_items_numpy` of the row's items."""
    x = np.asarray(rows)
    return prod_items_numpy(*[x[..., t] for t in range(x.shape[-1])], start=start,
                            shape=x.shape[:-1])


def prod_items_numpy(*items, start=1, shape=None):
    """``math.prod([a, b, ...], start=start)`` where each example's items are NumPy
    scalars (or Python numbers) of these arrays' dtypes: `prod_items`, whose products are
    theirs where every item is an int64, a bool or a float64 and no int product leaves int64
    (there NumPy's int64 wraps, and a Python int does not): TypeError for other dtypes
    (a float32 product stays float32, an int8 one wraps in int8), OverflowError where an int
    product may leave int64. `vmap` runs the per-example loop where this raises."""
    for v in [np.asarray(start), *[np.asarray(v) for v in items]]:
        if v.dtype not in (np.int64, np.bool_, np.float64):
            raise TypeError(f"math.prod of NumPy {v.dtype} items is not modelled")
    return prod_items(*items, start=start, shape=shape)


# --------------------------------------------------------------------- math.dist
_DBL_MIN_EXPONENT = -1021   # below 2**-1021 CPython rescales (subnormal differences)


def _fast_two_sum(a, b):
    s = a + b
    return s, b - (s - a)


def _dekker_square(x):
    """(hi, lo) of x * x as CPython's ``dl_mul(x, x)`` computes it (Veltkamp's split)."""
    t = x * _SPLIT
    hi = t - (t - x)
    lo = x - hi
    p, q = _fast_two_sum(hi * hi, hi * lo + lo * hi)
    return p, q + lo * lo


def dist(p, q):
    """``math.dist(p, q)`` for each pair of rows (the coordinates along the last axis): the
    Euclidean norm of ``|p - q|`` as CPython computes it (``Modules/mathmodule.c``,
    ``vector_norm``: the differences scaled by a power of two, squared and summed without
    loss, a square root and one differential correction), the same bits. An infinite
    difference gives inf, else a NaN gives NaN. Rows of other lengths: Python's ValueError;
    differences below 2**-1021 (CPython rescales them): ArithmeticError; `vectorize` then
    replays the loop, which decides."""
    p, q = np.asarray(p), np.asarray(q)
    for a in (p, q):
        if a.dtype.kind not in "biuf":
            raise TypeError("must be real number, not " + str(a.dtype))
    if p.ndim < 1 or q.ndim < 1 or p.shape[-1] != q.shape[-1]:
        raise ValueError("both points must have the same number of dimensions")
    with np.errstate(all="ignore"):
        d = np.abs(p.astype(np.float64) - q.astype(np.float64))
        d, _ = np.broadcast_arrays(d, np.empty(np.broadcast_shapes(p.shape, q.shape)))
        nan = np.isnan(d).any(axis=-1)
        top = np.max(np.where(np.isnan(d), 0.0, d), axis=-1, initial=0.0)
        if ((top > 0) & (top < 2.0 ** _DBL_MIN_EXPONENT)).any():
            raise ArithmeticError("math.dist of subnormal differences is not modelled")
        special = np.isinf(top) | nan | (top == 0) | (d.shape[-1] <= 1)
        plain = np.where(nan, np.nan, top)
        if special.all():
            return np.where(np.isinf(top), top, plain)
        _, e = np.frexp(top)
        scale = np.ldexp(1.0, -e)
        csum = np.ones(top.shape)
        frac1 = np.zeros(top.shape)
        frac2 = np.zeros(top.shape)
        for i in range(d.shape[-1]):
            hi, lo = _dekker_square(d[..., i] * scale)
            csum, low = _fast_two_sum(csum, hi)
            frac1 = frac1 + lo
            frac2 = frac2 + low
        h = np.sqrt(csum - 1.0 + (frac1 + frac2))
        hi, lo = _dekker_square(h)
        hi, lo = -hi, -lo                # dl_mul(-h, h): the negated square, exactly
        csum, low = _fast_two_sum(csum, hi)
        frac1 = frac1 + lo
        frac2 = frac2 + low
        x = csum - 1.0 + (frac1 + frac2)
        h = h + x / (2.0 * h)
        out = h / scale
        return np.where(special, np.where(np.isinf(top), top, plain), out)


@functools.cache
def dist_is_cpythons() -> bool:
    """Whether `dist` gives this Python's ``math.dist`` bits on a fixed sample of hard pairs
    (the algorithm is CPython 3.11's; another version may round otherwise: then `math.dist`
    of per-example points is refused)."""
    rng = np.random.default_rng(31)
    p = rng.normal(size=(400, 3)) * 10.0 ** rng.integers(-30, 30, size=(400, 3))
    q = p * (1 + rng.normal(size=(400, 3)) * 1e-9)
    q[::4] = rng.normal(size=(100, 3))
    for k in (2, 3):
        want = [math.dist(a, b) for a, b in zip(p[:, :k].tolist(), q[:, :k].tolist())]
        if dist(p[:, :k], q[:, :k]).tolist() != want:
            return False
    return True


# --------------------------------------------------------------------- Python int methods
def bit_length(n):
    """``n.bit_length()`` of Python ints, lane by lane (ints of any NumPy int dtype, bools):
    the number of bits of ``abs(n)``, 0 for 0; exact for the whole int64 and uint64 range
    (``abs(-2**63)`` is 2**63: 64 bits)."""
    n = np.asarray(n)
    if n.dtype.kind not in "biu":
        raise TypeError(f"'{n.dtype}' object has no attribute 'bit_length'")
    if n.dtype.kind == "i":
        n = np.abs(n.astype(np.int64)).astype(np.uint64)    # (-2**63 wraps to 2**63)
    else:
        n = n.astype(np.uint64)
    bits = np.zeros(n.shape, dtype=np.int64)
    for shift in (32, 16, 8, 4, 2, 1):
        high = n >> np.uint64(shift)
        above = high != 0
        bits += np.where(above, shift, 0)
        n = np.where(above, high, n)
    return bits + (n != 0)


_MODULUS_LIMIT = 2 ** 32    # (|m| - 1) ** 2 fits uint64: products reduce exactly


def pow_mod(a, b, m):
    """``pow(a, b, m)`` of Python ints, lane by lane: ``a ** b % m`` by squaring, in uint64
    (exact for |m| <= 2**32), the result's sign that of ``m`` as Python's ``%`` gives it.
    ``m == 0``: Python's ValueError; a negative exponent (Python inverts ``a`` modulo
    ``m``) or |m| beyond 2**32: ArithmeticError; `vectorize` then replays the loop, which
    decides."""
    a, b, m = (np.asarray(v) for v in (a, b, m))
    for v in (a, b, m):
        if v.dtype.kind not in "biu":
            raise TypeError("pow() 3rd argument not allowed unless all arguments are "
                            "integers")
        if v.dtype == np.uint64 and (v > np.uint64(2 ** 63 - 1)).any():
            raise ArithmeticError("a uint64 beyond int64 in pow(a, b, m)")
    a, b, m = np.broadcast_arrays(*(v.astype(np.int64) for v in (a, b, m)))
    if (m == 0).any():
        raise ValueError("pow() 3rd argument cannot be 0")
    if (b < 0).any():
        raise ArithmeticError("pow(a, -b, m) inverts a modulo m: not modelled")
    size = np.abs(m).astype(np.uint64)          # (|-2**63| as uint64: 2**63)
    if (size > np.uint64(_MODULUS_LIMIT)).any():
        raise ArithmeticError("pow(a, b, m) with |m| beyond 2**32: not modelled")
    base = np.mod(a, size.astype(np.int64)).astype(np.uint64)
    out = np.ones(a.shape, dtype=np.uint64) % size
    e = b.astype(np.uint64)
    while (e != 0).any():
        odd = (e & np.uint64(1)) != 0
        out = np.where(odd, out * base % size, out)
        base = base * base % size
        e = e >> np.uint64(1)
    out = out.astype(np.int64)
    return np.where((m < 0) & (out != 0), out - size.astype(np.int64), out)


def bit_count(n):
    """``n.bit_count()`` lane by lane: the number of ones in ``abs(n)`` (Python's and NumPy's
    ints alike), exact over the int64 and uint64 range."""
    n = np.asarray(n)
    if n.dtype.kind not in "biu":
        raise TypeError(f"'{n.dtype}' object has no attribute 'bit_count'")
    if n.dtype.kind == "i":
        n = np.abs(n.astype(np.int64)).astype(np.uint64)
    else:
        n = n.astype(np.uint64)
    # (the bits counted in pairs, nibbles and bytes, then the bytes summed: SWAR)
    n = n - ((n >> np.uint64(1)) & np.uint64(0x5555555555555555))
    n = (n & np.uint64(0x3333333333333333)) + ((n >> np.uint64(2)) & np.uint64(0x3333333333333333))
    n = (n + (n >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((n * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)
