"""Generated code keeps tensors where they are: device, dtype, autograd, never NumPy.

- On the ``meta`` device (tensors without data: an operation on them stays on ``meta``, and
  one that mixes in a tensor made elsewhere raises) every corpus function whose generated
  code has no data-dependent Python control flow runs and gives ``meta`` tensors of the
  dtype and shape the CPU gives. Masked loops and compaction test ``.any()`` / count lanes,
  which ``meta`` tensors cannot answer: for them (and all others) every tensor the generated
  code creates is checked, in the source, to name the device of an argument
  (`_created_without_device`), and the CPU run must give what the per-example loop gives
  (`test_torch`).
- float32 stays float32 through every construct that creates tensors.
- NumPy is never called: tensors that require grad refuse it, and for tensors that do not,
  ``Tensor.numpy`` and ``Tensor.__array__`` raise during the calls.
"""

from __future__ import annotations

import ast
from unittest import mock

import pytest
import torch
from torch_corpus import CASES, Case
from torch_reference import check, mapped

from vectorize import vmap
from vectorize.backends.torch import examples

# the factories the generated code may call; each must name a device (0-d tensors of
# Python numbers excepted: PyTorch takes a CPU 0-d tensor as a scalar with any device)
_FACTORIES = {"empty", "full", "zeros", "ones", "arange", "as_tensor", "linspace", "eye",
              "rand", "randn", "randint", "empty_strided", "full_like", "zeros_like"}


def _created_without_device(source: str) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "torch":
            name = node.func.attr
            keywords = {k.arg for k in node.keywords}
            if name in _FACTORIES and "device" not in keywords and not name.endswith("_like"):
                out.append(ast.unparse(node))
            if name == "tensor" and "device" not in keywords and not (
                    isinstance(node.args[0], (ast.Constant, ast.UnaryOp, ast.Name))):
                out.append(ast.unparse(node))
    return out


def _args(case: Case, size: int, device, dtype=torch.float32):
    args = []
    for arg in case.args:
        shape = ((size,) if arg.mapped else ()) + arg.shape
        kind = {"i": torch.int64, "k": torch.int64, "b": torch.bool}.get(arg.kind, dtype)
        if device == "meta":
            args.append(torch.empty(shape, dtype=kind, device="meta"))
        else:
            values = torch.linspace(-2.5, 3.5, max(1, torch.Size(shape).numel()))
            values = values[:torch.Size(shape).numel()].reshape(shape)
            args.append((values % 3 - 1).round().to(kind) if arg.kind in "ik" else
                        values.to(kind))
    return args


def _in_axes(case: Case):
    return tuple(0 if a.mapped else None for a in case.args)


def _outputs(out):
    return out if isinstance(out, tuple) else (out,)


# creates its tensor on the default device, as its code says (`torch.zeros(3)`), per example
# too (`written_like_argument` is the same rule with `device=x.device`): left out of the
# device checks
_DEFAULT_DEVICE = {"written_zeros"}


@pytest.mark.parametrize("case", [c for c in CASES if c.id not in _DEFAULT_DEVICE],
                         ids=lambda c: c.id)
def test_every_created_tensor_names_a_device(case):
    source = vmap(case.f, in_axes=_in_axes(case)).source(*_args(case, 6, "cpu"))
    assert _created_without_device(source) == [], source


# what the meta device cannot run: the generated code asks the data a Python question (a
# loop's, or whether some example's Python number raises or differs from the tensor's
# value: `math.sqrt` of a negative, `int` of NaN, docs/semantics.md)
_NEEDS_DATA = {"while_halving", "while_compact", "while_select", "for_break_continue",
               "for_return", "for_per_example_range", "int_carry_promoted",
               "for_compact_break", "if_compact", "math_functions", "math_times_tensor",
               "math_log", "builtins_conversions", "round_python_number",
               # (repeat_interleave by a tensor of counts: its size is the counts' sum)
               "tile_repeat",
               # (torch.full of float(x): the fill value is the example's number)
               "filled"}


# closes over a CPU tensor (a closure, a module's parameters): the per-example code mixes
# devices itself
_CPU_CLOSURE = {"model_closure", "module_call", "functional_call_of"}


@pytest.mark.parametrize("case", [c for c in CASES if c.id not in
                                  _NEEDS_DATA | _CPU_CLOSURE | _DEFAULT_DEVICE],
                         ids=lambda c: c.id)
def test_meta_device(case):
    f = vmap(case.f, in_axes=_in_axes(case))
    cpu = _outputs(f(*_args(case, 6, "cpu")))
    meta = _outputs(f(*_args(case, 6, "meta")))
    for c, m in zip(cpu, meta):
        assert m.device.type == "meta"
        assert (m.dtype, m.shape) == (c.dtype, c.shape)


@pytest.mark.parametrize("case", [c for c in CASES if c.id in _NEEDS_DATA],
                         ids=lambda c: c.id)
def test_meta_device_refuses_data_questions_only(case):
    """On meta the masked loops stop at their first data question, not earlier (a tensor
    made on another device would raise first, with another message)."""
    f = vmap(case.f, in_axes=_in_axes(case))
    f(*_args(case, 6, "cpu"))
    with pytest.raises((RuntimeError, NotImplementedError),
                       match="cannot be called on meta tensors|function for torch.nonzero|"
                             "without output_size"):
        f(*_args(case, 6, "meta"))


# per example these give Python floats (float64 on the batch, docs/torch.md), or compute
# with a float64 tensor
_FLOAT64_BY_DESIGN = {"builtins_conversions", "item_numbers", "round_python_number",
                      "math_functions", "math_log", "ternary_python_numbers", "shared_64",
                      "conversions"}


@pytest.mark.parametrize("case", [c for c in CASES if c.id not in _FLOAT64_BY_DESIGN
                                  and any(a.kind == "f" for a in c.args)],
                         ids=lambda c: c.id)
def test_float32_stays_float32(case):
    for out in _outputs(mapped(case.f, _in_axes(case))(*_args(case, 6, "cpu"))):
        if out.dtype.is_floating_point:
            assert out.dtype == torch.float32


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_never_through_numpy(case):
    """Warm (the transform itself computes on NumPy examples, never on the arguments), then
    called with NumPy conversion of tensors raising."""
    f = mapped(case.f, _in_axes(case))
    args = _args(case, 5, "cpu")
    f(*args)

    def refuse(*a, **k):
        # the analysis's own example tensors (made from NumPy examples on the CPU) come back
        # as NumPy examples (`examples.to_example`): never the arguments
        import sys
        if sys._getframe(1).f_code is examples.to_example.__code__:
            return real_numpy(*a, **k)
        raise AssertionError("a tensor went through NumPy")
    real_numpy = torch.Tensor.numpy
    with mock.patch.object(torch.Tensor, "numpy", refuse), \
            mock.patch.object(torch.Tensor, "__array__", refuse):
        check(case.f, *args, in_axes=_in_axes(case), grad=case.grad, joins=case.joins,
              signed_zeros=case.signed_zeros)
