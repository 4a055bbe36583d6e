"""What the torch tables share: examples of tensors computed by PyTorch itself (`examples.run`),
the dtypes of the batched code matched to the per-example ones (`matched`), and calls rewritten
with their operands padded to one per-example rank."""

from __future__ import annotations

import libcst as cst
import numpy as np

from ...abstract import (
    UNKNOWN,
    TupleValue,
    Value,
    batched_like,
    lane_combinations,
    note_lane_results,
)
from ...errors import Unsupported
from ...rules.families import pad
from ...rules.registry import Site, broadcast_rank
from ...syntax.templates import expr
from . import examples
from .dtypes import torch_module

_PYTHON_NUMBERS = (bool, int, float, complex)


def is_weak(value) -> bool:
    """A per-example Python number (a batched value whose example is one)."""
    return isinstance(value, Value) and type(value.example) in _PYTHON_NUMBERS


def _name_of(fn) -> str:
    return fn if isinstance(fn, str) else getattr(fn, "__name__", repr(fn))


# ---------------------------------------------------------------------------- examples


def per_example(fn, what: str | None = None):
    """An ``infer`` that runs ``fn`` (a torch function, or a method name) on the examples.
    A PyTorch error means the per-example code raises: refused."""
    call = _method(fn) if isinstance(fn, str) else fn
    label = what or f"`{_name_of(fn)}`"

    def infer(site: Site):
        values = list(site.args) + [v for _, v in site.kwargs.values()]
        if any(not v.known for v in values if isinstance(v, (Value, TupleValue))):
            return Value(True, UNKNOWN)
        args = [v.example for v in site.args]
        kwargs = {k: v.example for k, (_, v) in site.kwargs.items()}
        try:
            out = examples.run(call, *args, **kwargs)
        except (TypeError, ValueError, IndexError) as exc:
            raise Unsupported(f"{label} raises for {described(site)} in the per-example "
                              f"code ({first_line(exc)})", kind="raises") from None
        lane_types_agree(call, site.args, args, kwargs, label, out)
        if isinstance(out, tuple):
            return TupleValue(tuple(batched_like(o) for o in out))
        result = batched_like(out)
        note_lane_results(result, lambda *a: examples.run(call, *a, **kwargs), site.args,
                          args)
        return result
    return infer


def lane_types_agree(call, values, args, kwargs, label: str, out=None) -> None:
    """A call of a value whose type differs between lanes (`abstract.MIXED_PARTS`: a 0-d
    tensor on some lanes, a Python number or a tensor of another dtype on others): each
    lane's type is run on its own, and a call that raises for one of them is refused
    (``torch.sqrt`` of the lanes where the value is a Python int: TypeError per example,
    while the batch computes every lane in the joined dtype), so is one whose result on a
    lane type is of a dtype the batch's result ``out`` does not hold or a float of another
    width (``torch.clamp(r, -1, 5)`` of a bool tensor on some lanes, an int16 on others:
    int64 per example on the first, the batch's int16 on every lane)."""
    batch = out.dtype if isinstance(out, (np.generic, np.ndarray)) else None
    for lane, part in lane_combinations(values, args):
        lane_type = f"a Python {type(part).__name__}" if type(
            part) in _PYTHON_NUMBERS else f"a {part.dtype} tensor"
        try:
            got = examples.run(call, *lane, **kwargs)
        except (TypeError, ValueError, IndexError, AttributeError) as exc:
            raise Unsupported(
                f"{label} of a per-example value whose type differs between lanes "
                f"({lane_type} on some): as {lane_type} it raises "
                f"{type(exc).__name__} ({first_line(exc)}), while the batch computes "
                "every lane in the joined type",
                suggestion="give the value one type on every path (e.g. a tensor "
                           "where it is assigned)", kind="raises") from None
        except Exception:   # noqa: BLE001 -- another failure: not the lane type's
            continue
        dtype = got.dtype if isinstance(got, (np.generic, np.ndarray)) else None
        if batch is None or dtype is None or dtype == batch:
            continue
        if np.promote_types(dtype, batch) != batch or dtype.kind in "fc" and (
                batch.kind in "fc" and dtype.itemsize * (2 if dtype.kind == "f" else 1)
                != batch.itemsize * (2 if batch.kind == "f" else 1)):
            raise Unsupported(
                f"{label} of a per-example value whose type differs between lanes "
                f"({lane_type} on some): as {lane_type} it gives {dtype}, while the batch "
                f"computes every lane in the joined type ({batch})",
                suggestion="give the value one type on every path (e.g. a tensor "
                           "of one dtype where it is assigned)")


def described(site: Site) -> str:
    return ", ".join(v.describe() for v in site.args if isinstance(v, (Value, TupleValue)))


def first_line(exc) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _method(name: str):
    def call(x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)
    call.__name__ = name
    return call


def shadow(fn):
    """``fn`` as the analysis runs it on examples the same for every example."""
    call = _method(fn) if isinstance(fn, str) else fn
    return examples.on_examples(call)


# ----------------------------------------------------------- dtypes: batch = per example


def _batched_example(value: Value, rank: int, dtype=None):
    """The tensor an operand is in the batched code, for a batch of one: a batched value
    gets the batch axis and the axes `pad` gives it; a shared one is as it is."""
    torch = torch_module()
    if not value.batched:
        return examples.to_tensor(value.example)
    arr = np.asarray(value.example)
    arr = arr.astype(dtype or arr.dtype).reshape((1,) * (1 + rank - arr.ndim) + arr.shape)
    return torch.from_numpy(np.array(arr))


def _dtype_of(out):
    torch = torch_module()
    if isinstance(out, torch.Tensor):
        return np.dtype(str(out.dtype).rpartition(".")[2])
    return examples.materialized(out)


def matched(site: Site, op, operands, keep=()):
    """The nodes of ``operands`` (``[(value, node)]``, in the order ``op`` takes them), each
    converted where needed so that ``op`` of the batched operands gives the dtype the
    analysis found per example (``site.result``). Operands at the positions in ``keep`` (a
    `where`'s condition) are never converted."""
    values = [v for v, _ in operands]
    nodes = [n for _, n in operands]
    result = site.result
    if not isinstance(result, Value) or not result.known or not all(
            isinstance(v, Value) and v.known for v in values):
        return nodes
    if len(values) < 2 or all(v.rank > 0 and not is_weak(v) for v in values if v.batched):
        # batched operands have dims per example too: they weigh the same in promotion
        # per example and on the batch
        return nodes
    want = examples.materialized(result.example)
    rank = max(v.rank for v in values)
    dtypes = [None] * len(values)

    def batched_dtype():
        try:
            out = op(*[_batched_example(v, rank, d) for v, d in zip(values, dtypes)])
        except Exception:
            return None
        return _dtype_of(out)

    got = batched_dtype()
    if got is None or got == want:
        return nodes
    common = want if want.kind != "b" else _common_dtype(values, keep)
    if common is None:
        _refuse(site, want, got)
    torch_name = f"torch.{common.name}"
    new = list(nodes)
    # first the per-example scalars that gained weight on the batch, then the shared
    # Python numbers (a choice between two Python floats is float64, as Python's)
    # (bools too where the result is a number: `(not a) + True` of Python bools is 2)
    kinds = "iufc" if common.kind == "b" else "biufc"
    for shared in (False, True):
        for i, v in enumerate(values):
            if i in keep or v.kind not in kinds or new[i] is not nodes[i]:
                continue
            if shared:
                if v.batched or not is_weak(v):
                    continue
                new[i] = expr(f"torch.tensor({{x}}, dtype={torch_name})", x=nodes[i])
                values[i] = Value(False, np.ones((), common)[()])
                if batched_dtype() == want:
                    return new
            elif v.batched and (v.rank == 0 or is_weak(v)) and v.dtype != common:
                new[i] = expr(f"{{x}}.to({torch_name})", x=nodes[i])
                dtypes[i] = common
        got = batched_dtype()
        if got == want:
            return new
    _refuse(site, want, got)


def compared_as_per_example(site: Site):
    """The nodes of a comparison's two operands, converted where the batch would compare
    them in another dtype than the example does: a per-example Python number (held in an
    int64 / float64 tensor, `is_weak`) meeting a 0-d tensor is converted to the tensor's
    dtype per example, PyTorch's promotion (an int wrapped into int32 or uint8, `-1` is 255;
    a float rounded to float32; an int64 tensor against a Python float compares in float32),
    while the batch's tensor of it weighs as much as the other. Both converted to the dtype
    the example compares in. Refused where that dtype differs between lanes (an operand a
    Python int on some lanes and an int32 tensor on others, `abstract.MIXED_PARTS`, against
    a uint8 tensor: uint8 on the first, int32 on the others)."""
    values, nodes = list(site.args), list(site.nodes)
    if len(values) != 2 or not all(isinstance(v, Value) and v.known for v in values) or \
            any(v.rank > 0 for v in values):
        return nodes
    dtypes = _comparison_dtypes(values)
    if dtypes is None:      # (not numbers PyTorch promotes: as written)
        return nodes
    per_example, batched, weak, final = dtypes
    lanes_compare_alike(values, final)
    if not weak or per_example is None or per_example == batched:
        return nodes
    for i, v in enumerate(values):
        if v.batched and v.dtype != per_example:
            nodes[i] = expr(f"{{x}}.to(torch.{per_example.name})", x=nodes[i])
    return nodes


def chosen_alike(values) -> None:
    """`lanes_compare_alike` for the comparisons of ``min``/``max`` of ``values``: the first
    against each other, as Python's `min` compares them."""
    for other in values[1:]:
        pair = [values[0], other]
        if not all(isinstance(v, Value) and v.known and v.rank == 0 for v in pair):
            continue
        dtypes = _comparison_dtypes(pair)
        if dtypes is not None and dtypes[3] is not None:
            lanes_compare_alike(pair, dtypes[3])


def _comparison_dtypes(values):
    """(the dtype an example compares ``values`` in, the batch's, whether a per-example
    Python number is among them, the dtype the comparison must be made in), or None where
    they are not numbers PyTorch promotes."""
    try:
        per_example = _compares_in([v.example for v in values])
        batched = _compares_in([_batched_example(v, 0) for v in values])
    except Exception:   # noqa: BLE001 -- not numbers PyTorch promotes
        return None
    weak = any(v.batched and is_weak(v) for v in values)
    return per_example, batched, weak, (
        per_example if weak and per_example is not None else batched)


def lanes_compare_alike(values, final) -> None:
    """Refuse a comparison of ``values`` (two, one of them of mixed lane types,
    `abstract.MIXED_PARTS`) where a lane type compares in another dtype than the batch's
    ``final``."""
    for lane, part in lane_combinations(values, [v.example for v in values]):
        try:
            dtype = _compares_in(lane)
        except Exception:   # noqa: BLE001 -- the lane raises: not decided here
            continue
        if dtype is None:
            # (two Python numbers compare exactly: so does the batch's dtype where it holds
            # their values, an int one where the shared operands fit it; the lane's own
            # number was made that dtype where it was merged, `passes.python_raises`)
            alike = final.itemsize == 8 or final.kind == "b" or (
                final.kind in "iu" and all(_fits(v, final) for v in values if not v.batched))
        else:
            # (a narrower dtype than the batch's compares alike where no Python number is
            # converted into it: tensors widen exactly; a shared number must be one it holds)
            alike = dtype == final or dtype.kind == final.kind or (
                dtype.kind in "iu" and final.kind in "iu")
            # (a Python number per example meets a 64-bit dtype exactly as the batch's
            # 64-bit tensor of it does)
            alike = alike and (dtype == final and _widest(dtype) or all(
                not v.batched and _fits(v, dtype) if type(e) in _PYTHON_NUMBERS else True
                for e, v in zip(lane, values)))
        if not alike:
            lane_type = f"a Python {type(part).__name__}" if type(
                part) in _PYTHON_NUMBERS else f"a {part.dtype} tensor"
            raise Unsupported(
                "a comparison of a per-example value whose type differs between lanes "
                f"({lane_type} on some): there PyTorch compares "
                f"{'the Python numbers exactly' if dtype is None else f'in {dtype}'}, while "
                f"the batch compares every lane in {final}",
                suggestion="give the value one type on every path (e.g. a tensor where it "
                           "is assigned)")


def _widest(dtype) -> bool:
    """Whether ``dtype`` holds a Python number of its kind as the batch's tensor does:
    int64, float64, complex128."""
    return dtype.itemsize == (16 if dtype.kind == "c" else 8) and dtype.kind in "ifc"


def _fits(value: Value, dtype) -> bool:
    """Whether ``value``, the same for every example, is a number ``dtype`` holds."""
    number = value.example
    if not value.exact or type(number) not in _PYTHON_NUMBERS:
        return False
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return type(number) in (bool, int) and info.min <= number <= info.max
    if dtype.kind == "b":
        return type(number) is bool
    with np.errstate(all="ignore"):
        return bool(dtype.type(number) == number)


def _compares_in(operands):
    """The NumPy dtype PyTorch compares ``operands`` (tensors, or examples: 0-d tensors and
    Python numbers) in; None for two Python numbers (Python compares them exactly)."""
    if all(type(e) in _PYTHON_NUMBERS for e in operands):
        return None
    torch = torch_module()
    dtype = torch.result_type(*[examples.to_tensor(e) for e in operands])
    return np.dtype(str(dtype).rpartition(".")[2])


def _common_dtype(values, keep):
    torch = torch_module()
    operands = [examples.to_tensor(v.example) for i, v in enumerate(values) if i not in keep]
    if len(operands) != 2:
        return None
    try:
        return np.dtype(str(torch.result_type(*operands)).rpartition(".")[2])
    except Exception:
        return None


def _refuse(site: Site, want, got):
    raise Unsupported(f"PyTorch gives this operation {want} per example but {got} on the "
                      "batch (a 0-d tensor or a Python number weighs less in PyTorch's "
                      "promotion than a tensor with dims, and per-example scalars get dims "
                      "on the batch)",
                      suggestion="convert the operands to one dtype first, e.g. with "
                                 "x.to(torch.float64)")


# ------------------------------------------------------------------------- rewriting


def _padded_call(site: Site, first_is_base: bool = False, keep=()) -> cst.Call:
    """The call as written, every per-example operand (positional or keyword) of lower
    per-example rank given new axes after the batch axis and converted where the batch
    would promote it otherwise (`matched`); ``first_is_base``: a method call ``x.f(...)``,
    whose object is ``site.nodes[0]``."""
    call = site.node
    names = [k for k in site.kwargs]
    kw_given = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    operands = list(zip(site.args, site.nodes)) + [
        (site.kwargs[k][1], site.kwargs[k][0] or kw_given[k]) for k in names]
    fn = _method(site.func) if isinstance(site.func, str) else site.func
    count = len(site.args)

    def op(*xs):
        return fn(*xs[:count], **dict(zip(names, xs[count:])))
    converted = matched(site, op, operands, keep=keep)
    nodes, kw_nodes = converted[:count], dict(zip(names, converted[count:]))
    values = list(site.args) + [v for _, v in site.kwargs.values()]
    rank = broadcast_rank(values)
    positional = iter(zip(nodes[1:] if first_is_base else nodes,
                          site.args[1:] if first_is_base else site.args))
    args = []
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            node, value = next(positional)
            arg = arg.with_changes(value=pad(node, value, rank))
        elif arg.keyword is not None and arg.keyword.value in site.kwargs:
            arg = arg.with_changes(value=pad(kw_nodes[arg.keyword.value],
                                             site.kwargs[arg.keyword.value][1], rank))
        args.append(arg)
    func = call.func
    if first_is_base:
        func = func.with_changes(value=pad(nodes[0], site.args[0], rank))
    return call.with_changes(func=func, args=args)


def rewrite_elementwise(site: Site):
    return _padded_call(site, first_is_base=isinstance(site.func, str))


def rewrite_where(site: Site):
    if len(site.args) + len(site.kwargs) < 3:
        raise Unsupported("`torch.where(cond)` gives the indices of each example's nonzero "
                          "elements, a different number per example",
                          suggestion="use torch.where(cond, a, b)")
    return _padded_call(site, first_is_base=isinstance(site.func, str), keep={0})
