"""Differential harness for the functions of real scientific packages (``tests/real_pkgs``).

Each case module (``psychrolib_cases.py``, ``fluids_cases.py``, ...) imports real scalar
functions, unchanged, from an installed package and says, per positional argument, the domain a
user of that function passes (`Dom`: a range, log-spaced or not, and edge values the function
takes: 0, negatives, NaN, inf where its documentation allows them). A `Case` runs:

- ``vectorize(f)`` (default settings, ``fallback="error"``) against ``numpy.vectorize(f)``
  (Python scalars, so Python semantics: equal values, dtype and shape where it returns, the same
  exception, type and message, where it raises: the first failing example's, as the loop's);
- ``vmap(f)`` against the per-example loop over NumPy scalars (``np.stack([f(*x_n) ...])``), on
  the examples where the loop returns (what ``vmap`` does where the loop raises is a documented
  divergence, ``docs/semantics.md``);

(a function that takes a point as a vector per example is given a `Rows` argument and
numpy.vectorize's ``signature=``, for both) at N = 0, 1, 5 and 1000 (plus any draws the
caller adds, e.g. hypothesis-drawn ones) and classifies each into ``equal`` / ``refused`` (a
located ``VectorizeError``) / ``wrong`` (different values, dtype, shape or exception type) /
``crash`` (any other exception from the engine where the reference returns).
"""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass

import numpy as np
from real_corpus import _call, _compare, _Mismatch

SIZES = (0, 1, 5, 1000)
RTOL = 1e-12
STATUSES = ("equal", "refused", "wrong", "crash")
_LOCATED = re.compile(r"^\S.*:\d+:\d+: ", re.M)


@dataclass(frozen=True)
class Dom:
    """One argument's domain: values in [lo, hi] (log-uniform where `log`), integers where
    `integer`, with `edges` sprinkled in (5 % of a large draw, one in every draw of 5)."""
    lo: float
    hi: float
    log: bool = False
    integer: bool = False
    edges: tuple = ()


@dataclass(frozen=True)
class Rows:
    """An argument that is a vector per example (a point's coordinates, for a function
    vectorized with ``signature=``): a `Dom` per component, drawn as the columns of an
    (n, k) array."""
    doms: tuple


def batched(d) -> bool:
    return isinstance(d, (Dom, Rows))


@dataclass
class Case:
    name: str            # "package.function", as the report shows it
    func: object
    args: tuple          # a Dom (or Rows) per batched argument; anything else as it is
    rtol: float = RTOL
    rtol_reason: str = ""
    signature: str | None = None    # numpy.vectorize's, where an argument is a `Rows`

    def draw(self, rng, n):
        return tuple(_draw(d, rng, n) if batched(d) else d for d in self.args)

    @property
    def in_axes(self):
        return tuple(0 if batched(d) else None for d in self.args)


def _draw(dom, rng, n):
    if isinstance(dom, Rows):
        return np.stack([_draw(d, rng, n) for d in dom.doms], axis=-1)
    if dom.integer:
        vals = rng.integers(int(dom.lo), int(dom.hi) + 1, size=n)
    elif dom.log:
        vals = np.exp(rng.uniform(math.log(dom.lo), math.log(dom.hi), size=n))
    else:
        vals = rng.uniform(dom.lo, dom.hi, size=n)
    if dom.edges and n:
        k = max(1, n // 20) if n >= 5 else 0
        where = rng.choice(n, size=k, replace=False)
        vals[where] = rng.choice(np.asarray(dom.edges, dtype=vals.dtype), size=k)
    return vals


HOSTILE = (0.0, -0.0, -1.0, math.inf, -math.inf, math.nan)


def hostile(case, rng, n, rate=0.1):
    """A draw of the domain with `HOSTILE` values (zeros, a negative, infinities, NaN) in
    ``rate`` of each float argument: what a user's data holds outside the documented domain,
    where the function raises or returns what Python computes."""
    args = case.draw(rng, n)
    out = []
    for a, d in zip(args, case.args):
        if isinstance(d, Dom) and not d.integer and n:
            a = a.copy()
            k = max(1, int(n * rate))
            a[rng.choice(n, size=k, replace=False)] = rng.choice(HOSTILE, size=k)
        out.append(a)
    return tuple(out)


def default_draws(case, seed=0):
    """N = 0, 1, 5, 1000 in the domain, and N = 5, 200 with `hostile` values."""
    rng = np.random.default_rng(seed)
    return [case.draw(rng, n) for n in SIZES] + [hostile(case, rng, n) for n in (5, 200)]


_WRAPPED: dict = {}


def _wrapped(case, mode, make):
    """One wrapped function per case and mode, kept: later draws call it again (warm), as a
    user calls a decorated function many times."""
    key = (case.name, mode)
    if key not in _WRAPPED:
        _WRAPPED[key] = make()
    return _WRAPPED[key]


def _otypes(ref):
    outs = ref if isinstance(ref, tuple) else (ref,)
    return [np.asarray(o).dtype.char for o in outs]


def _batch_len(case, args):
    return next(len(a) for a, d in zip(args, case.args) if batched(d))


def _refusal(exc):
    msg = str(exc)
    if not _LOCATED.search(msg) or "<unknown>" in msg:
        return "crash", f"refusal without a location: {msg}"
    return "refused", msg


def check_vectorize(case, draws):
    """("equal" | "refused" | "wrong" | "crash", detail) of vectorize(f) against
    numpy.vectorize(f) on every draw."""
    from vectorize import vectorize
    from vectorize.errors import VectorizeError

    # a list or tuple passed as it is (a table of coefficients) is excluded, as its users
    # exclude it: numpy.vectorize would broadcast it as an array
    excluded = {k for k, d in enumerate(case.args) if isinstance(d, (list, tuple))}
    sig = case.signature
    ref_f = np.vectorize(case.func, excluded=excluded, signature=sig)
    try:
        ours = _wrapped(case, "vectorize", lambda: vectorize(case.func, fallback="error",
                                                              excluded=excluded, signature=sig))
    except VectorizeError as exc:
        return _refusal(exc)
    except Exception as exc:  # noqa: BLE001 - classified
        return "crash", f"wrapping: {type(exc).__name__}: {exc}"
    otypes = None
    for args in sorted(draws, key=lambda a: _batch_len(case, a), reverse=True):
        n = _batch_len(case, args)
        what = f"{case.name} N={n}"
        if n == 0:
            if otypes is None or "O" in otypes:
                # no returning draw to learn the dtypes from, or an object array because a
                # draw's first example returned None (a dtype that depends on the data: an
                # empty batch has none): no values
                got, exc = _call(ours, args)
                if isinstance(exc, VectorizeError):
                    return _refusal(exc)
                continue
            ref, ref_exc = _call(np.vectorize(case.func, otypes=otypes, excluded=excluded,
                                              signature=sig), args)
        else:
            ref, ref_exc = _call(ref_f, args)
            if ref_exc is None and otypes is None:
                otypes = _otypes(ref)
        got, exc = _call(ours, args)
        if isinstance(exc, VectorizeError):
            return _refusal(exc)
        if ref_exc is not None:
            if exc is None and _array_results(ref_exc):
                # a documented divergence (docs/semantics.md): per-example array results
                # are stacked, as np.array of the loop's results stacks them
                try:
                    _compare(got, _stacked_loop(case, args), case.rtol, what)
                except _Mismatch as m:
                    return "wrong", f"{m} (stacked array results)"
                continue
            if exc is None:
                return "wrong", (f"{what}: numpy.vectorize raises {type(ref_exc).__name__}: "
                                 f"{ref_exc}; ours returns")
            if type(exc) is not type(ref_exc) or str(exc) != str(ref_exc):
                return "wrong", (f"{what}: numpy.vectorize raises {type(ref_exc).__name__}: "
                                 f"{ref_exc}; ours {type(exc).__name__}: {exc}")
            continue
        if exc is not None:
            return "crash", f"{what}: {type(exc).__name__}: {exc}"
        try:
            _compare(got, ref, case.rtol, what)
        except _Mismatch as m:
            if n == 0 and _types_of_ones(case, args, excluded) == _otypes(got):
                # a result type that depends on the values (`h = 0` or a float per
                # branch): an empty batch has none; numpy.vectorize needs otypes there, and
                # vectorize gives the types an example of ones gives (docs/semantics.md)
                continue
            return "wrong", f"{m} (inputs {_lane(args, case, str(m))})"
    return "equal", ""


def _types_of_ones(case, args, excluded):
    """The output types numpy.vectorize learns from an example of ones (None where that
    call raises)."""
    ones = tuple(np.ones((1, *a.shape[1:]), a.dtype) if batched(d) else a
                 for a, d in zip(args, case.args))
    out, exc = _call(np.vectorize(case.func, excluded=excluded, signature=case.signature),
                     ones)
    return None if exc is not None else _otypes(out)


def _array_results(exc) -> bool:
    """numpy.vectorize's ValueError storing an example's array result into its output."""
    return type(exc) is ValueError and "setting an array element with a sequence" in str(exc)


def _stacked_loop(case, args):
    """The per-example loop over Python scalars (numpy.vectorize's items), its results
    stacked as ``np.array`` stacks them."""
    n = _batch_len(case, args)
    outs = [case.func(*[(a[i].item() if a.ndim == 1 else a[i]) if batched(d) else a
                        for a, d in zip(args, case.args)]) for i in range(n)]
    if outs and isinstance(outs[0], tuple):
        return tuple(np.asarray([o[k] for o in outs]) for k in range(len(outs[0])))
    return np.asarray(outs)


def _lane(args, case, message):
    if "first lane " not in message:
        return "?"
    k = int(message.split("first lane ")[1].split(":")[0])
    return tuple(a[k].tolist() if batched(d) else a for a, d in zip(args, case.args))


def _loop(case, args):
    """The per-example loop over NumPy scalars, on the lanes where it returns: (kept args,
    stacked result or None when no lane is kept)."""
    n = _batch_len(case, args)
    keep, outs = [], []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for i in range(n):
            row = [a[i] if batched(d) else a for a, d in zip(args, case.args)]
            try:
                outs.append(case.func(*row))
            except Exception:  # noqa: BLE001 - a raising example is left out
                continue
            keep.append(i)
    kept = tuple(a[keep] if batched(d) else a for a, d in zip(args, case.args))
    if not outs:
        return kept, None
    if isinstance(outs[0], (tuple, list)):     # (vmap: a list of arrays, compared by item)
        return kept, tuple(np.asarray([o[k] for o in outs]) for k in range(len(outs[0])))
    if isinstance(outs[0], dict):       # (vmap: a dict of arrays, compared by key)
        return kept, tuple(np.asarray([o[k] for o in outs]) for k in sorted(outs[0]))
    return kept, np.asarray(outs)


def check_vmap(case, draws):
    """("equal" | "refused" | "wrong" | "crash", detail) of vmap(f) against the per-example
    loop over NumPy scalars, on the examples where the loop returns."""
    from vectorize import vmap
    from vectorize.errors import VectorizeError

    try:
        ours = _wrapped(case, "vmap", lambda: vmap(case.func, in_axes=case.in_axes))
    except VectorizeError as exc:
        return _refusal(exc)
    except Exception as exc:  # noqa: BLE001 - classified
        return "crash", f"wrapping: {type(exc).__name__}: {exc}"
    dtypes = None
    for args in sorted(draws, key=lambda a: _batch_len(case, a), reverse=True):
        kept, ref = _loop(case, args)
        n = _batch_len(case, kept)
        what = f"{case.name} vmap N={n}"
        if ref is None:
            if n:
                continue
            if dtypes is None:     # no returning draw to learn the dtypes from: no values
                got, exc = _call(ours, kept)
                if isinstance(exc, VectorizeError):
                    return _refusal(exc)
                continue
            ref = tuple(np.empty(0, dt) for dt in dtypes)
            ref = ref if len(ref) > 1 else ref[0]
        elif dtypes is None:
            dtypes = _otypes(ref)
        got, exc = _call(ours, kept)
        if isinstance(exc, VectorizeError):
            return _refusal(exc)
        if exc is not None:
            return "crash", f"{what}: {type(exc).__name__}: {exc}"
        if isinstance(got, dict):
            got = tuple(got[k] for k in sorted(got))
        elif isinstance(got, list):
            got = tuple(got)
        try:
            _compare(got, ref, case.rtol, what)
        except _Mismatch as m:
            if not _as_arrays_compute(case, kept, got, ref):
                return "wrong", f"{m} (inputs {_lane(kept, case, str(m))})"
    return "equal", ""


def _as_arrays_compute(case, kept, got, ref):
    """Whether every lane where ``got`` differs from the loop over NumPy scalars equals the
    loop of the function as NumPy's arrays compute it (`fuzz.harness.numpy_variants`: every
    ``**`` by the array loop, NumPy's functions for `math`'s): NumPy's array kernels take
    fast paths its scalars do not (``x ** 0.5`` of an array is a square root: ``(-inf) **
    0.5`` is nan, not inf, and ``(-0.0) ** 0.5`` is ``-0.0``), a documented divergence
    (docs/semantics.md, "powers of NumPy floats") that hand-written NumPy has too."""
    import inspect
    import textwrap

    from fuzz.harness import numpy_variants

    # numba's compiled function: the Python function it compiled
    func = getattr(getattr(case.func, "_dispatcher", case.func), "py_func", case.func)
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return False
    accepted = [_lanes_equal(np.asarray(g), np.asarray(r), case.rtol)
                for g, r in _outputs(got, ref)]
    for variant in numpy_variants(func, source):
        _, ref_v = _loop(Case(case.name, variant, case.args, case.rtol), kept)
        if ref_v is None:
            continue
        for k, (g, r) in enumerate(_outputs(got, ref_v)):
            g, r = np.asarray(g), np.asarray(r)
            if g.shape == r.shape:
                accepted[k] = accepted[k] | _lanes_equal(g, r, case.rtol)
    return all(np.all(a) for a in accepted)


def _outputs(got, ref):
    return list(zip(got, ref)) if isinstance(ref, tuple) else [(got, ref)]


def _lanes_equal(got, ref, rtol):
    if got.dtype != ref.dtype:
        return np.zeros(np.broadcast_shapes(got.shape, ref.shape), dtype=bool)  # never equal
    if ref.dtype.kind not in "fc":
        return got == ref
    with np.errstate(all="ignore"):
        eq = (got == ref) | (np.isnan(got) & np.isnan(ref)) | (
            np.abs(got - ref) <= rtol * np.abs(ref))
    if ref.dtype.kind == "f":
        eq &= ~((got == 0) & (ref == 0)) | (np.signbit(got) == np.signbit(ref))
    return eq
