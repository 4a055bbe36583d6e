"""The options of ``vmap`` that come from its peers: ``torch.func.vmap``'s spellings
(``in_dims``, ``out_dims``), ``randomness`` and ``chunk_size`` on tensors, and JAX's
``axis_size`` and ``axis_name``.

- ``randomness="different"`` (the default here): every example draws its own numbers, as
  ``torch.func.vmap(randomness="different")``; ``"error"`` (``torch.func.vmap``'s default):
  a function that draws random numbers is refused, located at the draw. ``"same"`` (one draw
  shared by every example) is refused: draw outside the function and pass the numbers with
  in_axes None.
- ``chunk_size=k`` on tensors: the batch runs in calls of ``k`` examples, the outputs joined
  (``torch.cat``), as ``torch.func.vmap`` does; ``None`` and ``"auto"``: one call.
- ``axis_size=n``: the batch size where no argument is mapped (JAX): the function's result,
  the same for every example, broadcast to ``n`` examples; where arguments are mapped it must
  equal their size (ValueError, as JAX raises).
- ``axis_name``: accepted and unused. JAX names the mapped axis for its collectives
  (``lax.psum(x, "i")``); NumPy and PyTorch have no collectives, and a call of one inside
  the function has no batching rule (refused, located at that call).
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import VectorizeError
from .pytree import PrefixError, broadcast_prefix, flatten, unflatten
from .vmap_axes import Where, call_error, inconsistent_sizes, user_location

UNSET = object()

# the rules that draw one number per example: `random.per_example` and each backend's own
# (`<backend>.random.per_example`)
_DRAW = "random.per_example"


def spelled(in_axes, out_axes, in_dims, out_dims):
    """``in_axes``/``out_axes`` from either spelling (``torch.func.vmap``'s ``in_dims``/
    ``out_dims``); TypeError where both are given."""
    if in_dims is not UNSET:
        if in_axes != 0:
            raise TypeError("vmap got both in_axes and in_dims (the same option)")
        in_axes = in_dims
    if out_dims is not UNSET:
        if out_axes != 0:
            raise TypeError("vmap got both out_axes and out_dims (the same option)")
        out_axes = out_dims
    return in_axes, out_axes


@dataclass(frozen=True)
class Options:
    randomness: str = "different"
    axis_size: int | None = None
    axis_name: object = None

    @classmethod
    def checked(cls, randomness, axis_size, axis_name) -> Options:
        if randomness not in ("different", "error", "same"):
            raise ValueError(f"vmap randomness must be 'error', 'different' or 'same', got "
                             f"{randomness!r}")
        if randomness == "same":
            raise VectorizeError(
                "vmap(randomness='same') is not supported: every example draws its own "
                "random numbers here", suggestion="draw the numbers outside the function "
                "and pass them with in_axes None, or use randomness='different'",
                **user_location())
        if axis_size is not None and (isinstance(axis_size, bool) or not isinstance(
                axis_size, int) or axis_size < 0):
            raise TypeError(f"vmap axis_size must be a non-negative int, got {axis_size!r}")
        return cls(randomness, axis_size, axis_name)


DEFAULT = Options()


def mapped_size(vm, args):
    """The size of the mapped axes of a call (None where no argument is mapped), checked
    against ``axis_size``."""
    axes = vm.in_axes if isinstance(vm.in_axes, tuple) else (vm.in_axes,) * len(args)
    if len(axes) != len(args):
        return -1      # the call's own check raises the error
    size = None
    for i, (a, ax) in enumerate(zip(args, axes)):
        try:
            flat = broadcast_prefix(ax, a)
        except PrefixError:
            return -1
        for (path, leaf), axis in zip(flatten(a, f"args[{i}]"), flat):
            if axis is None or leaf is None or not hasattr(leaf, "shape"):
                continue
            shape = tuple(leaf.shape)
            if not -len(shape) <= axis < len(shape):
                return -1
            size = shape[axis]
            if size != vm._options.axis_size:
                raise call_error(inconsistent_sizes(
                    [(size, (_jax_name(vm, i, path[len(f"args[{i}]"):]), shape,
                             axis % len(shape), getattr(leaf, "dtype", None)))],
                    vm._options.axis_size),
                    "give axis_size the mapped arguments' size, or leave it out")
    return size


def copied(leaf):
    """An array of its own (a broadcast view is read-only in NumPy; every example's result
    is an array of its own)."""
    copy = getattr(leaf, "copy", None) if type(leaf).__module__ == "numpy" else None
    return copy() if copy is not None else leaf


def refuse_draws(vm, spec) -> None:
    """``randomness="error"``: a specialization that draws random numbers is refused, at
    the draw."""
    for name, filename, line in spec.explanations:
        if name == _DRAW or name.endswith("." + _DRAW):
            import linecache
            text = linecache.getline(filename, line) if filename else ""
            raise VectorizeError(
                f"vmap(randomness='error'): `{vm._name}` draws random numbers",
                filename=filename, line=line, col=len(text) - len(text.lstrip()),
                source_line=text, suggestion="pass randomness='different' (each example "
                "draws its own numbers), or draw outside the function")


def run_in_chunks(spec, args, batched, size, chunk, call, backend):
    """``call(spec.function, args)`` ``chunk`` examples at a time, the batched outputs
    joined along the batch axis (``backend.concatenate``), the others the first chunk's."""
    pieces = [call(spec.function, _sliced(args, batched, start, min(start + chunk, size)))
              for start in range(0, size, chunk)]
    try:
        return _joined(pieces, spec.result, backend)
    except LookupError:     # a piece without its batch axis: one whole call
        return call(spec.function, args)


def _joined(parts, value, backend):
    from .abstract import TupleValue
    if isinstance(value, TupleValue):
        if type(parts[0]) not in (tuple, list) or value.keys is not None:
            raise LookupError("a container other than a tuple or list")
        return type(parts[0])(_joined([p[k] for p in parts], item, backend)
                              for k, item in enumerate(value.items))
    if not getattr(value, "batched", False):
        return parts[0]
    if any(not hasattr(p, "shape") or len(p.shape) <= value.rank for p in parts):
        raise LookupError("a piece without its batch axis")
    return backend.concatenate(parts)


def _sliced(args, batched, start, stop):
    out = []
    for arg, b in zip(args, batched):
        if isinstance(b, tuple):
            out.append(unflatten(arg, _sliced([leaf for _, leaf in flatten(arg)],
                                              _flat(b), start, stop)))
        elif b:
            out.append(arg[start:stop])
        else:
            out.append(arg)
    return out


def _flat(b):
    for item in b:
        if isinstance(item, tuple):
            yield from _flat(item)
        else:
            yield item


def _jax_name(vm, i, path):
    """Argument ``i`` (``path`` inside it) of a call of ``vm`` as JAX's messages name it."""
    if vm._names is None:
        try:
            vm._read_signature()
        except (TypeError, ValueError):
            return f"args[{i}]{path}"
    return Where(vm, i, path).jax_name()
