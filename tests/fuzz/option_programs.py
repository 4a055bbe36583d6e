"""Random calls of `vectorize` with numpy.vectorize's options, against numpy.vectorize itself.

Each case draws a per-example function of this module (plain functions with defaults and
keyword-only parameters, a method, a callable instance, a `functools.partial`, several
outputs of different dtypes, string, complex and bool results, results that are arrays per
example), the options (``otypes`` of every kind, datetimes included; ``excluded`` by
position and by name; ``signature`` with one or several core dimensions; ``cache``) and
the arguments (dtypes from bool to complex, NaN, infinities and signed zeros, batches and
core dimensions of size 0 and 1, broadcasting). Not drawn: an excluded list with arguments
that are all 0-d (they reach the code as NumPy scalars, whose `+` of a list broadcasts
where Python's raises TypeError: not yet followed). `run_case` compares the outcome with
numpy.vectorize's: equal values, shapes and dtypes (an object array item by item, each of
the same type), or the same exception type. A refusal (`VectorizeError` with
``fallback="error"``) is counted, not compared.

Cases of `vmap` of a `vectorize` object (at one to three levels, ``in_axes`` and
``out_axes`` drawn) are compared with the loop of loops over numpy.vectorize
(`vmap_case`).
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np


# ------------------------------------------------------------------ per-example functions
def scaled(a, b=2, *, c=3):
    return a * b + c


def three(a, b, c):
    return a * b - c


def mixed(a, b):
    return a > b, a - b, a * 1j + b


def label(a):
    return "neg" if a < 0 else "pos"


def as_complex(a):
    return complex(a, 1)


def positive(a):
    return a > 0


def rounded(a, n=1):
    return round(a, n)


def guarded(a, b):
    if b != 0:
        return a / b
    return math.copysign(1.0, a)


def pair(a):
    return np.array([a, -a])


def as_int(a):
    return int(a) if a == a and abs(a) < 1e18 else -1


def core_sum(v):
    return v.sum()


def core_dot(v, w):
    return v @ w


def core_matmul(m, w):
    return m @ w


def core_norm(v):
    return v / math.sqrt(float((v * v).sum()) + 1.0)


def core_stats(v):
    return v.min(initial=np.inf), len(v) * 1.0


def core_scaled(v, k=2.0):
    return v * k


class Model:
    k = 3

    def method(self, a, b=1.5):
        return a * self.k - b

    def __call__(self, a, b):
        if a > b:
            return a - b * self.k
        return b


PLAIN = [
    (scaled, 1), (three, 3), (mixed, 2), (label, 1), (as_complex, 1), (positive, 1),
    (rounded, 1), (guarded, 2), (pair, 1), (as_int, 1), (Model().method, 1), (Model(), 2),
]
CORE = [
    (core_sum, "(n)->()", ["n"]), (core_dot, "(n),(n)->()", ["n", "n"]),
    (core_matmul, "(m,n),(n)->(m)", ["mn", "n"]), (core_norm, "(n)->(n)", ["n"]),
    (core_stats, "(n)->(),()", ["n"]), (core_scaled, "(n)->(n)", ["n"]),
]
OTYPES = ["d", "f", "e", "l", "i", "b", "B", "?", "F", "D", "O", "U", "S", "M8[s]", "m8[D]",
          "M", "m", float, int, complex, bool, object]
DTYPES = [np.float64, np.float64, np.float32, np.int64, np.int8, np.uint8, np.bool_,
          np.complex128]


def _values(rng, shape, dtype):
    """Arrays (0-d ones too), never NumPy scalars: numpy.vectorize hands a NumPy scalar
    argument on as it is, and sizes a string otype by its NumPy type (`<U5` for
    `np.True_`, `<U64` for a complex128), which `vectorize` does not follow."""
    a = np.asarray(np.random.default_rng(rng.randrange(2**32)).normal(size=shape) * 3)
    if a.size and rng.random() < 0.3:
        a.flat[rng.randrange(a.size)] = rng.choice([np.nan, np.inf, -np.inf, -0.0, 0.0])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype is np.bool_:
            return np.asarray(a > 0)    # (a 0-d array, never a NumPy scalar)
        if dtype is np.complex128:
            return a + 1j * a[::-1] if a.ndim else np.asarray(a + 0.5j)
        return a.astype(dtype)


def case(rng):
    """(description, pyfunc, args, kwargs, options) of one call (``rng``: random.Random)."""
    if rng.random() < 0.3:
        f, signature, cores = rng.choice(CORE)
        dims = {c: rng.choice([0, 1, 1, 2, 3]) for c in "mn"}
        loop = tuple(rng.choice([0, 1, 2, 3]) for _ in range(rng.randint(0, 2)))
        # (float32 with core_norm's Python float: numpy.vectorize's NEP 50 promotion, which
        # the batched code does not follow, docs/semantics.md)
        dtype = rng.choice([np.float64, np.int64] + [np.float32] * (f is not core_norm))
        args = [_values(rng, loop[rng.randint(0, len(loop)):] + tuple(dims[c] for c in core),
                        dtype) for core in cores]
        options, kwargs = {"signature": signature}, {}
        if f is core_scaled and rng.random() < 0.5:
            f = functools.partial(core_scaled, k=rng.choice([0.5, np.float64(3.0)]))
        if rng.random() < 0.15:
            n_out = signature.count("()") + signature.count("(n)") - len(cores) + \
                (signature.split("->")[1].count("(n)"))
            options["otypes"] = [rng.choice([float, np.float32, object])] * max(1, n_out)
        return f"{getattr(f, '__name__', 'partial')} {options} {[a.shape for a in args]} " \
               f"{dtype.__name__}", f, args, kwargs, options
    f, arity = rng.choice(PLAIN)
    loop = tuple(rng.choice([0, 1, 2, 3, 5]) for _ in range(rng.randint(0, 2)))
    dtype = rng.choice(DTYPES)
    while (f is guarded and dtype is np.float32) or (type(f) is Model and dtype is np.bool_):
        # (numpy.vectorize's output type depends on the first example's path there: a
        # float32 or a Python float, a bool or an int; docs/semantics.md)
        dtype = rng.choice(DTYPES)
    args = [_values(rng, loop[rng.randint(0, len(loop)):], dtype) for _ in range(arity)]
    kwargs, options = {}, {}
    if f is scaled:
        choice = rng.randrange(5)
        if choice == 1:
            kwargs["b"] = _values(rng, loop, rng.choice(DTYPES))
        elif choice == 2:
            kwargs["c"] = rng.choice([1.5, [1.0, 2.0]]) if loop else 1.5
            options["excluded"] = {"c"}
        elif choice == 3:
            f = functools.partial(scaled, b=rng.choice([4, 0.5]))
        elif choice == 4:
            f = functools.partial(scaled, c=2.0)
            kwargs["c"] = _values(rng, loop, dtype)
    elif f is three and rng.random() < 0.5:
        position = rng.randrange(3)
        args[position] = rng.choice([2.0, [1.0]] if loop else [2.0])
        options["excluded"] = {position}
        if position == 2 and rng.random() < 0.5:       # by name, passed by keyword
            kwargs["c"] = args.pop()
            options["excluded"] = {"c"}
    elif f is rounded and rng.random() < 0.5 and dtype not in (np.int8, np.uint8):
        # (not of narrow ints: `round(n, k)` beyond uint8 with `k` not a literal is not
        # checked, tests/test_hunt_regressions.py names it)
        args.append(rng.choice([0, 2, -1, np.array([0, 1, 2])[:len(loop[-1:]) or 1]]))
    if rng.random() < 0.35:
        n_out = 3 if f is mixed else 1
        options["otypes"] = [rng.choice(OTYPES) for _ in range(n_out)]
    if f is pair:
        # (an array per example: numpy.vectorize stores it in an object array only; without
        # one `vectorize` stacks the arrays, as np.array of the results does, where
        # numpy.vectorize raises: docs/semantics.md)
        options["otypes"] = [object]
    if rng.random() < 0.1:
        options["cache"] = True
    name = getattr(f, "__name__", None) or type(f).__name__
    return (f"{name} {options} {kwargs and list(kwargs)} {[np.shape(a) for a in args]} "
            f"{np.dtype(dtype).name}"), f, args, kwargs, options


def _outcome(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except Exception as exc:  # noqa: BLE001 -- the outcome compared
            return None, exc


def _same(got, expected) -> str:
    """'' where ``got`` is ``expected`` (values, shapes, dtypes, item types of object
    arrays), else what differs."""
    if isinstance(expected, tuple):
        if not isinstance(got, tuple) or len(got) != len(expected):
            return f"{type(got).__name__} where numpy.vectorize gives a tuple"
        return next((p for p in map(_same, got, expected) if p), "")
    if type(got) is not type(expected):
        return f"{type(got).__name__} where numpy.vectorize gives {type(expected).__name__}"
    if got.shape != expected.shape or got.dtype != expected.dtype:
        return f"{got.dtype}{got.shape} where numpy.vectorize gives " \
               f"{expected.dtype}{expected.shape}"
    if expected.dtype == object:
        for g, e in zip(got.flat, expected.flat):
            if type(g) is not type(e) or not np.array_equal(g, e, equal_nan=np.asarray(
                    e).dtype.kind in "fc"):
                return f"object item {g!r} where numpy.vectorize gives {e!r}"
        return ""
    if expected.dtype.kind in "mM":     # (NaT is not equal to itself)
        got, expected = got.view(np.int64), expected.view(np.int64)
    equal_nan = expected.dtype.kind in "fc"
    if equal_nan and got.size:
        # (sums and products of core dimensions: NumPy's order of the additions is not
        # the loop's)
        rtol = 1e-5 if expected.dtype in (np.float32, np.complex64) else 1e-12
        close = np.allclose(got, expected, rtol=rtol, atol=rtol, equal_nan=True) and \
            np.array_equal(np.isinf(got), np.isinf(expected))
        return "" if close else f"values {got!r} where numpy.vectorize gives {expected!r}"
    if not np.array_equal(got, expected, equal_nan=equal_nan):
        return f"values {got!r} where numpy.vectorize gives {expected!r}"
    return ""


def run_case(f, args, kwargs, options) -> tuple[str, str]:
    """(kind, detail): ``ok``, ``refused`` (a VectorizeError), ``both raise``, ``empty``
    (numpy.vectorize needs otypes on an empty batch; `vectorize` does not), ``stacked``
    (an array per example: numpy.vectorize raises storing it, `vectorize` stacks them),
    ``mismatch`` or ``internal`` (an exception numpy.vectorize does not raise)."""
    from vectorize import VectorizeError, vectorize
    expected, exc = _outcome(lambda: np.vectorize(f, **options)(*args, **kwargs))
    got, got_exc = _outcome(lambda: vectorize(f, fallback="error", **options)(*args, **kwargs))
    if isinstance(got_exc, VectorizeError):
        return "refused", str(got_exc).splitlines()[0]
    if exc is not None:
        if got_exc is not None and isinstance(got_exc, type(exc)):
            return "both raise", type(exc).__name__
        if got_exc is None and "size 0 inputs" in str(exc):
            return "empty", ""
        if got_exc is None and "setting an array element with a sequence" in str(exc):
            # an array per example, stacked as np.array of the results stacks them
            # (docs/semantics.md): numpy.vectorize cannot store it
            return "stacked", ""
        return "mismatch", f"numpy.vectorize raises {exc!r}; got " + (
            repr(got_exc) if got_exc is not None else f"a result {got!r}")
    if got_exc is not None:
        return "internal", f"{type(got_exc).__name__}: {got_exc}"
    problem = _same(got, expected)
    return ("mismatch", problem) if problem else ("ok", "")


# ---------------------------------------------------------------- vmap of a vectorize object
def vmap_case(rng):
    """(description, vectorize options, pyfunc, levels [(in_axes, out_axes)], args)."""
    f, signature = rng.choice([(guarded, None), (mixed, None), (Model(), None),
                               (core_norm, "(n)->(n)"), (core_dot, "(n),(n)->()")])
    arity = 1 if f is core_norm else 2
    shapes = [(3,)] * arity if signature else [
        tuple(rng.choice([1, 2, 3]) for _ in range(rng.randint(0, 2)))] * arity
    if not signature and arity == 2 and rng.random() < 0.3:
        shapes[1] = shapes[1][1:]
    levels = []
    for _ in range(rng.randint(1, 3)):
        size = rng.choice([1, 2, 3])
        axes = [None if rng.random() < 0.3 else rng.randint(-len(s) - 1, len(s))
                for s in shapes]
        if all(a is None for a in axes):
            axes[0] = 0
        shapes = [s if a is None else s[:a % (len(s) + 1)] + (size,) + s[a % (len(s) + 1):]
                  for s, a in zip(shapes, axes)]
        levels.append((tuple(axes), rng.choice([0, 0, -1, 1]) if f is guarded else 0))
    # (not float32: numpy.vectorize's output type depends on the first example's value and
    # path there, docs/semantics.md, so each example's call may differ from the batch's)
    dtype = rng.choice([np.float64, np.int64])
    args = [_values(rng, s, dtype) for s in shapes]
    options = {"signature": signature} if signature else {}
    name = getattr(f, "__name__", None) or type(f).__name__
    return f"vmap^{len(levels)}(vectorize({name}, {options})) {levels} {shapes}", options, f, \
        levels, args
