"""The rule case table of `tests/test_rules.py` run against the PyTorch backend: one table of
cases for every backend, so a backend inherits every case the first one had.

Each scalar case of the table that spells no NumPy function (operators, builtins, `math`,
statements) is called through ``vmap`` on tensors and compared with the per-example loop on
0-d tensors (`torch_reference.check`: values, dtypes, devices). The lanes are the table's
pools of values for each kind (NaN, infinities, signed zeros, extremes), at N = 0, 1, 5 and
all of them, minus the lanes on which the per-example code raises.

Where PyTorch's per-example semantics and the batched code differ the case is a strict xfail
with the reason (`TORCH_BUGS`); where the engine refuses the case for tensors, a
`VectorizeError` is accepted only for the cases listed in `TORCH_REFUSED`.
"""

from __future__ import annotations

import itertools

import pytest
import test_rules as table
import torch
from test_rules import cases_module  # noqa: F401  (the fixture: the cases as functions)
from torch_reference import check, reference

from vectorize import VectorizeError, vmap

DTYPES = {"f": torch.float64, "fm": torch.float64, "f32": torch.float32,
          "f32m": torch.float32, "i": torch.int64, "I": torch.int64, "i32": torch.int32,
          "b": torch.bool, "sh": torch.int64, "u": torch.int64}

# cases the torch tables refuse, located (`VectorizeError`), with what the refusal says
_NO_RULE = "has no batching rule"
TORCH_REFUSED: dict[str, str] = {
    **{case: _NO_RULE for case in [
        "math.comb(sh,sh)", "math.perm(sh,sh)", "math.factorial(sh)", "math.isqrt(I)",
        "math.isqrt(i32)",
        "math.cbrt(f)", "math.cbrt(b)", "math.cbrt(i32)", "math.nextafter(f,f)",
        "math.isclose(f,f)", "math.isclose(f,f,rel_tol=1e-3,abs_tol=1e-9)",
        "math.isclose(i,f,abs_tol=0.5)", "math.ldexp(f,int(i))", "math.ldexp(f,3)",
        "math.gcd(int(fm),12)", "math.gcd(i,i)", "math.lcm(i,i)", "math.gcd(i,i,i)",
        "math.lcm(i,i,i)", "math.gcd(i,12)", "math.gcd(i32,i)", "math.frexp(f)",
        "math.modf(f)", "math.frexp(i)", "math.modf(f32)",
        "math.fsum([f,f,f])", "math.fsum((i,fm,0.1))", "math.prod([sh,sh,sh])",
        "math.prod([i,fm,0.5],start=sh)", "math.dist((f,i),(fm,0.5))", "math.dist([f],[f])"]},
    # `calendar.weekday` is NumPy's rule; on tensors the engine reads calendar's source,
    # which builds a `datetime.date` (a class made in C: no per-example model of it)
    **dict.fromkeys(["calendar.weekday(i*37,1+i%12,1+i%28)", "calendar.weekday(2000+i,i,i)"],
                    "`datetime.date` is a class whose instances"),
    # NumPy rules (Python's `math` and SciPy's special functions) the torch tables lack
    **{case: _NO_RULE for case in [
        "math.remainder(f,f)", "math.remainder(i,i)", "math.remainder(f,2.0)",
        "math.remainder(f32,f)", "math.gamma(i)", "sum([f,f,f])", "sum((i,i))",
        "scipy.special.erf(f)", "scipy.special.erfc(f)", "scipy.special.gamma(f)",
        "scipy.special.gammaln(f)", "scipy.special.expit(f)", "scipy.special.logit(f)",
        "scipy.special.ndtr(f)", "scipy.special.ndtri(f)", "scipy.special.j0(f)",
        "scipy.special.i0e(f)", "scipy.special.erfinv(f)", "scipy.special.log1p(f)",
        "scipy.special.psi(f)", "scipy.special.cbrt(f)", "scipy.special.jv(i,f)",
        "scipy.special.gammainc(f,f)", "scipy.special.xlogy(f,f)", "scipy.special.erf(i)",
        "scipy.special.expit(f32)"]},
    # `complex` of two numbers builds a complex scalar: torch has no rule for it
    **dict.fromkeys(["complex(f,f)", "complex(i,f)", "abs(complex(f32,f))"],
                    "`complex()` of a per-example value with more arguments"),
    # `max`/`min` of one list or tuple of per-example values (NumPy's `builtin.reduce_list`)
    **dict.fromkeys(["max([f,f,0.5])", "min((i,i))"],
                    "of one per-example tensor or with keywords"),
    # an int (bool) on some lanes, a float on others, plus a Python float: per example
    # PyTorch computes the int lanes in its default float32 (2**24 + 1 becomes 2**24), the
    # batch every lane in float64 (`abstract.MIXED_PARTS`)
    **dict.fromkeys(["(iandf)+0.0", "(fandi)+0.0", "(bandf)+0.0", "(fandb)+0.0", "(iorf)+0.0",
                     "(fori)+0.0", "(borf)+0.0", "(forb)+0.0", "(iorfori)+0.0",
                     "(iifbelsef)+0.0"], "whose type differs between lanes"),
    # Python ints' own methods and `pow(a, b, m)` (NumPy's `pymath`): a tensor has neither
    "int(i).bit_length()": "the method `.bit_length()` of a per-example value",
    **dict.fromkeys(["pow(int(i),int(sh),7)", "pow(int(i),2,int(sh))"], "`pow` raises for"),
    "python_divmod_in_a_branch": "of Python numbers in code that runs on every",
    "python_int_floor_division_in_a_branch": "of Python integers",
}
# what running the table on tensors found (strict xfails: each must still fail)
TORCH_BUGS: dict[str, str] = {
    **dict.fromkeys(["min(i,f)+0.0", "max(i,f)+0.0"],
                    "`min`/`max` of an int and a float tensor converts the float operand to "
                    "int64 before choosing, so a NaN or inf lane gives -9223372036854775808 "
                    "(per example `min(3, nan)` keeps 3)"),
    # not the engine's: PyTorch's vector kernels and its 0-d path disagree
    **dict.fromkeys(["f%f", "i%f", "f32%f32", "math.fmod(f,f)", "math.fmod(i,f)"],
                    "PyTorch disagrees with itself: `remainder`/`fmod` by a subnormal "
                    "divisor give nan in the vector kernel and 0.0 on 0-d tensors "
                    "(0.5 % 5e-324), so no batched code can match the loop"),
}


def applies(case) -> bool:
    text = case.body if case.body is not None else case.template
    return (not table.is_array_case(case) and "np." not in text
            and all(kind in DTYPES for kind in case.kinds))


def _params():
    out = []
    for index, case in enumerate(table.CASES):
        if not applies(case):
            continue
        reason = TORCH_BUGS.get(case.id)
        marks = [pytest.mark.xfail(strict=True, reason=f"bug: {reason}")] if reason else []
        out.append(pytest.param(index, case, id=case.id, marks=marks))
    return out


def lanes(case):
    """Tensors of the pools' values, the lanes cycling through the pools' combinations."""
    pools = [table.POOLS[kind] for kind in case.kinds]
    combos = list(itertools.islice(itertools.product(*pools), 400))
    columns = list(zip(*combos)) if combos else [[] for _ in pools]
    return [torch.tensor(list(col), dtype=DTYPES[kind]) for col, kind in
            zip(columns, case.kinds)]


_SELECTIONS = (" and ", " or ", " if ", "min(", "max(")


def _joins(case) -> bool:
    """A selection between operands of different dtypes: per example each lane has the
    dtype of the operand it takes (`torch_reference.assert_same`, ``joins``)."""
    text = case.body if case.body is not None else case.template
    return len({DTYPES[k] for k in case.kinds}) > 1 and any(s in text for s in _SELECTIONS)


def _loop_raises(f, args) -> bool:
    try:
        reference(f, args)
    except Exception:
        return True
    return False


@pytest.mark.parametrize("index, case", _params())
def test_rule_matches_loop_on_tensors(index, case, cases_module):  # noqa: F811
    f = getattr(cases_module, f"case_{index}")
    args = lanes(case)
    keep = [row for row in range(len(args[0]))
            if not _loop_raises(f, [a[row:row + 1] for a in args])]
    if not keep:
        # no lane is valid per example (`round` of a tensor, `divmod` of tensors...): the
        # batch must raise as the loop does, or refuse
        with pytest.raises(Exception) as loop_error:  # noqa: B017 (what the loop raises)
            reference(f, args)
        with pytest.raises((loop_error.type, VectorizeError)):
            vmap(f)(*args)
        return
    kept = [a[keep] for a in args]
    # N = 0 runs the function once on ones (the loop's dtype), where it may raise itself
    sizes = [n for n in (0, 1, 5, len(keep)) if n or not _loop_raises(f, [a[:0] for a in kept])]
    try:
        for n in sizes:
            check(f, *[a[:n] for a in kept], grad=False, joins=_joins(case))
    except VectorizeError as refusal:
        if case.id not in TORCH_REFUSED:
            raise
        assert TORCH_REFUSED[case.id] in str(refusal)


def test_the_table_runs_a_good_part_of_its_cases_on_tensors():
    assert sum(applies(case) for case in table.CASES) >= 150


# ------------------------------------------------------------------- every rule has a case
# torch rules no case of the table or of `torch_corpus` fires, and why
NOT_COVERED = {
    "builtin.dict_get": "a method of a shared dict (`TABLE.get(k, 0.0)`): "
                        "tests/test_torch33.py",
    "random.python_refused": "a refusal: tests/test_torch_random.py",
    "torch.numpy_random": "a refusal: tests/test_torch_random.py",
    "torch.random.no_rule": "a refusal, and eval-mode dropout: "
                            "tests/peers/test_torch_vmap34.py",
    "torch.random.per_example": "draws differ from a loop's: tests/test_torch_random.py",
    "torch.autograd.grad": "tests/test_torch_vmap.py (vector-Jacobian products)",
    "torch.min": "no case yet",
    "torch.constant_tensor": "a refusal: its rules-page example (tests/test_rules_doc.py)",
    "torch.func.transform": "a refusal: its rules-page example (tests/test_rules_doc.py)",
    "vmap.function": "a refusal: its rules-page example (tests/test_rules_doc.py, NumPy)",
    "refused.jax_function": "a refusal of `jax.lax` on tensors: tests/test_jaxrules30.py",
    "warn.lanes": "a warning per example: tests/test_helper_statements.py (on tensors too)",
    "sum.item": "its loops (a list of a different length on each path) are refused on "
                "tensors (tests/test_rules_doc.py KNOWN_TORCH_GAPS)",
}


def _fired(f, args, in_axes=0, **options) -> set[str]:
    mapped = vmap(f, in_axes=in_axes, **options)
    mapped._explain = True          # what `vectorize.explain` asks for
    try:
        entry = mapped._plan(args)[0]
    except VectorizeError:
        return set()
    return {name for name, *_ in entry.spec.explanations}


def _corpus_args(case, n=3):
    out = []
    for arg in case.args:
        shape = ((n,) if arg.mapped else ()) + tuple(arg.shape)
        if arg.kind == "b":
            out.append(torch.ones(shape, dtype=torch.bool))
        elif arg.kind in "ik":
            out.append(torch.zeros(shape, dtype=torch.int64))
        else:
            out.append(torch.ones(shape, dtype=case.floats[0]))
    return out


def test_every_torch_rule_has_a_case(cases_module):  # noqa: F811
    from torch_corpus import CASES as CORPUS

    from vectorize import backends
    fired = set()
    for index, case in enumerate(table.CASES):
        if applies(case):
            fired |= _fired(getattr(cases_module, f"case_{index}"),
                            [a[:3] for a in lanes(case)])
    for case in CORPUS:
        fired |= _fired(case.f, _corpus_args(case),
                        tuple(0 if a.mapped else None for a in case.args), **case.extra)
    rules = {rule.name for rule in backends.get("torch").registry.all_rules}
    missing = sorted(rules - fired - set(NOT_COVERED))
    assert missing == [], f"torch rules without a case: {missing}"
    assert fired & set(NOT_COVERED) == set(), "a case now covers these: drop them"
