"""Strings made from per-example numbers: an f-string, ``"..." % x``, ``"...".format(x)``,
``str(x)``, ``format(x, spec)`` and ``+`` of such strings.

Python formats each number itself (``f"{x:.3g}"``, ``"%5d" % n``); no array operation
formats exactly as it does, so the string piece runs per example, as a list comprehension
over the lanes, with each per-example operand an ordinary vectorized expression handed in as
Python numbers (``.tolist()``: what ``numpy.vectorize`` hands the function). Only that piece
runs in Python; the numbers around it stay vectorized. The result is an array of strings
(``dtype=str``), which the front end sizes as ``numpy.vectorize`` does (its longest item).

The analysis (`Expressions.string_piece`) records which expressions are such pieces and
refuses what would print differently per example than the loop prints: ``repr`` (``!r``,
``%r``: a NumPy scalar's repr is not a Python number's), ``f"{x=}"`` (it shows the
expression's text), per-example arrays, and float32/float16 values (the loop may hold a
NumPy float32, whose digits differ from a Python float's).
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import TupleValue
from ..errors import Unsupported
from ..liveness import Namer, all_names
from ..syntax.templates import expr
from .registry import Registry, Rule, Site


class _Lanes(cst.CSTTransformer):
    """The piece with each per-example operand (by identity) read as its loop variable."""

    def __init__(self, names: dict):
        super().__init__()
        self.names = names

    def on_leave(self, original_node, updated_node):
        name = self.names.get(id(original_node))
        return cst.Name(name) if name is not None else updated_node


def per_example_string(site: Site):
    """``site.node`` (the piece, its operands already vectorized) evaluated per lane:
    ``np.array([f"M{m_i:02d}" for m_i in m.tolist()], dtype=str)``; ``site.nodes`` are its
    per-example operands (nodes inside ``site.node``)."""
    backend = site.spelled
    if not backend.supports_dtype(np.dtype("U1")):
        raise Unsupported(f"a string per example: the {backend.name} backend has no arrays "
                          "of strings", site.original,
                          "return the numbers and format them outside, or use "
                          "backend=\"numpy\"")
    taken = Namer(all_names(site.node))
    names, loop_vars = {}, []
    for operand in site.nodes:
        base = operand.value if type(operand) is cst.Name else "value"
        var = taken.fresh(f"{base}_i")
        names[id(operand)] = var
        loop_vars.append(var)
    elt = site.node.visit(_Lanes(names))
    # (a tuple of per-example numbers, `Expressions._formatted_tuple`: a tuple of Python
    # numbers per lane, ``zip(*(item.tolist() for item in point))``)
    lanes = [expr("{x}.tolist()", x=operand) if not isinstance(value, TupleValue) else
             expr("zip(*({item}.tolist() for {item} in {x}))", x=operand,
                  item=cst.Name(taken.fresh("item")))
             for operand, value in zip(site.nodes, site.args)]
    if len(lanes) == 1:
        target, source = cst.Name(loop_vars[0]), lanes[0]
    else:
        target = cst.Tuple([cst.Element(cst.Name(v)) for v in loop_vars], lpar=[], rpar=[])
        source = cst.Call(cst.Name("zip"), args=[cst.Arg(x) for x in lanes])
    comp = cst.ListComp(elt=elt, for_in=cst.CompFor(target=target, iter=source))
    array = expr(backend.array_of("{comp}"), comp=comp)
    # `dtype=str`: an empty batch is an empty array of strings, not of floats
    return array.with_changes(args=[*array.args, cst.Arg(
        cst.Name("str"), keyword=cst.Name("dtype"),
        equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))])


def register(reg: Registry) -> None:
    reg.add_operator("per_example_string", Rule(
        "string.per_example", "strings",
        "A string made from per-example numbers (an f-string, `%`, `str.format`, `str()`, "
        "`format()`, `+` of strings) is formatted by Python, lane by lane, in a list "
        "comprehension over the operands' values as Python numbers (what numpy.vectorize "
        "hands the function): the same digits as the loop. The numbers around it stay "
        "vectorized; the result is an array of strings as long as its longest item.",
        'label = f"M{m:02d}"',
        'label = np.array([f"M{m_i:02d}" for m_i in m.tolist()], dtype=str)',
        per_example_string))
