"""Differential tests of the PyTorch backend: ``vmap(f)`` of every function of
`torch_corpus` against the per-example loop ``torch.stack([f(*row) for row ...])``, values,
dtypes, devices and gradients (`torch_reference.check`), on inputs hypothesis draws: NaN,
inf, signed zeros and negatives, batches of 0, 1, 5, 17 and 64 examples, float32 and float64
(and both at once), mapped and shared arguments.
"""

from __future__ import annotations

import os

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from torch_corpus import CASES, Case
from torch_reference import check

from vectorize import vmap

SIZES = (0, 1, 5, 17, 64)
# examples per pattern (TORCH_EXAMPLES=60 for a longer run; 6 keeps the suite quick)
EXAMPLES = int(os.environ.get("TORCH_EXAMPLES", 6))
_SPECIAL = (float("nan"), float("inf"), -float("inf"), 0.0, -0.0)


def _values(data, kind: str, count: int, special: bool):
    if kind == "f":
        finite = st.floats(-8.0, 8.0, width=32, allow_subnormal=False)
        element = st.one_of(finite, st.sampled_from(_SPECIAL)) if special else finite
    elif kind == "i":
        element = st.integers(-6, 6)
    elif kind == "k":
        element = st.integers(-3, 2)        # an index into a per-example vector or matrix
    else:
        element = st.booleans()
    return data.draw(st.lists(element, min_size=count, max_size=count))


def draw_args(data, case: Case, dtypes):
    size = data.draw(st.sampled_from(SIZES), label="N")
    floats = iter(dtypes)
    args = []
    for arg in case.args:
        shape = ((size,) if arg.mapped else ()) + arg.shape
        count = 1
        for n in shape:
            count *= n
        values = _values(data, arg.kind, count, case.special)
        dtype = {"i": torch.int64, "k": torch.int64, "b": torch.bool}.get(arg.kind)
        if dtype is None:
            dtype = next(floats)
        args.append(torch.tensor(values, dtype=dtype).reshape(shape))
    return args


def _float_count(case: Case) -> int:
    return sum(1 for a in case.args if a.kind == "f")


def _patterns():
    """(case, float dtypes of its float arguments): each float dtype of the case for all of
    them, and float32 with float64 where a case has two float arguments."""
    out = []
    for case in CASES:
        count = _float_count(case)
        for dtype in case.floats if count else (None,):
            out.append(pytest.param(case, (dtype,) * count,
                                    id=f"{case.id}-{_pattern_id(case)}-{dtype}"))
        if count >= 2 and len(case.floats) > 1 and case.mixed:
            mixed = (torch.float32, torch.float64) + (torch.float64,) * (count - 2)
            out.append(pytest.param(case, mixed, id=f"{case.id}-{_pattern_id(case)}-mixed"))
    return out


def _pattern_id(case: Case) -> str:
    return "".join(("b" if a.mapped else "s") + a.kind for a in case.args)


def _finite(args) -> bool:
    return all(bool(torch.isfinite(a).all()) for a in args if a.dtype.is_floating_point)


@pytest.mark.parametrize("case,dtypes", _patterns())
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_corpus(case, dtypes, data):
    args = draw_args(data, case, dtypes)
    in_axes = tuple(0 if a.mapped else None for a in case.args)
    check(case.f, *args, in_axes=in_axes, grad=case.grad and _finite(args), joins=case.joins,
          signed_zeros=case.signed_zeros, **case.extra)


def test_gradients_through_a_compacted_loop_whose_lanes_start_as_the_full_arrays():
    """A compacted loop's lanes are the carried tensors themselves until the first gather;
    ``x * i`` saved ``i`` for the backward pass, and putting the lanes back in place bumped
    its version: ``backward()`` raised (regression: hypothesis found it at N = 1)."""
    def f(k, x):
        s = x * 0
        for i in range(k):
            s = s + x * i
        return s
    for k in ([1], [3, 1, 4]):
        kk = torch.tensor(k)
        x = torch.linspace(0.5, 2.0, len(k), dtype=torch.float64, requires_grad=True)
        vmap(f)(kk, x).sum().backward()
        expected = [sum(range(n)) for n in k]        # d/dx of x * (0 + 1 + ... + (k - 1))
        assert x.grad.tolist() == expected
