"""Which values of a `vmap` specialization are Python numbers per example.

`vmap`'s reference is the loop over NumPy scalars and rows, so its parameters are NumPy
values; but inside that loop ``float(y)``, ``int(y)``, ``round(y)``, ``len(v)``, ``math.*``,
``y.item()``, and Python literals combined only with such values are Python numbers, with
Python's semantics (ints that do not wrap, ``(-4.0) ** 0.5`` complex, ``1.0 / 0.0`` raising).
`passes.python_raises` checks the operations on them where Python's result differs from
NumPy's; this module says which they are, from the syntax and the analysis's values.

Flow-insensitive: a name is a Python number if any of its assignments makes one (a check
too many fires only where the operation meets such a value, and then the per-example loop
decides). Unbatched values are judged by their example's type: a literal, a global or an
argument passed as it is (``in_axes=None``) that is a Python number is one.
"""

from __future__ import annotations

import builtins
import cmath
import math

import libcst as cst
import numpy as np

from ..abstract import Value
from ..rules.lists import list_subscript, stored_values
from ..syntax.traversal import walk

_NUMBERS = (bool, int, float, complex)
# builtins whose result is a Python number whatever their argument (a NumPy scalar too)
_ALWAYS = (builtins.float, builtins.int, builtins.complex, builtins.bool, builtins.len)
_RANGE = object()       # a `for` target over `range(...)`: a Python int


_PY, _NP = frozenset({"python"}), frozenset({"array"})
BUDGET = 5_000      # reaching definitions followed per function (`PythonNumbers._name`)
_BOTH = _PY | _NP


def _and(*kinds) -> frozenset:
    """What an arithmetic operation of operands of ``kinds`` gives per example: a NumPy
    value where an operand is one, a Python number where every operand is one (an operand
    not known yet, a name's own definition around a loop, adds nothing)."""
    return (_PY if all("python" in k for k in kinds) and all(kinds) else frozenset()) | (
        _NP if any("array" in k for k in kinds) else frozenset())


class PythonNumbers:
    """``python_valued(node)``: whether ``node`` may be a Python number per example;
    ``mixed(node)``: whether it may be a Python number on some examples and a NumPy value
    on others (``min(1e300, y)``, a name assigned both on different paths)."""

    def __init__(self, analysis, func: cst.FunctionDef, python_params=frozenset()):
        """``python_params``: the parameters the caller passes Python numbers (a helper's;
        ``"?name"``: a Python number on some examples only)."""
        self.analysis = analysis
        self.defs = _definitions(func)
        self.lists = stored_values(func)
        self.names: dict[str, frozenset] = {
            name: _PY for name in python_params if not name.startswith("?")}
        self.names.update({name[1:]: _BOTH for name in python_params if name.startswith("?")})
        self._memo: dict = {}
        # definitions followed where the analysis tells which reach a use; past `BUDGET` the
        # walk takes every definition of a name (a superset: "mixed" more often, which
        # refuses, never a wrong kind), as following each reaching definition separately is
        # exponential in a loop that rebinds many names
        self._followed = 0

    def example(self, node):
        value = self.analysis.values.get(node)
        return value.example if isinstance(value, Value) else None

    def python_valued(self, node, seen=frozenset()) -> bool:
        return "python" in self.kinds(node, seen)

    def python_before(self, target: cst.Name, before) -> bool:
        """Whether the name ``target`` of an augmented assignment holds a Python number per
        example before it, where the analysis gives it ``before`` there (the definitions
        whose value that is: ``r = math.fmod(...)`` of ``r %= r``, whatever the statements
        after it make of the name)."""
        return "python" in self._name(target, before, frozenset())

    def mixed(self, node) -> bool:
        return self.kinds(node) == _BOTH

    def kinds(self, node, seen=frozenset()) -> frozenset:
        """What ``node`` is per example: ``"python"`` (a Python number) and/or ``"array"``
        (a NumPy value)."""
        value = self.analysis.values.get(node)
        t = type(node)
        if isinstance(value, Value) and not value.batched and value.known and not (
                isinstance(value.example, np.generic) and (
                    t is cst.Name or node in getattr(self.analysis, "numpy_scalar_ops", ()))):
            # computed once for every example: its example is the value's type; but an
            # operation on Python numbers that the batch computes on a NumPy scalar (in code
            # every lane runs: `analysis.numpy_scalar_ops`) is per example Python's, and so
            # is a name bound to one (`u /= d` in a loop): read from what it is made of
            return _PY if type(value.example) in _NUMBERS else _NP
        if t is cst.Name:
            return self._name(node, value, seen)
        if t is cst.BinaryOperation:
            return _and(self.kinds(node.left, seen), self.kinds(node.right, seen))
        if t is cst.UnaryOperation:
            # (`not x` is a Python bool whatever x is)
            return _PY if type(node.operator) is cst.Not else self.kinds(node.expression, seen)
        if t is cst.BooleanOperation:
            return self.kinds(node.left, seen) | self.kinds(node.right, seen)
        if t is cst.IfExp:
            return self.kinds(node.body, seen) | self.kinds(node.orelse, seen)
        if t is cst.Comparison:
            # a chain is the result of its first false link, or of its last: a Python bool
            # where any link compares Python numbers (`x < 1e300 < 10` is the Python False
            # of `1e300 < 10` where `x < 1e300` holds)
            operands = [node.left] + [c.comparator for c in node.comparisons]
            out = frozenset()
            for a, b in zip(operands, operands[1:]):
                out |= _and(self.kinds(a, seen), self.kinds(b, seen))
            return out
        if t is cst.Attribute and node.attr.value in ("real", "imag"):
            return self.kinds(node.value, seen)
        if t is cst.Subscript and self._python_table(node.value, seen):
            # an item of a global (or shared) list / tuple / dict of Python numbers taken
            # with a per-example key (`TABLE[int(y) % 3]`, `NESTED[i][j]`): a Python number
            # per example, which the batch holds as a NumPy array
            return _PY
        if t is cst.Subscript and list_subscript(node, self.lists) is not None:
            # an item of a local list (`passes.local_lists`): a Python number where some
            # value stored into it is one
            key = f"{node.value.value}[]"
            if key in seen:
                return frozenset()
            out = frozenset()
            for v in self.lists[node.value.value]:
                out |= self.kinds(v, seen | {key})
            return out or _NP
        if t is cst.Subscript and type(node.value) is cst.Name:
            # `t[0]` of a name assigned a tuple display (`t = (math.ceil(r), r)`): a Python
            # number where the item of some display is one
            index = _constant_index(node)
            key = f"{node.value.value}[{index}]"
            if index is None or key in seen:
                return _NP
            out = frozenset()
            for d in self.defs.get(node.value.value, ()):
                if type(d) in (cst.Tuple, cst.List) and -len(d.elements) <= index < len(
                        d.elements) and type(d.elements[index]) is not cst.StarredElement:
                    out |= self.kinds(d.elements[index].value, seen | {key})
                else:
                    out |= _NP
            return out or _NP
        if t is cst.Subscript:
            # `divmod(a, b)[0]`: an item of a pair of Python numbers
            if type(node.value) is cst.Call and self.example(
                    node.value.func) is builtins.divmod:
                return self.kinds(node.value, seen)
            return _NP
        if t is cst.Call:
            return self._call(node, seen)
        return _NP

    def _python_table(self, node, seen) -> bool:
        """Whether ``node`` is a Python container (list, tuple, dict) of Python numbers the
        same for every example, or an item of one (a row of a nested table), or a local
        name assigned only those."""
        value = self.analysis.values.get(node)
        if isinstance(value, Value) and not value.batched and value.known:
            return _python_numbers_only(value.example)
        t = type(node)
        if t is cst.Subscript:
            return self._python_table(node.value, seen)
        if t is cst.Name and node.value not in self.names and node.value not in seen:
            defs = self.defs.get(node.value, ())
            return bool(defs) and all(
                d is not None and d is not _RANGE and type(d) is cst.Subscript and
                self._python_table(d.value, seen | {node.value}) for d in defs)
        return False

    def _name(self, node: cst.Name, value, seen) -> frozenset:
        name = node.value
        if name in self.names:
            return self.names[name]
        defs = self.defs.get(name, ())
        if isinstance(value, Value) and self._followed < BUDGET:
            # the definitions whose value this is (the analysis's own object: `r = y` after
            # `r = 0.5`, the old `r` of `r = a if c else r`), where the analysis tells (not
            # at a join of several)
            reaching = [d for d in defs if d is not None and d is not _RANGE
                        and self.analysis.values.get(d) is value]
            if reaching:
                out = frozenset()
                self._followed += 1
                for d in reaching:
                    if id(d) not in seen:
                        out |= self.kinds(d, seen | {id(d)})
                return out
        if name in seen:
            return frozenset()
        key = (name, seen)
        if key in self._memo:
            return self._memo[key]
        out = frozenset()
        for d in defs:
            out |= _PY if d is _RANGE else _NP if d is None else self.kinds(d, seen | {name})
        self._memo[key] = out or _NP
        return out or _NP

    def _call(self, node: cst.Call, seen) -> frozenset:
        if type(node.func) is cst.Attribute and node.func.attr.value in (
                "item", "tolist", "is_integer", "bit_length", "bit_count") and not node.args:
            # a NumPy scalar's (or 0-d array's) Python number; `x.is_integer()` is a Python
            # bool and `n.bit_count()` a Python int of a NumPy scalar too
            return _PY
        helper = getattr(self.analysis, "helper_number_kinds", {}).get(node)
        if helper is not None:
            # a helper's result: what its `return`s give (`return 0.0 if t < 0 else -0.5`
            # is a Python float on every example, as written out in place)
            return helper
        fn = self.example(node.func)
        args = [a.value for a in node.args]
        if fn in _ALWAYS:
            return _PY
        if fn is builtins.round:
            return _PY if len(args) == 1 else self.kinds(args[0], seen) if args else _NP
        if fn is builtins.abs:
            return self.kinds(args[0], seen) if len(args) == 1 else _NP
        if fn in (builtins.min, builtins.max):
            # the result is one of the arguments (an iterable's item: unknown, NumPy's)
            if len(args) < 2:
                return _NP
            out = frozenset()
            for a in args:
                out |= self.kinds(a, seen)
            return out
        if fn in (builtins.pow, builtins.divmod):
            return _and(*[self.kinds(a, seen) for a in args]) if args else _NP
        module = getattr(fn, "__module__", None)
        name = getattr(fn, "__name__", "")
        return _PY if module in ("math", "cmath") and (
            getattr(math, name, None) is fn or getattr(cmath, name, None) is fn) else _NP


def _python_numbers_only(example, depth: int = 0) -> bool:
    """Whether ``example`` is a non-empty list, tuple or dict whose items (nested ones'
    too) are all Python numbers."""
    if type(example) is dict:
        items = list(example.values())
    elif type(example) in (list, tuple):
        items = list(example)
    else:
        return False
    return bool(items) and depth < 4 and all(
        type(i) in _NUMBERS or _python_numbers_only(i, depth + 1) for i in items)


def _constant_index(node: cst.Subscript):
    """The int ``k`` of ``name[k]`` (``name[-1]`` too), else None."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
        return None
    value = node.slice[0].slice.value
    negative = type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus
    if negative:
        value = value.expression
    if type(value) is not cst.Integer:
        return None
    return -int(value.value) if negative else int(value.value)


def _definitions(func: cst.FunctionDef) -> dict:
    """name -> what is assigned to it: expressions, `_RANGE` for the target of a loop over a
    ``range``, None where unknown (parameters, other loop targets, unpacking of anything
    but a display or ``divmod``)."""
    defs: dict[str, list] = {}

    def bind(target, value) -> None:
        t = type(target)
        if t is cst.Name:
            defs.setdefault(target.value, []).append(value)
        elif t in (cst.Tuple, cst.List):
            items = [e.value for e in target.elements]
            if type(value) in (cst.Tuple, cst.List) and len(value.elements) == len(items) \
                    and not any(type(e) is cst.StarredElement for e in value.elements):
                for item, e in zip(items, value.elements):
                    bind(item, e.value)
            else:
                divmod_call = type(value) is cst.Call and type(value.func) is cst.Name and \
                    value.func.value == "divmod"
                for item in items:
                    bind(item, value if divmod_call else None)

    for p in func.params.params:
        defs.setdefault(p.name.value, []).append(None)
    for n in walk(func.body):
        t = type(n)
        if t is cst.Assign:
            for target in n.targets:
                bind(target.target, n.value)
        elif t is cst.AnnAssign and n.value is not None:
            bind(n.target, n.value)
        elif t is cst.AugAssign and type(n.target) is cst.Name:
            defs.setdefault(n.target.value, []).append(
                cst.BinaryOperation(n.target, cst.Add(), n.value))
        elif t is cst.NamedExpr:
            bind(n.target, n.value)
        elif t is cst.For:
            ranged = type(n.iter) is cst.Call and type(n.iter.func) is cst.Name and \
                n.iter.func.value == "range"
            if type(n.target) is cst.Name:
                defs.setdefault(n.target.value, []).append(_RANGE if ranged else None)
            else:
                bind(n.target, None)
    return defs
