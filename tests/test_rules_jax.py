"""The rule case table of `tests/test_rules.py` run against the JAX backend: one table of
cases for every backend, so a backend inherits every case the first one had.

Scalar cases: ``vectorize(f, backend="jax")`` on NumPy arrays of the table's pools of values
(NaN, infinities, signed zeros, extremes; the lanes cycle through the pools' combinations)
against numpy.vectorize: the same exception where it raises (and, on the lanes where Python
does not raise, the same values), equal values where it returns, and the dtype the NumPy
backend gives. Array cases: ``vmap(f, in_axes, backend="jax")`` against the per-example loop.

Documented divergences (``docs/jax.md``) are part of the comparison: XLA on CPU flushes
subnormal numbers to zero (the pools' subnormals are left out, and a subnormal result may
come back as zero), and the sign of a zero result is not compared (XLA folds ``x + 0.0`` to
``x`` and chooses either zero in ``max``/``min`` ties). Where JAX's semantics and the
per-example code's differ otherwise the case is a strict xfail with the reason
(`JAX_DIVERGES`); a `VectorizeError` is accepted only for the cases in `JAX_REFUSED`.

Every compile costs XLA about a tenth of a second, so by default a fixed sample of the table
runs (one case in `SAMPLE`, chosen by a hash of its id: the same cases on every run);
``VECTORIZE_JAX_TABLE=all`` runs every case (a few minutes).
"""

from __future__ import annotations

import itertools
import os
import warnings
import zlib

import numpy as np
import pytest
import test_rules as table
from differential import _split, loop_reference, numpy_vectorize_outcome
from hypothesis import HealthCheck, given, settings
from test_rules import cases_module  # noqa: F401  (the fixture: the cases as functions)

from vectorize import VectorizeError, backends, vectorize, vmap

FULL = os.environ.get("VECTORIZE_JAX_TABLE") == "all"
SAMPLE = 16

_NO_JNP = "has no jax.numpy counterpart"
JAX_REFUSED: dict[str, str] = {
    **{case: _NO_JNP for case in [
        "np.fix(f)", "np.emath.sqrt(fe)", "np.emath.log(fe)", "np.emath.log2(fe)",
        "np.emath.log10(fe)", "np.emath.arccos(fe)", "np.emath.arcsin(fe)",
        "np.emath.arctanh(fe)", "np.emath.logn(fe,fe)", "np.emath.power(fe,u)",
        "np.emath.sqrt(i)"]},
    # per-example loops, until they are lowered to lax.while_loop (backends/jax/loops.py)
    **{case: "not supported by the JAX backend yet" for case in [
        "while_batched_test", "while_newton_sqrt", "while_int_collatz",
        "for_range_batched_bound", "for_break_batched", "for_return_batched"]},
    # jnp.round takes its digits as a Python int only, and no negative digits for integers:
    # refused when first called (before, vectorize replayed numpy.vectorize on every call)
    **{case: "the jax backend cannot run the code generated" for case in [
        "round(f,n!)", "round(i,n!)", "round(i,-1)", "np.round(f,n!)", "np.round(i,-1)"]},
    # (`pymath.weekday` computes on NumPy arrays)
    **{case: "`calendar.weekday` of per-example values on this backend" for case in [
        "calendar.weekday(i*37,1+i%12,1+i%28)", "calendar.weekday(2000+i,i,i)"]},
    # (`pymath`'s functions compute on NumPy arrays)
    **{f"math.{name}": f"`math.{name.split('(')[0]}` of per-example values on this backend"
       for name in ["fsum([f,f,f])", "fsum((i,fm,0.1))", "prod([sh,sh,sh])",
                    "prod([i,fm,0.5],start=sh)", "dist((f,i),(fm,0.5))", "dist([f],[f])"]},
    **{case: f"{what} of per-example values on this backend" for case, what in [
        ("int(i).bit_length()", "`.bit_length()`"), ("i.bit_count()", "`.bit_count()`"),
        ("i32.bit_count()", "`.bit_count()`"), ("pow(int(i),int(sh),7)", "three-argument `pow`"),
        ("pow(int(i),2,int(sh))", "three-argument `pow`")]},
    **{case: "jnp.gcd loops until every lane is done" for case in [
        "math.gcd(int(fm),12)", "math.gcd(i,i)", "math.lcm(i,i)", "math.gcd(i,i,i)",
        "math.lcm(i,i,i)", "math.gcd(i,12)", "math.gcd(i32,i)", "np.gcd(i,i)", "np.lcm(i,i)"]},
}
JAX_DIVERGES: dict[str, str] = {
    "np.spacing(f)": "jnp.spacing(-0.0) is -5e-324 (NumPy: 5e-324)",
    "np.argpartition(m23,2,axis=None)": "the order of argpartition's result within each side "
                                        "of the kth element (and among ties) is JAX's, not "
                                        "NumPy's",
    "np.pad(v3,2,mode='linear_ramp',end_values=(5.0,-1.0))": "jnp.pad(mode='linear_ramp') "
                                                             "fails on an empty batch",
    "np.pad(m23,1,'maximum')": "jnp.pad(mode='maximum') fails on an empty batch (a max "
                               "over zero elements)",
    "np.linalg.cond(m33)": "the condition number of a singular matrix is nan in JAX "
                           "(NumPy: inf)",
    "np.linalg.det(m33)": "the determinant of a matrix holding a NaN may be nan in JAX "
                          "where LAPACK's pivoting in NumPy gives 0.0",
    "math.modf(f)": "jnp.modf(inf) has a nan fractional part (NumPy and Python: 0.0)",
    "math.modf(f32)": "jnp.modf(inf) has a nan fractional part",
    "np.modf(f)": "jnp.modf(inf) has a nan fractional part",
}


def _subnormal(value, dtype) -> bool:
    return isinstance(value, float) and value != 0 and abs(value) < np.finfo(dtype).tiny \
        if np.dtype(dtype).kind == "f" else False


def applies(case) -> bool:
    return (not table.is_array_case(case) and not case.refuses
            and all(kind in table.POOLS for kind in case.kinds))


def chosen(case) -> bool:
    return FULL or zlib.crc32(case.id.encode()) % SAMPLE == 0


def _params(arrays: bool):
    out = []
    for index, case in enumerate(table.CASES):
        if (applies(case) if not arrays else table.is_array_case(case)) and chosen(case):
            reason = JAX_DIVERGES.get(case.id)
            # strict where the lanes are fixed (the pools); the array cases' draws may miss
            # the values they diverge on
            marks = [pytest.mark.xfail(strict=not arrays, reason=reason)] if reason else []
            out.append(pytest.param(index, case, id=case.id, marks=marks))
    return out


def lanes(case):
    """NumPy arrays of the pools' values (subnormals left out), the lanes cycling through
    the pools' combinations."""
    pools = [[v for v in table.POOLS[kind] if not _subnormal(v, table.DTYPES[kind])]
             for kind in case.kinds]
    combos = list(itertools.islice(itertools.product(*pools), 400))
    columns = list(zip(*combos)) if combos else [[] for _ in pools]
    return [np.array(col, dtype=table.DTYPES[kind]) for col, kind in zip(columns, case.kinds)]


def assert_close(got, expected, what=""):
    """Values equal (NaN to NaN, floats to 1e-12 relative for float64 and a few ulps for
    float32), a subnormal expected value flushed to zero accepted, signs of zero not
    compared (module docstring)."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, f"{what}shape {got.shape} != {expected.shape}"
    if expected.dtype.kind in "fc" and got.dtype.kind in "fc":
        tiny = np.finfo(got.dtype).tiny
        flushed = (np.abs(expected) < tiny) & (got == 0)
        expected = np.where(flushed, 0, expected)
        coarsest = max(float(np.finfo(d).eps) for d in (got.dtype, expected.dtype))
        np.testing.assert_allclose(got, expected, rtol=max(1e-12, 8 * coarsest), atol=0,
                                   equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)


def _outputs(value):
    return value if isinstance(value, tuple) else (value,)


def check_vectorize(f, args):
    """``vectorize(f, backend="jax")`` against numpy.vectorize (and the NumPy backend's
    dtypes)."""
    expected, error = numpy_vectorize_outcome(f, *args)
    vf = vectorize(f, backend="jax", fallback="error")
    if error is not None:
        try:
            vf(*args)
        except VectorizeError:
            raise
        except Exception as exc:    # noqa: BLE001 -- compared with numpy.vectorize's
            assert (type(exc), str(exc)) == (type(error), str(error))
            return False
        raise AssertionError(f"numpy.vectorize raised {error!r}; vectorize returned")
    got = vf(*args)
    if expected is None:        # an empty batch
        return True
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")     # NumPy's own warnings: the NumPy backend's
        numpy_got = vectorize(f, fallback="error")(*args)
    lanes, _, raised = loop_reference(f, *args)
    assert not raised
    by_lane = _split(lanes, len(got) if isinstance(got, tuple) else None)
    for k, (g, e, n, loop) in enumerate(zip(_outputs(got), _outputs(expected),
                                            _outputs(numpy_got), by_lane)):
        assert isinstance(g, np.ndarray), f"output {k}: NumPy in, NumPy out"
        assert g.dtype == np.asarray(n).dtype, f"output {k}: dtype {g.dtype}, NumPy backend " \
                                               f"{np.asarray(n).dtype}"
        try:
            assert_close(g, e, what=f"output {k}: ")
        except AssertionError:
            # where Python's numbers and NumPy's scalars differ (`~True` is -2, `~np.True_`
            # False; numpy.vectorize casts to its first result's dtype), the loop of NumPy
            # scalars is the reference too, as in `differential.assert_matches_loop`
            assert_close(g, np.array(loop).reshape(g.shape), what=f"output {k}: ")
    return True


def _python_raises(f, args, row) -> bool:
    try:
        f(*[a[row].item() for a in args])
    except Exception:       # noqa: BLE001 -- any exception of the per-example code
        return True
    return False


def _agreed(f, args):
    """The lanes on which NumPy agrees with itself (its scalar and its array arithmetic give
    the same value: `test_rules.numpy_disagrees`), as `test_rules.check` compares only
    those."""
    keep = []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for row, call in enumerate(table._lanes(args)):
            value, error = table._run_lane(f, call)
            if error is not None or not table.numpy_disagrees(f, call, value)[0]:
                keep.append(row)
    return [a[keep] for a in args]


@pytest.mark.parametrize("index, case", _params(arrays=False))
def test_rule_matches_loop_on_jax(index, case, cases_module):  # noqa: F811
    f = getattr(cases_module, f"case_{index}")
    args = _agreed(f, lanes(case))
    try:
        if not check_vectorize(f, args):
            # some lane raises: the others, without it, must compute the loop's values
            keep = [row for row in range(len(args[0])) if not _python_raises(f, args, row)]
            if keep:
                check_vectorize(f, [a[keep] for a in args])
    except VectorizeError as refusal:
        if case.id not in JAX_REFUSED:
            raise
        assert JAX_REFUSED[case.id] in str(refusal)


@pytest.mark.parametrize("index, case", _params(arrays=True))
def test_array_rule_matches_loop_on_jax(index, case, cases_module):  # noqa: F811
    f = getattr(cases_module, f"case_{index}")

    @settings(max_examples=2, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(table.vmap_args(case.kinds, receiver_mapped=case.template.startswith("{0}.")))
    def run(drawn):
        args, in_axes = drawn
        results, raised, _, errors = table.vmap_loop(f, args, in_axes)
        try:
            got = vmap(f, in_axes=in_axes, backend="jax")(*args)
        except VectorizeError as refusal:
            if case.id not in JAX_REFUSED:
                raise
            assert JAX_REFUSED[case.id] in str(refusal)
            return
        except (ArithmeticError, ValueError, TypeError) as exc:
            assert (type(exc), str(exc)) in errors
            return
        if results and len(raised) == len(results):
            return      # every example raises (LinAlgError): JAX computes NaNs, no lane to compare
        if isinstance(got, tuple):
            for k, part in enumerate(got):
                assert isinstance(part, np.ndarray)
                table.assert_stacked_equal(part, [None if r is None else r[k] for r in results],
                                           raised, what=f"output {k}: ")
        elif results:
            assert isinstance(got, np.ndarray), "NumPy in, NumPy out"
            table.assert_stacked_equal(got, results, raised)

    run()


def test_the_sample_is_a_good_part_of_the_table():
    scalar = [case for case in table.CASES if applies(case)]
    assert len(scalar) >= 500
    assert sum(chosen(case) for case in scalar) >= len(scalar) // (2 * SAMPLE)


# ------------------------------------------------------------------- every rule has a case
def test_jax_tables_are_numpys_rules():
    """The JAX registry holds NumPy's rules (its tables, spelled with ``jnp``): every rule of
    it is one the table covers (`test_rules.test_every_rule_has_a_case`), besides the
    families the table leaves to their own tests (random draws, vmap, user rules)."""
    from test_jaxrules30 import PARTS, covered_rules

    from vectorize.backends.jax import lax_rules
    jax_rules = {rule.name for rule in backends.get("jax").registry.all_rules
                 if rule.family not in ("user", "random", "vmap", lax_rules.FAMILY)}
    covered = set().union(*(table.case_rules(case)[0] for case in table.CASES))
    assert jax_rules - covered - set(table.TESTED_ELSEWHERE) == set()
    numpy_rules = {rule.name for rule in backends.get("numpy").registry.all_rules}
    assert jax_rules <= numpy_rules
    # JAX's own (`jax.lax`, `x.at[]`): its case table is tests/test_jaxrules30.py's
    lax = {rule.name for rule in backends.get("jax").registry.all_rules
           if rule.family == lax_rules.FAMILY}
    assert lax and lax == covered_rules(PARTS)


def test_jax_functions_batch_as_their_numpy_twins():
    import jax.numpy as jnp
    reg = backends.get("jax").registry
    for jfn, np_fn in [(jnp.sin, np.sin), (jnp.sum, np.sum), (jnp.linalg.norm,
                                                              np.linalg.norm),
                       (jnp.where, np.where), (jnp.einsum, np.einsum)]:
        assert reg.for_call(jfn) is not None, jfn
        assert reg.for_call(jfn).name == reg.for_call(np_fn).name
