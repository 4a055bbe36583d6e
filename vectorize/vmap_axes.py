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


def inconsistent_sizes(sizes) -> str:
    return "vmap got inconsistent sizes for array axes to be mapped:\n" + "\n".join(
        f"  * axis {ax} of {where} of shape {shape} has size {shape[ax]}"
        for _, (where, shape, ax) in sizes)


class VmapIndexError(VectorizeError, IndexError):
    """An out_axes entry beyond the output's dimensions (a `VectorizeError` that is an
    ``IndexError`` too, as torch.func raises it)."""


def normal_axis(axis, ndim, name):
    if not -ndim <= axis < ndim:
        raise call_error(f"vmap out_axes {axis} is out of bounds for an output of `{name}` "
                          f"with {ndim} dimensions (the batch axis included)",
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
