"""Local Python lists that the function writes into, as per-example arrays.

`passes.local_lists` writes a list the function creates and then changes item by item
(``vals = [0.0, 0.0, 0.0]``, ``vals[i] += x``) as ``vals = __list_array__([0.0, 0.0, 0.0])``:
per example ``__list_array__(items)`` is ``np.array(items)``, an array of the same items,
which the rules of arrays then batch (one row per example, writes as scatters, reads as
columns). An array holds its items exactly as the list does only where every item is a
number of one type, written with numbers of that type: `check_items` and `check_write`
refuse the rest, where they are written, with the reason.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import TupleValue, Value, batched_like
from ..errors import Unsupported
from ..syntax.templates import expr
from ..syntax.traversal import walk
from .registry import Registry, Rule, Site

LIST_ARRAY = "__list_array__"

# what the per-example values of one type are called in the messages
_KINDS = {"b": "bool", "i": "int", "u": "unsigned int", "f": "float", "c": "complex"}
# NumPy's dtype for each Python number: a list of Python numbers is an array of it
_DEFAULTS = {np.dtype(bool), np.dtype(np.int64), np.dtype(np.float64), np.dtype(complex)}
_ORDER = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}     # NumPy's kinds, in promotion order


def list_array(items, known=None):
    """Per example: the items of a local list as an array (`passes.local_lists`).
    ``known``: where `passes.appended_lists` padded the list to the most items an example
    appends, the count of the items before the padding (`padding`)."""
    return np.array(items)


def padding(call: cst.Call) -> int:
    """How many of the items of ``__list_array__([...], known)`` are padding
    (`passes.appended_lists`): no example reads them (reads stay within its count), so they
    are left out of the checks of what the list holds, and where the list holds nothing
    else, its array takes the type of what is appended (`open_list`)."""
    if len(call.args) < 2 or type(call.args[1].value) is not cst.Integer:
        return 0
    return max(0, len(_items(call.args[0].value)) * _count(call.args[0].value)
               - int(call.args[1].value.value))


def open_list(call: cst.Call) -> bool:
    """Whether every item of ``__list_array__(...)`` is padding: the list starts empty
    (``out = []``), so its array's type is that of the items appended to it (the first
    write decides it; one of another type is refused, as for any list)."""
    return bool(_items(call.args[0].value)) and padding(call) == len(
        _items(call.args[0].value)) * _count(call.args[0].value)


def typed(spelled, code: str, result, display) -> str:
    """``code``, the array of a list's items, converted to the dtype the analysis gave the
    list (``result``) where its items (``display``, the list display) would make another: a
    list that starts empty holds the type of what is appended to it (`open_list`)."""
    items = _items(display)
    dtype = getattr(result, "dtype", None)
    if dtype is None or not items:
        return code
    literals = {"True": True, "False": False}
    pieces = []
    for e in items:
        if type(e) in (cst.Integer, cst.Float):
            pieces.append(e.evaluated_value)
        elif type(e) is cst.Name and e.value in literals:
            pieces.append(literals[e.value])
        else:
            return code         # (items that are not literals: as they are)
    natural = np.array(pieces).dtype
    if natural.kind not in _KINDS or np.dtype(dtype) == natural:
        return code
    return spelled.astype(code, spelled.dtype_code(np.dtype(dtype)))


def has_list_arrays(registry) -> bool:
    """Whether ``registry``'s namespace batches the arrays of lists' items (the passes that
    make lists of per-example length such arrays leave them alone where it does not)."""
    return registry.for_call(list_array) is not None


def _described(dtype: np.dtype) -> str:
    return str(dtype) if dtype not in _DEFAULTS else _KINDS.get(dtype.kind, str(dtype))


def _a(dtype: np.dtype) -> str:
    """The dtype's name with its article (`a float`, `an int`)."""
    name = _described(dtype)
    return ("an " if name[0] in "aeiou" else "a ") + name


def _item_dtype(value, node, name: str) -> np.dtype:
    """The dtype one item of the list ``name`` has as an array item; refused where it is
    not a number (a per-example array, a tuple, a string)."""
    if isinstance(value, TupleValue) or not isinstance(value, Value) or not value.known:
        raise Unsupported(f"the list `{name}` holds an item that is not a number known to "
                          "the analysis: only lists of numbers are written into as arrays",
                          node, "keep numbers in the list, or build a NumPy array yourself")
    arr = np.asarray(value.example)
    if arr.ndim or arr.dtype.kind not in _KINDS:
        what = "a per-example array" if arr.ndim else f"a {type(value.example).__name__}"
        raise Unsupported(f"the list `{name}` holds {what}: only lists of numbers are written "
                          "into as arrays (a list of arrays shares them with other names, "
                          "which item writes would change)", node,
                          "stack the rows into a NumPy array (np.stack) and write into it")
    return arr.dtype


def check_items(call: cst.Call, values, name: str, params=(), weak_reads=False) -> np.dtype:
    """The dtype of the array ``__list_array__([...])`` makes, where every item is a number
    of one type; refused otherwise (``[0, 0.5]``: the list holds an int and a float, the
    array two floats). ``values``: the analysis' values of the nodes. ``params``: the
    values of the function's parameters, where its examples are NumPy values (`vmap`): a
    Python number in the list is weakly typed there (``0.0 + np.float32(x)`` is float32)
    and an array's item is not, which matters only where a value of another dtype than
    Python's numbers have is about. ``weak_reads``: the analysis reads the list's items as
    the Python numbers they are per example (`weak_list`), so that does not matter."""
    items = _items(call.args[0].value)
    dtypes = [(_item_dtype(values.get(node), node, name), node) for node in items]
    if not dtypes:
        raise Unsupported(f"the list `{name}` is empty where it is created: items written "
                          "into it would be out of range", call,
                          "create it with its items (`[0.0] * n`)")
    first, _ = dtypes[0]
    for dtype, node in dtypes[1:]:
        if dtype != first:
            raise Unsupported(f"the list `{name}` holds {_a(first)} and "
                              f"{_a(dtype)}: as one array its items would all be of "
                              "one type", node,
                              "write its items as one type (`0.0` rather than `0`)")
    weak = [node for node in items if type(getattr(values.get(node), "example", None))
            in (bool, int, float, complex) and not values[node].batched] if not open_list(
        call) else []
    # (only values of the items' kind or a higher one take over a Python number's type: a
    # Python float combined with int8 values is a float64, as the array's float64 items are)
    other = narrow_param(params, first.kind)
    if weak and other is not None and not weak_reads:
        _weak_refusal(name, other, first, weak[0])
    return first


def weak_list(call: cst.Call, values) -> bool:
    """Whether every item of ``__list_array__([...])`` is a Python number the same for every
    example (``[0.0, 0.5, 2.0]``, a module table's row): read by index, such an item is a
    Python number per example, weakly typed (NEP 50: ``vals[i] * np.float32(y)`` is a
    float32), which the analysis then reads it as, and the rules convert to the narrow type
    it meets (`rules.operators.narrow_weak_operands`)."""
    items = _items(call.args[0].value)
    return bool(items) and not padding(call) and all(
        type(getattr(values.get(node), "example", None)) in (bool, int, float, complex)
        and not values[node].batched for node in items)


def only_indexed(func: cst.FunctionDef, name: str) -> bool:
    """Whether ``func`` uses ``name`` only by index (``name[i]``, read or written) and in
    ``len(name)``, besides binding it once: nothing else reads its items (unpacking,
    ``sum``, a call), which would see the array's NumPy numbers rather than the Python
    ones."""
    total = sum(1 for n in walk(func.body) if type(n) is cst.Name and n.value == name)
    used = bindings = 0
    for n in walk(func.body):
        if type(n) is cst.Subscript and type(n.value) is cst.Name and n.value.value == name:
            used += 1
        elif type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == "len" and \
                len(n.args) == 1 and type(n.args[0].value) is cst.Name and \
                n.args[0].value.value == name:
            used += 1
        elif type(n) is cst.Assign:
            bindings += sum(1 for t in n.targets if type(t.target) is cst.Name
                            and t.target.value == name)
    # (bound once: a name bound to lists in several branches is merged into engine names
    # later, `if_to_where`, whose reads this does not follow)
    return bindings == 1 and used + bindings == total


def narrow_param(params, kind: str):
    """The first of ``params`` (`vmap`'s NumPy values) of a dtype that takes over a Python
    number of ``kind`` it meets (`check_items`), or None."""
    return next((p for p in params if isinstance(p, Value) and p.known and p.dtype is not None
                 and p.dtype.kind in _KINDS and p.dtype not in _DEFAULTS
                 and _ORDER[p.dtype.kind] >= _ORDER[kind]), None)


def check_open_write(target: cst.Subscript, value, params) -> None:
    """A write into a list that starts empty (`open_list`) under `vmap`: a Python number
    appended stays weakly typed per example, which the array's item would not be where the
    examples are of a narrower dtype (`check_items`)."""
    example = getattr(value, "example", None)
    if type(example) not in (bool, int, float, complex):
        return
    kind = np.asarray(example).dtype.kind
    other = narrow_param(params, kind)
    if other is not None:
        _weak_refusal(target.value.value, other, np.asarray(example).dtype, target)


def check_weak_write(target: cst.Subscript, value, params) -> None:
    """A write into a list whose items are read as Python numbers (`weak_list`) under
    `vmap`: a NumPy number written would be read as a Python one, which it is not where the
    examples are of a narrower dtype."""
    example = getattr(value, "example", None)
    if type(example) in (bool, int, float, complex) or not isinstance(value, Value) or \
            value.dtype is None:
        return
    other = narrow_param(params, value.dtype.kind if value.dtype.kind in _ORDER else "c")
    if other is not None:
        raise Unsupported(f"the list `{target.value.value}` holds Python numbers, which "
                          f"keep the type of the {other.dtype} values they are combined with "
                          f"per example, and here {_a(value.dtype)} NumPy value written into "
                          "it, which keeps its own: one array's items are of one type",
                          target,
                          f"write its items as {other.dtype} (`np.{other.dtype}(0)`), or "
                          "write Python numbers (float(...)) into it")


def _weak_refusal(name, other, first, node):
    raise Unsupported(f"the list `{name}` holds Python numbers, which keep the type of the "
                          f"{other.dtype} values they are combined with per example; as an "
                          f"array's items they would be {_described(first)}", node,
                          f"write its items as {other.dtype} (`np.{other.dtype}(0)`)")


def check_write(target: cst.Subscript, value, current) -> None:
    """``vals[i] = v`` into a list `passes.local_lists` made an array: ``v`` must be a
    number of the array's dtype (a list would hold a float where its other items are ints;
    the array would convert it)."""
    name = target.value.value
    old = getattr(current, "dtype", None)
    if not isinstance(value, Value) or not value.known or value.rank or old is None:
        raise Unsupported(f"writing into the list `{name}` an item that is not a number", target,
                          "write numbers into the list")
    new = value.dtype
    if new != old:
        raise Unsupported(f"writing {_a(new)} into the list `{name}` of "
                          f"{_described(old)} items: the list would hold both, one array "
                          "cannot", target,
                          f"convert it first (`{_described(old)}(...)`), or create the list "
                          f"with {_described(new)} items")


def check_index(node: cst.Subscript, parts) -> None:
    """An index of a list `passes.local_lists` made an array must be an int: a list takes
    ``True`` as 1, an array takes a bool as a mask (and a float raises TypeError for the
    list, IndexError for the array)."""
    (index,) = parts
    if index is not None and index.known and index.kind not in "iu":
        raise Unsupported(f"an index of the list `{node.value.value}` that is "
                          f"{_a(index.dtype)}, not an int: as the array of the list's items "
                          "it would not pick the same item", node,
                          "convert it with int(...)")


def _items(node) -> list:
    """The item expressions of a list display, or of ``[a] * n`` / ``n * [a]``."""
    if type(node) is cst.List:
        return [e.value for e in node.elements]
    if type(node) is cst.BinaryOperation:
        inner = node.left if type(node.left) is cst.List else node.right
        return [e.value for e in inner.elements]
    return []


def _count(node) -> int:
    """How many times ``[a] * n`` repeats its display (1 for a display)."""
    if type(node) is cst.BinaryOperation:
        times = node.right if type(node.left) is cst.List else node.left
        return int(times.evaluated_value)
    return 1


def stored_values(func: cst.FunctionDef) -> dict[str, list]:
    """name -> the expressions stored into a list `passes.local_lists` made an array: its
    items where it is created, the values written into it (``vals[i] += e``:
    ``vals[i] + e``), for `analysis.python_numbers` and `passes.python_raises` (an item is
    a Python number per example where a value stored into it is one)."""
    out: dict[str, list] = {}
    for n in walk(func.body):
        if type(n) is cst.Assign and type(n.value) is cst.Call and type(
                n.value.func) is cst.Name and n.value.func.value == LIST_ARRAY:
            for target in n.targets:
                if type(target.target) is cst.Name:
                    items = _items(n.value.args[0].value)
                    pads = padding(n.value) // _count(n.value.args[0].value)
                    out.setdefault(target.target.value, []).extend(
                        items[:len(items) - pads])
    if not out:
        return out
    for n in walk(func.body):
        if type(n) is cst.Assign:
            for target in n.targets:
                t = target.target
                if type(t) is cst.Subscript and type(t.value) is cst.Name \
                        and t.value.value in out:
                    out[t.value.value].append(n.value)
        elif type(n) is cst.AugAssign and type(n.target) is cst.Subscript and type(
                n.target.value) is cst.Name and n.target.value.value in out:
            out[n.target.value.value].append(n.value)
    return out


def list_subscript(node, lists: dict) -> str | None:
    """The list's name where ``node`` reads an item of a lowered list (``vals[i]``)."""
    if type(node) is cst.Subscript and type(node.value) is cst.Name \
            and node.value.value in lists:
        return node.value.value
    return None


# ------------------------------------------------------------------------------ rules

def _infer(site: Site):
    items = site.args[0]
    if isinstance(items, TupleValue):
        return batched_like(np.array([v.example for v in items.items]))
    return batched_like(items.example)       # (the analysis stacked the items already)


def _pieces(node) -> list:
    return _items(node) * _count(node)


def _rewrite(site: Site):
    """``__list_array__([a, b, 0.0])`` with some items per example: the items stacked after
    the batch axis (those the same for every example broadcast)."""
    node = site.nodes[0]
    if type(node) not in (cst.List, cst.BinaryOperation):
        return node         # the display, stacked already (the `stacked_display` operator)
    pieces = _pieces(node)
    items = site.args[0].items if isinstance(site.args[0], TupleValue) else ()
    batched = tuple(getattr(v, "batched", False) for v in items) if len(items) == len(
        pieces) else (True,) * len(pieces)
    names = [f"p{i}" for i in range(len(pieces))]
    return expr(site.spelled.stack_pieces(["{" + n + "}" for n in names], batched),
                **dict(zip(names, pieces)))


def _promoted(site: Site):
    """The list's array, the same for every example, repeated for every example: per-example
    data is written into it."""
    array = expr(typed(site.spelled, site.spelled.array_of("{items}"), site.result,
                       site.nodes[0]), items=site.nodes[0])
    return expr(site.spelled.repeat("{a}", "{n}"), a=array, n=site.batch)


def register(reg: Registry) -> None:
    example = ("vals = [0.0, 0.0, 0.0]\nfor i in range(3):\n    if x > i:\n"
               "        vals[i] += y\nreturn sum(vals)")
    reg.add_call(list_array, Rule(
        "list.as_array", "arrays",
        "A local list of numbers that the function writes into (`vals[i] = v`, `vals[i] += "
        "v`) is an array of its items per example: one row per example, item writes "
        "become column writes (masked under per-example conditions), reads become columns. "
        "Only lists of numbers of one type, written with numbers of that type, are lowered "
        "(an array converts what a list would keep).",
        "vals = [x, y, 0.0]\nvals[k] = x * 2\nreturn vals[0]",
        "vals = np.stack(np.broadcast_arrays(x, y, 0.0), axis=1)\n"
        "vals[np.arange(len(vals)), k] = x * 2\nreturn vals[:, 0]",
        _rewrite, infer=_infer))
    reg.add_creation(list_array, Rule(
        "list.as_array_repeated", "arrays",
        "A local list the same for every example that per-example data is written into "
        "starts as its array, repeated for every example.",
        example,
        "vals = np.repeat(np.array([0.0, 0.0, 0.0])[None], len(x), axis=0)\n"
        "for i in range(3):\n    vals[:, i] = np.where(x > i, vals[:, i] + y, vals[:, i])\n"
        "return 0 + np.sum(vals, axis=1)",
        _promoted))
