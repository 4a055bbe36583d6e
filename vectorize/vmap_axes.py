"""vmap's errors about a user's call (located at the call, as the peers raise them: a
`VectorizeError`, so a ValueError or, as `VmapTypeError`, a TypeError) and the out_axes of a
result: shared by `vmap` and `vmap_nested`."""

from __future__ import annotations

import os
import sys

from .errors import VectorizeError
from .pytree import PrefixError, broadcast_prefix, describe, is_node

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def user_location() -> dict:
    """Where the user's code called into vectorize (the first frame outside the package):
    the located form of an error about a call of theirs."""
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _PACKAGE + os.sep):
        frame = frame.f_back
    if frame is None:
        return {}
    import linecache
    filename, line = frame.f_code.co_filename, frame.f_lineno
    text = linecache.getline(filename, line)
    col = len(text) - len(text.lstrip())
    return {"filename": filename, "line": line, "col": col, "source_line": text}


def call_error(message: str, suggestion: str = "", kind=VectorizeError):
    """An error about the user's call of a vmapped function (a `VectorizeError`, so a
    ValueError like the peers', located at the call)."""
    return kind(message, suggestion=suggestion, **user_location())


def inconsistent_sizes(sizes, axis_size=None) -> str:
    """JAX's message for mapped axes of different sizes (``sizes``: (size, (where, shape,
    axis[, dtype])) of each mapped leaf): the sizes from the most common on, each with the
    first leaf that has it, named as JAX names it (``argument x``, ``argument b[0]``,
    ``args[2]`` beyond the named parameters) with its type (``float32[10,4]``)."""
    import collections
    counts = collections.Counter(size for size, _ in sizes).most_common()
    lines = ["vmap got inconsistent sizes for array axes to be mapped:"]
    if axis_size is not None:
        lines.append(f"  * the `axis_size` argument was {axis_size};")
    for k, (size, count) in enumerate(counts):
        where, shape, ax, *dtype = next(entry for s, entry in sizes if s == size)
        name = where.jax_name() if hasattr(where, "jax_name") else str(where)
        kind = str(dtype[0]).rsplit(".", 1)[-1] if dtype else "array"
        leaf = f"axis {ax} of {name} of type {kind}[{','.join(map(str, shape))}]"
        if count == 1:
            lines.append(f"  * one axis had size {size}: {leaf};")
        else:
            most = "most" if k == 0 else "some"
            lines.append(f"  * {most} axes ({count} of them) had size {size}, e.g. {leaf};")
    return "\n".join(lines)[:-1]


class VmapIndexError(VectorizeError, IndexError):
    """An out_axes entry beyond the output's dimensions (a `VectorizeError` that is an
    ``IndexError`` too, as torch.func raises it)."""


def normal_axis(axis, ndim, name):
    if not -ndim <= axis < ndim:
        raise call_error(f"vmap out_axes: axis {axis} is out of bounds for an output of "
                          f"`{name}` with {ndim} dimensions (the batch axis included)",
                          "give out_axes an axis the output has", VmapIndexError)
    return axis % ndim


def out_axes_of(out_axes, out, name) -> list:
    """The out_axes entry of each leaf of the output ``out``; ValueError where ``out_axes`` is
    not a tree prefix of it (a one-entry tuple for a single output is taken, as torch.func
    takes it)."""
    if is_node(out_axes) and not is_node(out) and type(out_axes) is tuple \
            and len(out_axes) == 1 and not is_node(out_axes[0]):
        return [out_axes[0]]
    try:
        return broadcast_prefix(out_axes, out)
    except PrefixError as exc:
        raise call_error(f"vmap out_axes specification must be a tree prefix of the "
                          f"corresponding value; `{name}` returned {describe(out)} and "
                          f"out_axes is {out_axes!r}: {exc}",
                          "give out_axes the structure of the result") from None


class Where:
    """Which argument (or leaf of one) an error is about, spelled only when one is raised:
    ``argument `x` (args[0])``, ``args[1]['a']``."""

    __slots__ = ("owner", "index", "path")

    def __init__(self, owner, index, path=""):
        self.owner, self.index, self.path = owner, index, path

    def __str__(self):
        owner, i = self.owner, self.index
        if isinstance(i, str):
            return f"{i}{self.path}"
        names = owner._names or ()
        position = len(owner._lead) + i
        if self.path == "" and position < min(len(names), owner._n_positional):
            return f"argument `{names[position]}` (args[{i}])"
        return f"args[{i}]{self.path}"

    def jax_name(self) -> str:
        """The argument as JAX's messages name it: ``argument x``, ``argument b[0]``, or
        ``args[2]`` for one beyond the named parameters (``*args``)."""
        owner, i = self.owner, self.index
        if isinstance(i, str):
            return f"{i}{self.path}"
        names = owner._names or ()
        position = len(owner._lead) + i
        if position < min(len(names), owner._n_positional):
            return f"argument {names[position]}{self.path}"
        return f"args[{i}]{self.path}"

    def spec(self) -> str:
        if isinstance(self.index, str):
            return ""
        return f"in_axes[{self.index}]" if isinstance(self.owner.in_axes, tuple) else "in_axes"
