"""What the file rewriter can prove about a sequence a loop goes over (`rewrite.call_sites`):
that it is an array or a list or tuple of numbers (`SequenceFacts._numbers`), so that one
array of it holds the loop's items, and how many items it has (`SequenceFacts._length`), so
that a ``zip`` of several stops where the batched call does. Read from the code and the
module-level values the skeleton computed, never by running anything.
"""

from __future__ import annotations

import operator
import types
from dataclasses import dataclass

import libcst as cst
import numpy as np


@dataclass
class Scope:
    """A function's (or the module's: ``node`` None) local names and, for names set exactly
    once, their value."""

    node: object
    local: set
    single: dict



class SequenceFacts:
    """The `call_sites._Finder` methods that answer those questions (they read its
    ``namespace``, ``module_single`` and ``module_scope``, and its ``_is_numpy``)."""

    def _numbers(self, node, scope: Scope, depth: int = 0) -> str | None:
        """"array" where ``node`` is certainly a NumPy array of numbers (or booleans),
        "sequence" where it is a list or tuple of numbers (`_is_number`; not bools, whose
        array would not be what Python computes with them), None where the rewriter cannot
        tell (a parameter, a generator, a set, a dict, strings, objects...): only those
        become one array whose items are the loop's items."""
        if depth > 8:
            return None
        if isinstance(node, (cst.List, cst.Tuple)):
            ok = node.elements and all(isinstance(e, cst.Element) and self._is_number(
                e.value, scope) for e in node.elements)
            return "sequence" if ok else None
        if isinstance(node, cst.Name):
            if node.value in scope.local:
                value = scope.single.get(node.value)
                return None if value is None else self._numbers(value, scope, depth + 1)
            if node.value not in self.namespace and node.value in self.module_single:
                # an array stays one of numbers whatever code changes it in place; a list
                # the skeleton left unknown may be changed by code it did not run
                kind = self._numbers(self.module_single[node.value], self.module_scope,
                                     depth + 1)
                return kind if kind == "array" else None
            if node.value in getattr(self, "changed_lists", ()):
                return None
            return _numbers_value(self.namespace.get(node.value))
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if isinstance(node.func.value, cst.Name) and self._is_numpy(
                    node.func, node.func.attr.value, scope):
                name = node.func.attr.value
                if any(a.keyword is not None and a.keyword.value == "dtype"
                       for a in node.args) or any(a.star for a in node.args):
                    return None
                if name in _NUMERIC_MAKERS:
                    return "array"
                if name in ("array", "asarray") and len(node.args) == 1:
                    return "array" if self._numbers(node.args[0].value, scope,
                                                    depth + 1) else None
                return None
            if node.func.attr.value in _ARRAY_METHODS and self._numbers(
                    node.func.value, scope, depth + 1) == "array":
                return "array"
            return None
        if isinstance(node, cst.Attribute) and node.attr.value == "T":
            return "array" if self._numbers(node.value, scope, depth + 1) == "array" else None
        if isinstance(node, cst.Subscript):
            return "array" if self._numbers(node.value, scope, depth + 1) == "array" else None
        if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator,
                                                                    cst.MatrixMultiply):
            sides = [self._numbers(node.left, scope, depth + 1) == "array",
                     self._numbers(node.right, scope, depth + 1) == "array"]
            others = [self._is_number(node.left, scope), self._is_number(node.right, scope)]
            if all(a or n for a, n in zip(sides, others)) and any(sides):
                return "array"
        return None

    def _length(self, node, scope: Scope, depth: int = 0):
        """The number of items of a sequence, where the code says it (a module-level value, a
        display, ``np.linspace(a, b, 9)``, ``np.zeros((4, 3))``, ``range(5)``, a local name
        set once to one of those); the text of a name of an array whose length is not known
        (``zip(x, x)``); None otherwise."""
        if depth > 8:
            return None
        if isinstance(node, (cst.List, cst.Tuple)):
            return len(node.elements) if all(isinstance(e, cst.Element)
                                              for e in node.elements) else None
        if isinstance(node, cst.Name):
            if node.value in scope.local:
                value = scope.single.get(node.value)
                return None if value is None else self._length(value, scope, depth + 1)
            if node.value not in self.namespace and node.value in self.module_single:
                value = self.module_single[node.value]
                return self._length(value, self.module_scope, depth + 1) if self._numbers(
                    value, self.module_scope) == "array" else None
            value = self.namespace.get(node.value)
            try:
                return len(value) if _numbers_value(value) else None
            except TypeError:
                return None
        if isinstance(node, cst.Call):
            literal = [_int_literal(a.value) for a in node.args if a.keyword is None]
            if isinstance(node.func, cst.Name) and node.func.value == "range" and \
                    "range" not in scope.local and "range" not in self.namespace and \
                    literal and None not in literal:
                return len(range(*literal))
            if isinstance(node.func, cst.Attribute) and self._is_numpy(
                    node.func, node.func.attr.value, scope):
                kind = node.func.attr.value
                if kind in ("linspace", "logspace", "geomspace") and len(literal) >= 3:
                    return literal[2]
                if kind in ("zeros", "ones", "empty") and node.args:
                    shape = node.args[0].value
                    if isinstance(shape, (cst.Tuple, cst.List)) and shape.elements:
                        shape = shape.elements[0].value
                    return _int_literal(shape)
                if kind == "arange" and literal and None not in literal:
                    return len(range(*literal))
            if isinstance(node.func, cst.Attribute) and node.func.attr.value == "reshape" \
                    and node.args and self._numbers(node.func.value, scope) == "array":
                shape = node.args[0].value
                if isinstance(shape, (cst.Tuple, cst.List)) and shape.elements:
                    shape = shape.elements[0].value
                length = _int_literal(shape)
                return length if length is not None and length >= 0 else None
        if isinstance(node, cst.BinaryOperation) and self._numbers(node, scope) == "array":
            sides = [self._length(side, scope, depth + 1) for side in (node.left, node.right)
                     if not self._is_number(side, scope)]
            return sides[0] if len(set(sides)) == 1 else None
        return None

    def _through_name(self, name: str, scope: Scope, depth: int, fact, unknown, of_value):
        """``fact`` of what the name ``name`` is: its single assignment in the function
        (``unknown`` where it has none) or at module level, else ``of_value`` of the module's
        value of it."""
        if name in scope.local:
            value = scope.single.get(name)
            return unknown if value is None else fact(value, scope, depth + 1)
        if name not in self.namespace and name in self.module_single:
            return fact(self.module_single[name], self.module_scope, depth + 1)
        return of_value(self.namespace.get(name))

    def _one_dimensional(self, node, scope: Scope, depth: int = 0) -> bool:
        """Whether the sequence ``node`` (one `_numbers` accepts) certainly has numbers as its
        items, not rows: a list or tuple of numbers, ``range``, a 1-d module-level value,
        ``np.linspace``/``np.arange``, ``np.zeros(n)`` of an int, ``np.array`` of numbers,
        ``.ravel()``, slices and arithmetic of those. Of no items, ``np.array([])`` is of
        shape (0,) where the batched call over an array of shape (0, 3) is of shape (0, 3)."""
        if depth > 8:
            return False
        if isinstance(node, (cst.List, cst.Tuple)):
            return self._numbers(node, scope) == "sequence"
        if isinstance(node, cst.Name):
            return self._through_name(node.value, scope, depth, self._one_dimensional, False,
                                      _one_dimensional_value)
        if isinstance(node, cst.Call):
            if isinstance(node.func, cst.Name):
                return (node.func.value == "range" and "range" not in scope.local
                        and "range" not in self.namespace)
            if not isinstance(node.func, cst.Attribute):
                return False
            name = node.func.attr.value
            if isinstance(node.func.value, cst.Name) and self._is_numpy(node.func, name, scope):
                if name in ("arange", "linspace", "logspace", "geomspace"):
                    return True
                if name in ("zeros", "ones", "empty") and node.args:
                    return _int_literal(node.args[0].value) is not None or isinstance(
                        node.args[0].value, (cst.Tuple, cst.List)) and len(
                        node.args[0].value.elements) == 1
                if name in ("array", "asarray") and len(node.args) == 1:
                    return self._numbers(node.args[0].value, scope, depth + 1) == "sequence"
                return False
            if name in ("ravel", "flatten") and not node.args:
                return True
            if name in ("copy", "clip", "round"):
                return self._one_dimensional(node.func.value, scope, depth + 1)
            return False
        if isinstance(node, cst.Attribute) and node.attr.value == "T":
            return self._one_dimensional(node.value, scope, depth + 1)
        if isinstance(node, cst.Subscript):
            return (len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice)
                    and self._one_dimensional(node.value, scope, depth + 1))
        if isinstance(node, cst.BinaryOperation):
            return all(self._one_dimensional(side, scope, depth + 1)
                       or self._is_number(side, scope) for side in (node.left, node.right))
        return False

    def _ndim(self, node, scope: Scope, depth: int = 0):
        """The number of dimensions of the sequence ``node`` where the code says it (1 for
        `_one_dimensional`, a module-level array's own, ``np.zeros((4, 3))``,
        ``.reshape(4, 3)``, slices and arithmetic of those), else None."""
        if depth > 8:
            return None
        if self._one_dimensional(node, scope):
            return 1
        if isinstance(node, cst.Name):
            return self._through_name(node.value, scope, depth, self._ndim, None,
                                      lambda v: v.ndim if _numbers_value(v) == "array" else None)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.args:
            name = node.func.attr.value
            shape = node.args[0].value
            if isinstance(node.func.value, cst.Name) and self._is_numpy(node.func, name, scope):
                if name in ("zeros", "ones", "empty") and isinstance(shape, (cst.Tuple, cst.List)):
                    return len(shape.elements)
                return None
            if name == "reshape" and self._numbers(node.func.value, scope) == "array":
                if isinstance(shape, (cst.Tuple, cst.List)):
                    return len(shape.elements) if len(node.args) == 1 else None
                return len(node.args) if all(a.keyword is None for a in node.args) else None
            return None
        if isinstance(node, cst.Attribute) and node.attr.value == "T":
            return self._ndim(node.value, scope, depth + 1)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(
                node.slice[0].slice, cst.Slice):
            return self._ndim(node.value, scope, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            sides = [0 if self._is_number(side, scope) else self._ndim(side, scope, depth + 1)
                     for side in (node.left, node.right)]
            return None if None in sides else max(sides)
        return None

    def _item_dtype(self, node, scope: Scope, depth: int = 0):
        """The dtype one item of the sequence ``node`` has as a call in the loop receives it
        (a Python float is float64, an int int64, a complex complex128; a NumPy array's items
        have its dtype), where the code or the module's values say it and every item has the
        same one; None otherwise (unknown, or mixed: ``[1, 2.5]``)."""
        if depth > 8:
            return None
        if isinstance(node, (cst.List, cst.Tuple)):
            dtypes = {self._number_dtype(e.value, scope) if isinstance(e, cst.Element)
                      else None for e in node.elements}
            return dtypes.pop() if len(dtypes) == 1 else None
        if isinstance(node, cst.Name):
            return self._through_name(node.value, scope, depth, self._item_dtype, None,
                                      _items_dtype_of)
        if isinstance(node, cst.Call):
            return self._made_dtype(node, scope, depth)
        if isinstance(node, cst.Attribute) and node.attr.value == "T" or isinstance(
                node, cst.Subscript):
            return self._item_dtype(node.value, scope, depth + 1)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator,
                                                               (cst.Minus, cst.Plus)):
            dtype = self._item_dtype(node.expression, scope, depth + 1)
            return dtype if dtype is not None and dtype.kind in "iufc" else None
        if isinstance(node, cst.BinaryOperation) and self._numbers(node, scope) == "array":
            sides = []
            for side in (node.left, node.right):
                if self._numbers(side, scope) == "array":
                    dtype = self._item_dtype(side, scope, depth + 1)
                    sides.append(None if dtype is None else np.ones(1, dtype))
                else:
                    dtype = self._number_dtype(side, scope)
                    sides.append(None if dtype is None else dtype.type(1).item())
            operation = _OPERATIONS.get(type(node.operator))
            if any(side is None for side in sides) or operation is None:
                return None
            try:
                with np.errstate(all="ignore"):
                    return np.asarray(operation(*sides)).dtype
            except Exception:
                return None
        return None

    def _made_dtype(self, node: cst.Call, scope: Scope, depth: int):
        """`_item_dtype` of a call: ``range``, the NumPy makers, array methods."""
        numbers = [self._number_dtype(a.value, scope) for a in node.args if a.keyword is None]
        if isinstance(node.func, cst.Name) and node.func.value == "range" and \
                "range" not in scope.local and "range" not in self.namespace:
            return np.dtype(np.int64)
        if not isinstance(node.func, cst.Attribute) or any(
                a.star or a.keyword is not None and a.keyword.value == "dtype"
                for a in node.args):
            return None
        name = node.func.attr.value
        if isinstance(node.func.value, cst.Name) and self._is_numpy(node.func, name, scope):
            if name in ("linspace", "logspace", "geomspace", "zeros", "ones", "empty"):
                return np.dtype(np.float64)
            if name == "arange":
                # (not `None in numbers`: a dtype equals None, NumPy's default float64)
                if numbers and all(n is not None for n in numbers):
                    return np.result_type(*numbers)
                return None
            if name in ("array", "asarray") and len(node.args) == 1:
                value = node.args[0].value
                if isinstance(value, (cst.List, cst.Tuple)):
                    dtypes = [self._number_dtype(e.value, scope) if isinstance(
                        e, cst.Element) else None for e in value.elements]
                    return np.result_type(*dtypes) if dtypes and all(
                        d is not None for d in dtypes) else None
                return self._item_dtype(value, scope, depth + 1)
            return None
        if name in _ARRAY_METHODS and self._numbers(node.func.value, scope) == "array":
            dtype = self._item_dtype(node.func.value, scope, depth + 1)
            # `clip` and `round` keep a float64 array's dtype whatever their numbers
            return dtype if name not in ("clip", "round") or dtype == np.float64 else None
        return None

    def _number_dtype(self, node, scope: Scope):
        """The dtype of a number `_is_number` accepts (an int literal is int64 where it fits),
        else None."""
        if not self._is_number(node, scope):
            return None
        if isinstance(node, cst.UnaryOperation):
            node = node.expression
        if isinstance(node, cst.Float):
            return np.dtype(np.float64)
        if isinstance(node, cst.Imaginary):
            return np.dtype(np.complex128)
        if isinstance(node, cst.Integer):
            value = int(node.value.replace("_", ""), 0)
            return np.dtype(np.int64) if value < 1 << 63 else None
        if isinstance(node, cst.Attribute):
            return _number_value(self._module_constant(node, scope))
        if node.value in scope.local:
            return self._number_dtype(scope.single.get(node.value), Scope(None, set(), {}))
        return _items_dtype_of([self.namespace.get(node.value)])

    def _module_constant(self, node: cst.Attribute, scope: Scope):
        """The value of ``module.name`` (``np.inf``, ``math.pi``) where ``module`` is a
        module of the file's namespace; None otherwise."""
        if not isinstance(node.value, cst.Name) or node.value.value in scope.local:
            return None
        module = self.namespace.get(node.value.value)
        if not isinstance(module, types.ModuleType):
            return None
        return getattr(module, node.attr.value, None)

    # -------------------------------------------------------------------- for loops

    def _is_number(self, node, scope: Scope) -> bool:
        """Whether ``node`` is certainly one number: a numeric literal (signed), or a name
        set once to one (in the function, or at module level)."""
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator,
                                                               (cst.Minus, cst.Plus)):
            node = node.expression
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            return True
        if isinstance(node, cst.Attribute):
            return _number_value(self._module_constant(node, scope)) is not None
        if not isinstance(node, cst.Name):
            return False
        if node.value in scope.local:
            value = scope.single.get(node.value)
            return value is not None and self._is_number(value, Scope(None, set(), {}))
        value = self.namespace.get(node.value)
        return isinstance(value, (int, float, complex, np.number, np.bool_)) and not \
            isinstance(value, bool)


# NumPy calls that make an array of numbers whatever their (numeric) arguments, and methods
# that give an array of numbers of one
_NUMERIC_MAKERS = ("arange", "linspace", "logspace", "geomspace", "zeros", "ones", "empty")
_ARRAY_METHODS = ("reshape", "ravel", "flatten", "copy", "transpose", "squeeze", "clip",
                  "round")


def _numbers_value(value) -> str | None:
    """`_Finder._numbers` of a module-level value as the skeleton has it."""
    if isinstance(value, np.ndarray):
        return "array" if value.dtype.kind in "biufc" else None
    if type(value) in (list, tuple) and value and all(
            type(v) in (int, float, complex) and not (type(v) is int and not (
                -(1 << 63) <= v < 1 << 63)) or isinstance(v, np.number) for v in value):
        return "sequence"
    return None


def _items_dtype_of(value):
    """`SequenceFacts._item_dtype` of a module-level value as the skeleton has it."""
    if isinstance(value, np.ndarray):
        return value.dtype if value.dtype.kind in "biufc" else None
    if _numbers_value(value) is None:
        return None
    dtypes = {np.dtype(type(v)) if isinstance(v, np.generic) else np.asarray(v).dtype
              for v in value}
    return dtypes.pop() if len(dtypes) == 1 else None


_OPERATIONS = {cst.Add: operator.add, cst.Subtract: operator.sub,
               cst.Multiply: operator.mul, cst.Divide: operator.truediv,
               cst.FloorDivide: operator.floordiv, cst.Modulo: operator.mod,
               cst.Power: operator.pow}


def _number_value(value):
    """The dtype of a Python or NumPy number (not a bool), else None."""
    if isinstance(value, (int, float, complex, np.number)) and not isinstance(value, bool):
        return _items_dtype_of([value])
    return None


def _int_literal(node):
    """The value of an integer literal (signed), else None."""
    sign = 1
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        sign, node = -1, node.expression
    if isinstance(node, cst.Integer):
        return sign * int(node.value.replace("_", ""), 0)
    return None


def _one_dimensional_value(value) -> bool:
    """A module's value that is a sequence of numbers or a 1-d array of them."""
    kind = _numbers_value(value)
    return kind == "sequence" or kind == "array" and value.ndim == 1
