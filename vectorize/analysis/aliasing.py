"""Names for one object: views, copies and in-place updates.

Per example ``y = x`` (or a view, ``x[1:]``, ``x.T``) makes two names for one array, which an
in-place update (``x += v``) changes for both; the batch rebinds one name only. This module
finds the bindings of names to other names' objects (`_alias_links`, `_viewed_name`) and
refuses the updates some other name could see (`Aliasing._no_aliased_update` and its
siblings). It also owns the arrays the function creates (np.zeros, ``.copy()``: the
registry's creation family) and may write into (`Aliasing.item_write`): one that per-example
data is written into holds per-example data from its creation on (``promoted``); and the
per-example scalars read from an array that a later write would change on the batch, which
are copied (`copied_reads`).
"""

from __future__ import annotations

import builtins
import functools
import inspect
import types
import weakref
from collections.abc import Mapping

import libcst as cst
import numpy as np

from ..abstract import MIXED_PARTS, UNKNOWN, TupleValue, Value, batched_like
from ..errors import Unsupported
from ..liveness import target_names
from ..rules.lane_copies import copies, is_lanes_copy
from ..rules.lists import (
    LIST_ARRAY,
    check_items,
    check_open_write,
    check_weak_write,
    check_write,
    has_list_arrays,
    only_indexed,
    open_list,
    weak_list,
)
from ..syntax.traversal import children, walk
from .environments import Env
from .float_semantics import evaluate as _evaluate
from .purity import in_package
from .syntax import code_of as _code


class ArgumentWritten(Unsupported):
    """A helper's write into an array its caller passes it, refused at the call."""


class Aliasing:
    """The `Analysis` methods about objects shared between names and arrays written into."""

    def _bind_scalar_reads(self, small: cst.Assign) -> None:
        """Remember the names ``a = y[0]`` binds to a per-example scalar read from the
        per-example array ``y`` by basic indexing (also through a conditional expression,
        ``and``/``or`` or a tuple display)."""
        into = {base.value for target in small.targets
                if type(target.target) in (cst.Tuple, cst.List)
                for element in target.target.elements
                for base in [getattr(element.value, "value", None)]
                if type(element.value) is cst.Subscript and type(base) is cst.Name}
        # a read whose array the same statement writes into: `y[0], y[3] = y[3], y[0]` (per
        # example the right side holds two numbers, on the batch two views of `y`, the first
        # changed by the first write), `y[i], y[j] = y[j], y[i]` where per example `y[j]` is
        # a view (a row, a PyTorch item: the first write changes what the second one writes;
        # on the batch both are gathers, copies)
        for table, bound, stale in self._stale_read_kinds():
            reads = [n for n in _held(small.value) if n in table]
            for node in reads:
                if table[node] in into:
                    stale(node)
            if reads:
                names = {t for target in small.targets for t in target_names(target.target)}
                bound.append((names, reads, small))

    def _stale_read_kinds(self) -> tuple:
        """(reads -> the array read, the bindings of such reads, what a later write into
        the array does to a read still live): per-example scalars read from an array
        (copied, `_copied_read`), then per-example views gathered by a per-example index
        (refused, `_stale_gather`)."""
        return ((self._scalar_reads, self._bound_scalar_reads, self._copied_read),
                (self._gathered_views, self._bound_gathered_views, self._stale_gather))

    def _stale_gather(self, node) -> None:
        """A per-example view read by a per-example integer index (`_gathered_views`), which
        a write into its array changes per example while it is still read: on the batch the
        read is a gather (a copy), which the write would not change. Refused."""
        base = self._gathered_views[node]
        code = _code(node).strip()
        raise Unsupported(f"`{code}` is a view of `{base}` per example (its index is a "
                          f"per-example integer), read after `{base}` is written into: per "
                          "example the write changes it, on the batch it is a copy (a "
                          "gather)", node,
                          f"copy it where it is read (`{self.registry.primitives.copy(code)}`)"
                          f", or read it again after the write")

    def _copy_scalar_reads(self) -> None:
        """``a = y[0]`` is a NumPy scalar per example, a copy of the element; on the batch
        ``y[:, 0]`` is a view, which a later write into ``y`` (``y[0] += v``) would change.
        Such reads whose name may still be read after such a write (later in the code, or
        in a loop around both) are copied (`copied_reads`: ``y[:, 0].copy()``); ``a =
        y[1:]`` is a view per example too, and stays one."""
        if not self._bound_scalar_reads and not self._bound_gathered_views:
            return
        writes_into: dict[str, list] = {}
        for n in walk(self.tree.body):
            if type(n) is cst.Assign:
                targets = [t.target for t in n.targets]
            elif type(n) is cst.AugAssign:
                targets = [n.target]
            else:
                continue
            for t in targets:
                if type(t) is cst.Subscript and type(t.value) is cst.Name:
                    writes_into.setdefault(t.value.value, []).append(n)
        if not writes_into:
            return
        if self._aliases is None:
            self._init_aliases()
        for table, bound, stale in self._stale_read_kinds():
            for names, reads, small in bound:
                index, loops, _ = self._where.get(id(small), (0, frozenset(), ()))
                for node in reads:
                    for write in writes_into.get(table[node], ()):
                        at, around, _ = self._where.get(id(write), (0, frozenset(), ()))
                        if (at > index or around & loops) and \
                                names & self._live.get(write, set()):
                            stale(node)

    def _copied_read(self, node) -> None:
        """A per-example item read that a later write would change on the batch: copied
        (NumPy's and JAX's items are numbers per example); refused where the backend's items
        are views per example (`Backend.item_views`: PyTorch's 0-d tensors, which a masked
        write, a new tensor, cannot keep as views)."""
        if self.registry.primitives.item_views:
            base = self._scalar_reads[node]
            raise Unsupported(f"`{_code(node).strip()}` is a 0-d view of `{base}` per example "
                              f"(PyTorch's item), read after `{base}` is written into: the "
                              "batch cannot keep it a view under per-example conditions",
                              node, f"copy it where it is read (`{_code(node).strip()}"
                              ".clone()`), or write the items one at a time")
        self.copied_reads.add(node)

    def _no_stale_view(self, small: cst.Assign, value) -> None:
        """``a = y[1:]`` (or ``y.T``, ``y.reshape(...)``...) is a view of ``y`` per example,
        which a later write into ``y`` (``y[2] = v``) changes too. On a backend whose arrays
        are values (`Backend.views` off: JAX's, written into as functional updates) the
        batch's ``a`` would keep the old items: refused where ``y`` may be written into after
        the binding (later in the code, or in a loop around both) while ``a`` may still be
        read (live there)."""
        if self.registry.primitives.views or type(small.value) is cst.Name:
            return
        source = _viewed_name(small.value)
        if source is None or not (isinstance(value, Value) and isinstance(
                value.example, np.ndarray) and value.example.ndim > 0):
            return
        names = {t for target in small.targets for t in target_names(target.target)} - {
            source}
        if not names or not self._written_into(source):
            return
        if self._aliases is None:
            self._init_aliases()
        index, loops, _ = self._where.get(id(small), (0, frozenset(), ()))
        for n in walk(self.tree.body):
            if type(n) is cst.Assign:
                targets = [t.target for t in n.targets]
            elif type(n) is cst.AugAssign:
                targets = [n.target]
            else:
                continue
            if not any(type(t) is cst.Subscript and type(t.value) is cst.Name
                       and t.value.value == source for t in _flat_targets(targets)):
                continue
            at, around, _ = self._where.get(id(n), (0, frozenset(), ()))
            live = names & self._live.get(n, set())
            if (at > index or around & loops) and live:
                raise Unsupported(
                    f"`{sorted(live)[0]}` is a view of `{source}` per example, and `{source}` "
                    f"is written into while `{sorted(live)[0]}` is still read: the "
                    f"{self.registry.primitives.name} backend's arrays cannot share memory, "
                    "so the view would keep the old items", small,
                    f"copy the view where it should not change (`{_code(small.value)}"
                    f".copy()`), or read it again after the write")

    def _no_aliased_update(self, small: cst.AugAssign, env: Env) -> None:
        """``x += v`` where the per-example ``x`` is an array (a vector, or the 0-d array
        that ``np.where`` of scalars returns) changes it in place, so per example every name
        bound to the same object (``y = x``, or ``x = y`` before it) sees the change; the
        batch rebinds ``x`` only. Rejected when the function binds another name to ``x``
        (either way, through any chain of such bindings) that may come before the update
        (earlier in the code, or in a loop around both) and whose value may still be read
        after it (live there), and ``x`` may hold such an array. (Which names share the
        object is not tracked along each path: a binding on another branch counts too, which
        may refuse a function whose aliases never meet the update.)"""
        name = small.target.value
        current = env.values.get(name)
        if not (isinstance(current, Value) and current.batched):
            return
        if self._aliases is None:
            self._init_aliases()
        if not (isinstance(current.example, np.ndarray)
                or self._may_hold_0d_array(name, small)
                or self.registry.primitives.item_views and isinstance(
                    current.example, np.generic)):
            # (`Backend.item_views`: a per-example scalar is a 0-d tensor, which `+=`
            # changes in place as it does an array)
            return
        others = sorted(self._group(name, small) & self._live.get(small, set()))
        if others:
            op = _code(small.operator).strip()
            raise Unsupported(f"`{name} {op}` changes the per-example array `{name}` in place, "
                              f"and `{others[0]}` is bound to it (or to a view of it) too: per "
                              f"example both change, the batch would change only `{name}`",
                              small,
                              f"write `{name} = {name} {op[:-1]} ...` (a new array), or bind "
                              f"a copy where `{name}` and `{others[0]}` are bound to each "
                              f"other (`.copy()`)")

    def _in_place_update_keeps_dtype(self, small: cst.AugAssign, before, after) -> None:
        """``x += v`` where the per-example ``x`` is a 0-d tensor or a tensor
        (`Backend.item_views`) changes it in place: per example the result keeps ``x``'s
        dtype (``int8 += int32`` wraps in int8; ``int /= 2`` raises, a float cannot be cast
        to it), while the batch binds ``x`` to the promoted result. Refused where the two
        dtypes differ."""
        if not (isinstance(before, Value) and isinstance(after, Value)
                and isinstance(before.example, (np.generic, np.ndarray))):
            return
        if not self.registry.primitives.item_views:
            # NumPy: a per-example array (a vector, or the 0-d array `np.where` of scalars
            # returns) changes in place too: `v /= 2.0` of an int array raises
            # UFuncTypeError per example, where the batch would rebind `v` to floats
            if self._aliases is None:
                self._init_aliases()
            if not (isinstance(before.example, np.ndarray) or self._may_hold_0d_array(
                    small.target.value, small)):
                return
            own, promoted = before.example.dtype, getattr(after.example, "dtype", None)
            # (also an int result into a bool array: `y -= w` of a bool `y`, int `w`)
            if promoted is None or own.kind not in "biu" or promoted.kind not in (
                    "fc" if own.kind in "iu" else "iufc") or np.can_cast(promoted, own,
                                                                       "same_kind"):
                return
            name, op = small.target.value, _code(small.operator).strip()
            raise Unsupported(f"`{name} {op}` changes the per-example array `{name}` in "
                              f"place, and NumPy refuses to cast its {promoted} result into "
                              f"the {own} array (a UFuncTypeError per example), while the "
                              f"batch would hold the result in {promoted}", small,
                              f"write `{name} = {name} {op[:-1]} ...` (a new array), or "
                              "convert the operand to the array's dtype first", kind="raises")
        if not before.batched:
            return
        promoted = getattr(after.example, "dtype", None)
        # (a value of mixed lane types, `abstract.MIXED_PARTS`: each lane type that is a
        # tensor changes in place in its own dtype)
        owns = [part.dtype for part in MIXED_PARTS.get(before, (before.example,))
                if isinstance(part, (np.generic, np.ndarray))]
        own = next((dtype for dtype in owns if dtype != promoted), None)
        if promoted is None or own is None:
            return
        name, op = small.target.value, _code(small.operator).strip()
        what = self.registry.backend.arrays.rstrip("s")
        raise Unsupported(f"`{name} {op}` changes the per-example {what} `{name}` in place, "
                          f"which keeps its dtype {own} (or raises where "
                          f"{promoted} cannot be cast to it), while the batch would hold the "
                          f"result in {promoted}", small,
                          f"write `{name} = {name} {op[:-1]} ...` (a new value of the promoted "
                          "dtype), or convert the operand to the dtype first", kind="raises")

    def _no_update_of_the_callers_array(self, small: cst.AugAssign, env: Env) -> None:
        """``x += v`` where the per-example ``x`` is the caller's array (`_callers_view`).
        Per example the update changes the caller's array in place (``vmap``'s loop over
        rows or over a tensor's 0-d items, and torch.func's); numpy.vectorize with a
        signature hands out read-only rows and raises. The batch would rebind ``x`` only,
        the caller's array kept."""
        name = small.target.value
        if self.helper or not self.registry.primitives.in_place_writes:
            return
        what = self._callers_view(name, env.values.get(name), small)
        if what is not None:
            op = _code(small.operator).strip()
            raise Unsupported(f"`{name} {op}` changes the per-example array `{name}` in place, "
                              f"which is {what}: per example the caller's array changes (or "
                              "raises where it is read-only), the batch would not change it",
                              small,
                              f"write `{name} = {name} {op[:-1]} ...` (a new array), or copy "
                              f"it first: {name} = {name}.{self._copy_method()}()")

    def _copy_method(self) -> str:
        """The method that copies an array of the backend (PyTorch's, whose items are views:
        ``clone``)."""
        return "clone" if self.registry.primitives.item_views else "copy"

    def _callers_view(self, name: str, current, at) -> str | None:
        """What the per-example ``name`` shares with the caller's argument where ``at``
        runs, or None: a parameter (not rebound to its own copy or a new value first) whose
        example is a row of the argument (a vector or more), or, where the backend's items
        are views (`Backend.item_views`: PyTorch's) and ``vmap``'s loop hands out items
        (not numbers, as numpy.vectorize does), a 0-d view of it."""
        if not (isinstance(current, Value) and current.batched) or name not in self.params:
            return None
        example = current.example
        if isinstance(example, np.ndarray) and example.ndim:
            what = "a row of the caller's argument"
        elif self.registry.primitives.item_views and not self.python_semantics and \
                isinstance(example, (np.generic, np.ndarray)):
            what = f"a 0-d view of the caller's {self.registry.backend.arrays.rstrip('s')} " \
                   "(its item)"
        else:
            return None
        if self._rebound_to_its_own(name, at) or self._rebound_to_a_new_value(name, at):
            return None
        return what

    def _rebound_to_a_new_value(self, name: str, at) -> bool:
        """Whether the statements before the one holding ``at`` bind ``name`` to a value an
        operator makes (``x = x * 2``, ``x = -x``): the last such binding at the body's top
        level, and none inside a branch or loop to anything else (a view: ``x = x[1:]``)."""
        new = False
        for stmt in self.tree.body.body:
            if any(n is at for n in walk(stmt)):
                return new
            for n in walk(stmt):
                if type(n) is cst.Assign and any(type(t.target) is cst.Name
                                                 and t.target.value == name
                                                 for t in n.targets):
                    made = type(n.value) in (cst.BinaryOperation, cst.Comparison) or type(
                        n.value) is cst.UnaryOperation and type(n.value.operator) is not cst.Not
                    top = type(stmt) is cst.SimpleStatementLine and n in stmt.body
                    new = made if top else new and made
        return new

    def _no_update_of_a_shared_array(self, small: cst.AugAssign, env: Env) -> None:
        """``w += v`` where ``w`` is the same array for every example (an argument passed as
        it is, or a global) or a view of it: per example every example changes it in place
        again (the next example sees the changes of the ones before); the batch would rebind
        ``w`` once."""
        name = small.target.value
        current = env.values.get(name)
        if not (isinstance(current, Value) and not current.batched
                and isinstance(current.example, np.ndarray)):
            return
        if self._aliases is None:
            self._init_aliases()
        group = {name} | self._group(name, small)
        shared = sorted(n for n in group if n in self.params
                        and not (n == name and self._rebound_to_its_own(n, small))
                        or n not in self._assigned_names())
        if shared:
            op = _code(small.operator).strip()
            raise Unsupported(f"`{name} {op}` changes the array `{shared[0]}` in place, which "
                              f"is the same for every example (the caller's argument or a "
                              f"global): per example each example changes it again, the "
                              f"batch would not", small,
                              f"write `{name} = {name} {op[:-1]} ...` (a new array)")

    def _no_change_of_a_shared_container_by(self, fn, node: cst.Call, env: Env) -> None:
        """A helper that changes a list or dict passed to it (``p.append(v)``, ``p.pop()``)
        where the argument is a container of ``vmap``'s arguments it does not map
        (`_shared_container`): per example each example changes the caller's container;
        the batch changes the copy vmap rebuilt, never the caller's. (numpy.vectorize's
        shared containers, `excluded`, are the caller's own: a call on them runs once per
        batched call, the divergence docs/semantics.md lists.)"""
        changed = _parameters_changed_as_containers(fn)
        if not changed or self.helper:
            return
        names = list(_signature_names(fn))
        for i, arg in enumerate(node.args):
            parameter = arg.keyword.value if arg.keyword is not None else (
                names[i] if i < len(names) and not arg.star else None)
            if parameter not in changed or type(arg.value) is not cst.Name:
                continue
            what = self._shared_container(arg.value, env)
            if what is not None:
                source = arg.value.value
                raise Unsupported(f"`{fn.__name__}` changes its argument `{parameter}` "
                                  f"(`{parameter}.{changed[parameter]}()`), which is `{source}` "
                                  f"here, a {what} passed to vmap unmapped: per example each "
                                  f"example changes the caller's {what}, the batch would change "
                                  "a copy of it", node,
                                  f"pass the function's own {what} (`{what}({source})`), or "
                                  "return what it should add and change the container after "
                                  "the call")

    def _assigned_names(self) -> set:
        """The names an assignment anywhere in the function binds."""
        if self._assigned is None:
            self._assigned = {t for n in walk(self.tree.body) if type(n) is cst.AssignTarget
                              for t in target_names(n.target)}
        return self._assigned

    def _shared_container(self, node: cst.Name, env: Env) -> str | None:
        """The type of the list or dict ``node`` names where it is a container of ``vmap``'s
        arguments that it does not map (``in_axes=None``; the same object for every example
        in the loop, a copy of it in the batch) and the function never binds the name to
        one of its own; else None."""
        if node.value in self._assigned_names():
            return None
        current = env.values[node.value] if node.value in env.values else self.expr(node, env)
        if isinstance(current, TupleValue) and current.kind in (list, dict) and not \
                current.batched:
            return current.kind.__name__
        return None
        current = env.values[node.value] if node.value in env.values else self.expr(node, env)
        if isinstance(current, Value) and not current.batched and isinstance(
                current.example, (list, dict, set)):
            return type(current.example).__name__
        if isinstance(current, TupleValue) and current.kind in (list, dict) and not \
                current.batched:
            return current.kind.__name__    # (a pytree's list or dict: `vmap`'s in_axes None)
        return None

    def _no_update_of_an_argument(self, fn, node: cst.Call, env: Env) -> None:
        """A helper that updates a parameter in place (``v *= 2``, also through a name or a
        view bound to it) changes the caller's argument when that is an array (a vector, or
        the 0-d array of ``np.where``): per example the caller sees the change where it
        reads the argument again; the batch rebinds the helper's name only. Refused when the
        caller reads that variable anywhere else."""
        updated = _parameters_updated_in_place(fn)
        if not updated:
            return
        if self._aliases is None:
            self._init_aliases()
        names = list(_signature_names(fn))
        for i, arg in enumerate(node.args):
            parameter = arg.keyword.value if arg.keyword is not None else (
                names[i] if i < len(names) and not arg.star else None)
            source = _viewed_name(arg.value)
            if parameter not in updated or source is None:
                continue
            value = env.values.get(source)
            what = None if self.helper or not self.registry.primitives.in_place_writes \
                else self._callers_view(source, value, node)
            if what is not None:
                raise Unsupported(f"`{fn.__name__}` changes its argument `{parameter}` in place "
                                  f"(`{parameter} {updated[parameter]}`), which is `{source}` "
                                  f"here, {what}: per example the caller's array changes, "
                                  f"the batch would not change it", node,
                                  f"in `{fn.__name__}`, write `{parameter} = {parameter} ...` "
                                  f"(a new array), or pass `{source}.{self._copy_method()}()`")
            if not (isinstance(value, Value) and value.batched and (
                    isinstance(value.example, np.ndarray)
                    or self._may_hold_0d_array(source, node))):
                continue
            readers = [n for n in {source} | self._group(source, node)
                       if self._reads_of(n) > 1]
            if readers:
                raise Unsupported(f"`{fn.__name__}` changes its argument `{parameter}` in place "
                                  f"(`{parameter} {updated[parameter]}`), which is the "
                                  f"per-example array `{source}` here, read again by this "
                                  f"function: per example it sees the change, the batch would "
                                  f"not", node,
                                  f"in `{fn.__name__}`, write `{parameter} = {parameter} ...` "
                                  f"(a new array), or pass `{source}.copy()`")

    def _arguments_written_by(self, fn, node: cst.Call, args, kwargs, env=None):
        """A helper that writes into the items of a parameter (``w[i] += v``) changes the
        caller's array: per example each example's own, on the batch the batch's rows, the
        same memory, where the argument is a name bound to an array this function owns
        (created, or passed to it to write into) and every lane makes the call. Anything
        else is refused here; an array the same for every example that the helper may write
        per-example data into (another argument is per example) holds per-example data from
        its creation on."""
        written = [p for p in _parameters_written_in_place(fn)
                   if p not in _parameters_updated_in_place(fn)]
        if written and not self.registry.primitives.item_views:
            # a write inside a `try` that catches TypeError, into a parameter passed a number
            # per example, raises there: the handler runs, nothing is written
            # (`passes.try_except`)
            numbers = _number_parameters(fn, args, kwargs)
            written = [p for p in written if p not in numbers or
                       p not in writes_caught_as_type_errors(fn)]
        if not written:
            return args, kwargs
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        try:
            bound = inspect.signature(fn, follow_wrapped=False).bind(*range(len(positional)),
                                               **dict.fromkeys(keywords, -1))
        except (TypeError, ValueError):
            return args, kwargs
        nodes = {p: positional[i] if i != -1 else keywords[p]
                 for p, i in bound.arguments.items() if isinstance(i, int)}
        some_batched = any(getattr(v, "batched", False) for v in [*args, *kwargs.values()])
        for parameter in written:
            arg = nodes.get(parameter)
            if arg is None:
                continue
            if type(arg) is not cst.Name or arg.value not in self.owned or \
                    arg.value in self.params and not self.helper:
                raise ArgumentWritten(f"`{fn.__name__}` writes into `{_code(arg).strip()}`, "
                                      "which is passed to it and is not an array this "
                                      "function created", node,
                                      "pass a name bound to an array created here "
                                      "(zeros, ones, .copy()...)")
            if (self._batched_depth or self.speculative) and arg.value not in copies(
                    self.tree):
                continue        # refused by `_no_write_into_an_argument_on_some_lanes`
            value = self.values.get(arg)
            if some_batched and isinstance(value, Value) and not value.batched \
                    and arg.value not in self.params:
                # (its creation is batched on the next pass; the helper sees it so now)
                self.promoted.add(arg.value)
                self.needs_rerun = True
                batched = Value(True, value.example)
                index = bound.arguments[parameter]
                if index == -1:
                    kwargs = {**kwargs, parameter: batched}
                else:
                    args = [*args[:index], batched, *args[index + 1:]]
        return args, kwargs

    def _no_write_into_an_argument_on_some_lanes(self, fn, node: cst.Call, args,
                                                   kwargs) -> None:
        """A helper that writes into an array argument (``w[i] += 1``, ``w *= 2``) called
        on values the same for every example runs once, as written; under a per-example
        condition (or in code every lane runs for some lanes only) per example only the
        examples that take it change their array, which that single call cannot say:
        refused."""
        if not (self._batched_depth or self.speculative):
            return
        written = _parameters_written_in_place(fn)
        if not written:
            return
        try:
            bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs).arguments
        except (TypeError, ValueError):
            return
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        for parameter in written:
            value = bound.get(parameter)
            if isinstance(value, Value) and isinstance(value.example, np.ndarray):
                index = list(bound).index(parameter)
                passed = next((a.value for a in node.args if a.keyword is not None
                               and a.keyword.value == parameter),
                              positional[index] if index < len(positional) else None)
                if type(passed) is cst.Name and passed.value in copies(self.tree):
                    continue    # a copy the lanes that skip the call throw away
                what = f"`{_code(passed).strip()}`" if passed is not None else "an array"
                raise ArgumentWritten(f"`{fn.__name__}` writes into {what}, which is passed to "
                                      "it, here under a condition that differs per example: "
                                      "only the examples that call it would change their "
                                      "array", node,
                                      f"return the new array from `{fn.__name__}` and assign "
                                      "it, or write the items in this function")

    def _no_in_place_method_on_a_shared_object(self, node: cst.Call) -> None:
        """``y.add_(1)``, ``x.sin_()``: a tensor's in-place method changes the object. The
        batch changes the same memory as the examples only where the batched object is the
        examples' own: a parameter of the mapped function that it never rebinds (the
        caller's tensor, each example a row of it), a temporary (``(x * 2).add_(1)``), or a
        name only ever bound to new tensors (arithmetic, `torch` functions that make new
        ones) that no other name is bound to. Not under a per-example condition or in a
        loop (merged or gathered lanes are copies), and not in a helper (its parameters may
        be such copies)."""
        base = node.func.value
        problem = None
        if self._batched_depth or self._loop_stack or self.helper:
            problem = "under a per-example condition, in a loop, or in a helper function"
        elif type(base) is cst.Name:
            name = base.value
            bindings = [n for n in walk(self.tree.body) if name in _bound_names(n)]
            if name in self.params:
                if bindings:
                    problem = f"the parameter `{name}` is bound again in the function"
            elif not bindings or any(type(b) is not cst.Assign or not _fresh(b.value)
                                     for b in bindings):
                problem = f"`{name}` may be another name's tensor or a view of one"
            else:
                if self._aliases is None:
                    self._init_aliases()
                if self._group(name, node):
                    problem = f"another name is bound to `{name}`"
        elif not _fresh(base):
            problem = "the tensor may be a view of another one"
        if problem is not None:
            raise Unsupported(f"`.{node.func.attr.value}()` changes a tensor in place, and "
                              f"{problem}: the batch could change a copy where each example "
                              "changes the object", node,
                              "write it out of place: `y = y.add(1)` instead of `y.add_(1)`")

    def _reads_of(self, name: str) -> int:
        """How often ``name`` is read in the function (not counting plain assignments to
        it)."""
        if self._read_counts is None:
            counts: dict[str, int] = {}
            targets = set()
            for n in walk(self.tree):
                if type(n) is cst.AssignTarget and type(n.target) is cst.Name:
                    targets.add(id(n.target))
                elif type(n) is cst.Attribute:
                    targets.add(id(n.attr))       # `.shape` is no variable
                elif type(n) is cst.Arg and n.keyword is not None:
                    targets.add(id(n.keyword))    # nor is `b=` of a call
                elif type(n) is cst.Name and id(n) not in targets:
                    counts[n.value] = counts.get(n.value, 0) + 1
            self._read_counts = counts
        return self._read_counts.get(name, 0)

    def _init_aliases(self) -> None:
        from ..liveness import liveness_of
        self._aliases, self._where = _alias_links(self.tree)
        self._live = liveness_of(self.tree).live_after

    def _links_before(self, at) -> list:
        """The bindings ``(target, source)`` that may run before ``at``: earlier in the code
        and not on the other branch of an ``if`` (outside loops) that ``at`` is on, or inside
        a loop that also holds ``at`` (its next iteration)."""
        index, loops, branches = self._where.get(id(at), (1 << 62, frozenset(), ()))
        sides = dict(branches)
        return [(t, s) for t, s, (i, around, on) in self._aliases
                if around & loops or i < index and all(sides.get(branch, side) == side
                                                       for branch, side in on)]

    def _group(self, name: str, at) -> set[str]:
        """The other names that may hold the object ``name`` holds at ``at``: linked to it by
        chains of bindings (either way) that may run before ``at``."""
        return _connected(self._links_before(at), name)

    def _may_hold_0d_array(self, name: str, at) -> bool:
        """Whether ``name`` is bound somewhere to a 0-d array (`zero_d_arrays`), or to a name
        that may hold one (``name = z``, through chains of such bindings that may run before
        ``at``)."""
        bound_from: dict[str, set] = {}
        for t, s in self._links_before(at):
            bound_from.setdefault(t, set()).add(s)
        seen, stack = {name}, [name]
        while stack:
            current = stack.pop()
            if current in self.zero_d_arrays:
                return True
            for source in bound_from.get(current, ()):
                if source not in seen:
                    seen.add(source)
                    stack.append(source)
        return False

    def _may_give_0d_array(self, node) -> bool:
        """Whether ``node`` may give a 0-d array per example: a call that does
        (`_gives_0d_array`), or a conditional expression or ``and``/``or`` one of whose
        operands may (its value is that operand itself)."""
        while type(node) in (cst.IfExp, cst.BooleanOperation):
            if type(node) is cst.IfExp:
                if self._may_give_0d_array(node.body):
                    return True
                node = node.orelse
            else:
                if self._may_give_0d_array(node.left):
                    return True
                node = node.right
        return self._gives_0d_array(node, self.values.get(node))

    def _gives_0d_array(self, node, value) -> bool:
        """Whether ``node`` is a NumPy call that gives a 0-d array (mutable, unlike a NumPy
        scalar) per example: ``np.where(c, x, y)`` of scalars."""
        if type(node) is not cst.Call or not (isinstance(value, Value) and value.batched
                                               and value.rank == 0):
            return False
        fn = getattr(self.values.get(node.func), "example", None)
        if fn is None or isinstance(fn, np.ufunc) or not in_package(fn, "numpy"):
            return False
        args = [self.values.get(a.value) for a in node.args if a.keyword is None]
        if not all(isinstance(a, Value) for a in args):
            return False
        out = _evaluate(fn, *[a.example for a in args])
        return isinstance(out, np.ndarray) and out.ndim == 0

    def _creation(self, node):
        """The rule of the registry's creation family when ``node`` makes a fresh array
        (np.zeros(3), x.copy()...)."""
        if type(node) is not cst.Call:
            return None
        fn = getattr(self.values.get(node.func), "example", None)
        rule = self.registry.creation_for(fn)
        if rule is None and is_lanes_copy(fn):
            # (a copy of an array that is per example by then: the caller writes it back)
            rule = self.registry.for_call(fn)
        if rule is None and type(node.func) is cst.Attribute:
            rule = self.registry.creation_methods.get(node.func.attr.value)
            owner = self.values.get(node.func.value)
            if rule is not None and node.func.attr.value == "copy" and isinstance(
                    owner, Value) and owner.rank == 0 and not self._surely_0d_array(
                    node.func.value):
                # `np.float64(x).copy()` is a NumPy scalar per example (as `x.copy()` of a
                # `vmap` example), which no item write may change: no array of its own
                return None
        return rule

    def _surely_0d_array(self, node) -> bool:
        """Whether ``node``, one number per example, is per example a 0-d array (mutable)
        rather than a NumPy scalar, which the analysis holds alike: a NumPy call that makes
        one of its arguments' examples (``np.asarray(x)``, ``np.array(x)``, ``np.empty(())``,
        not ``np.float64(x)``), ``v[...]``, or a name of an array this function created."""
        t = type(node)
        if t is cst.Name:
            return node.value in self.owned
        if t is cst.Subscript:
            return len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and \
                type(node.slice[0].slice.value) is cst.Ellipsis
        if t is not cst.Call or any(a.star for a in node.args):
            return False
        fn = getattr(self.values.get(node.func), "example", None)
        if fn is None or isinstance(fn, np.ufunc) or not in_package(fn, "numpy"):
            return False
        if self.registry.creation_for(fn) is not None:
            return True     # (`np.zeros(())`, `np.empty_like(x)`: an array)
        args = [self.values.get(a.value) for a in node.args if a.keyword is None]
        kwargs = {a.keyword.value: self.values.get(a.value) for a in node.args
                  if a.keyword is not None}
        if not all(getattr(a, "example", UNKNOWN) is not UNKNOWN
                   for a in [*args, *kwargs.values()]):
            return False
        out = _evaluate(fn, *[a.example for a in args],
                        **{k: v.example for k, v in kwargs.items()})
        return isinstance(out, np.ndarray) and out.ndim == 0

    def _rebound_to_its_own(self, name: str, at) -> bool:
        """Whether the parameter ``name`` holds an array this function created wherever
        ``at`` runs: a statement of the function's body (outside every branch and loop)
        before the one holding ``at`` binds it to a creation or a new array (``v =
        v.copy()``, ``v = np.array(v)``, ``v = v + 0``), and it is still bound to one
        (`owned`). The caller's array is then never the one written into."""
        if name not in self.owned:
            return False
        for stmt in self.tree.body.body:
            if any(n is at for n in walk(stmt)):
                return False
            small = stmt.body[0] if type(stmt) is cst.SimpleStatementLine and len(
                stmt.body) == 1 else None
            if type(small) is cst.Assign and len(small.targets) == 1 and type(
                    small.targets[0].target) is cst.Name and small.targets[0].target.value \
                    == name and (self._creation(small.value) is not None or self._fresh_array(
                        small.value, self.values.get(small.value))):
                return True
        return False

    def _list_array(self, small: cst.Assign, env: Env) -> None:
        """``vals = __list_array__([...])``, a list `passes.local_lists` made an array: its
        items must be numbers of one type (`rules.lists.check_items`), and what is written
        into it too (`item_write`)."""
        call = small.value
        if not (type(call.func) is cst.Name and call.func.value == LIST_ARRAY):
            return
        name = small.targets[0].target.value
        params = () if self.python_semantics else [env.values.get(p) for p in self.params]
        weak = not self.python_semantics and self.registry.backend.weak_python_numbers and \
            weak_list(call, self.values) and only_indexed(self.tree, name)
        check_items(call, self.values, name, params, weak_reads=weak)
        self.list_arrays.add(name)
        if weak:
            # (its items read as the Python numbers they are per example: `subscript`)
            self.weak_lists[name] = params
        else:
            self.strong_lists.add(name)
        if open_list(call):
            # (a list that starts empty: its padding takes the type of what is appended,
            # which the first write into it tells; `item_write`)
            self.open_lists[name] = params
            return self.list_dtypes.get(name)
        return None

    def _written_into(self, *names: str) -> bool:
        """Whether the function writes into an item of one of ``names`` (``y[i] = v``,
        ``y[i] += v``) anywhere."""
        if self._items_written is None:
            written = set()
            for n in walk(self.tree.body):
                targets = [t.target for t in n.targets] if type(n) is cst.Assign else (
                    [n.target] if type(n) is cst.AugAssign else [])
                if type(n) is cst.Call and type(n.func) is cst.Attribute and type(
                        n.func.value) is cst.Name and n.func.attr.value in _CHANGING_METHODS:
                    written.add(n.func.value.value)         # `y.sort()`, `y.fill(0)`...
                for target in targets:
                    stack = [target]
                    while stack:
                        t = stack.pop()
                        if type(t) in (cst.Tuple, cst.List):
                            stack += [e.value for e in t.elements]
                        elif type(t) is cst.Subscript and type(t.value) is cst.Name:
                            written.add(t.value.value)
            self._items_written = written
        return any(name in self._items_written for name in names)

    def _fresh_array(self, node, value) -> bool:
        """Whether ``node`` makes a new array per example, which no other name holds:
        arithmetic or a comparison whose per-example result is an array (``w * 2``, ``-v``,
        ``a @ b``, ``v > 0``), or a
        NumPy function that always returns a new array (`_FRESH_FUNCTIONS`, ufuncs)."""
        if not (isinstance(value, Value) and isinstance(value.example, np.ndarray)
                and value.example.ndim > 0):
            return False
        t = type(node)
        if t is cst.BinaryOperation or (t is cst.UnaryOperation
                                        and type(node.operator) is not cst.Not):
            return True
        if t is cst.Comparison and len(node.comparisons) == 1:
            return True         # `v > 0`: a new bool array
        if t is cst.Call:
            if _astype_copy(node):
                return True     # `w.astype(np.float64)`: a new array unless copy=False
            fn = getattr(self.values.get(node.func), "example", None)
            return isinstance(fn, np.ufunc) or in_package(fn, "numpy") and getattr(
                fn, "__name__", None) in _FRESH_FUNCTIONS and fn is getattr(
                    np, fn.__name__, None)
        return False

    def _no_failing_out_cast(self, target: cst.Subscript, written, value, current) -> None:
        """A write ``y[...] = np.f(a)`` the engine made of ``np.f(a, out=y)`` (its target has
        no position in the user's code) that NumPy's ``out=`` would refuse."""
        if written is None or target in self.source.positions:
            return
        elements = target.slice
        if len(elements) != 1 or not isinstance(elements[0].slice, cst.Index) or type(
                elements[0].slice.value) is not cst.Ellipsis:
            return
        ufunc = _ufunc_name(self.source, written)
        if ufunc is not None:
            _out_cast_refused(target, ufunc, value, current)

    def _mask_write(self, target: cst.Subscript, value, env: Env, augmented: bool,
                    written=None):
        """``y[mask] = v`` with a per-example boolean ``mask`` of ``y``'s per-example shape
        (or a per-example boolean, which selects all of ``y`` or nothing) and a number ``v``
        per example (``fcd[beta < 0.3] = 1``): ``v`` written into the elements the mask
        selects, every example's own. On the batch ``y`` and a mask of its shape have one
        shape, so ``y[mask] = v`` of a number the same for every example writes the
        examples' elements; anything else is ``np.copyto(y, v, where=mask)`` with ``v`` and
        the mask given ``y``'s per-example axes (`batch_rules`). The value the subscript has
        there (its elements), or None where this is not such a write."""
        if len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Slice):
            return self._slice_write(target, value, env, augmented, written)
        if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index) or \
                augmented or not self.registry.primitives.masked_writes:
            return None
        base = env.values.get(target.value.value)
        mask = self.expr(target.slice[0].slice.value, env)
        if self._batched_depth and not (isinstance(mask, Value) and mask.rank == 0):
            # under a per-example condition only a truth value per example, which
            # `guard_indices` and `if_to_where` make ``y[m if cond else False] = v`` (no
            # item where the branch does not run); a mask of the array's shape would need
            # its selection read back for the merge
            return None
        if not (isinstance(mask, Value) and mask.batched and mask.kind == "b"
                and isinstance(base, Value) and base.known and mask.known
                and isinstance(value, Value) and value.known and value.rank == 0
                and isinstance(base.example, np.ndarray) and base.example.ndim >= 1
                and np.shape(mask.example) in (np.shape(base.example), ())):
            return None
        self.mask_writes[target] = (base.example.ndim, mask.rank)
        return batched_like(base.example.reshape(-1)[:1])

    def _slice_write(self, target: cst.Subscript, value, env: Env, augmented: bool,
                     written=None):
        """``y[lo:hi] = v`` of a per-example vector ``y`` with an integer bound that differs
        per example (``y[j:] = x``, ``y[:k] = 0.0``), no step, and a number ``v`` per
        example: ``v`` written into the positions the slice keeps, every example its own
        (Python's bounds: negative ones count from the end, both clamp to the vector). On
        the batch ``np.copyto(y, v, where=<the slice's mask>)`` (`batch_rules`, the mask of
        `Backend.slice_mask`, as for a reduction of such a slice). Not under a per-example
        condition (the merge would read the slice back) nor augmented; None for anything
        else (the read of the slice refuses it). The value may also be the same slice of
        another vector of ``y``'s length (``y[:j] = v[:j]``): its items land at their own
        positions, ``np.copyto(y, v, where=<the mask>)``."""
        sl = target.slice[0].slice
        if augmented or self._batched_depth or not self.registry.primitives.masked_writes \
                or sl.step is not None or "slice_selection" not in self.registry.operators:
            return None
        base = env.values.get(target.value.value)
        if not (isinstance(base, Value) and base.known and isinstance(base.example, np.ndarray)
                and base.example.ndim == 1 and isinstance(value, Value) and value.known
                and value.kind in "biuf"):
            return None
        aligned = None
        if value.rank != 0:
            # `y[:j] = v[:j]`: the same bounds, written as they are, of a vector as long
            source = self.values.get(getattr(written, "value", None))
            if not (type(written) is cst.Subscript and written in self.slice_selections
                    and written not in self.sequence_slices
                    and len(written.slice) == 1
                    and _code(written.slice[0].slice) == _code(target.slice[0].slice)
                    and isinstance(source, Value) and source.known
                    and isinstance(source.example, np.ndarray)
                    and source.example.shape == base.example.shape):
                return None
            aligned = written
        bounds = [self.expr(b, env) for b in (sl.lower, sl.upper) if b is not None]
        if not any(isinstance(b, Value) and b.batched for b in bounds) or not all(
                isinstance(b, Value) and b.rank == 0 and b.kind in "iu" for b in bounds):
            return None
        self.slice_writes.add(target)
        if aligned is not None:
            self.masked_reductions[target] = [aligned]      # (consumed here, by the mask)
        self.values[target.value] = base        # (the array: `python_raises` casts into it)
        return batched_like(base.example.reshape(-1)[:1])

    def item_write(self, target: cst.Subscript, value, env: Env,
                   augmented: bool = False, written=None) -> None:
        """``y[i] = v`` into an array this function created (``np.zeros``...). When per-example
        data is written into it, the array is batched from its creation on (the engine
        allocates it with the batch axis in front); writing into arguments or globals would
        change the caller's objects and is rejected."""
        name = target.value.value
        if not self.registry.primitives.in_place_writes:
            raise Unsupported("writing into an array: the arrays of this backend cannot be "
                              "written in place", target,
                              "build the array from its pieces (a stack or a concatenation)")
        if name not in env.values or name in self.params and not self.helper \
                and not self._rebound_to_its_own(name, target):
            raise Unsupported(f"writing into `{name}` changes an array the function did not "
                              "create (the caller's argument or a global)", target,
                              f"copy it first: {name} = {name}.copy()")
        if name not in self.owned:
            _no_write_into_a_list(self.tree, name, target, has_list_arrays(self.registry))
            raise Unsupported(f"writing into `{name}`, which is not an array this function "
                              "created with np.zeros/np.ones/np.full/np.empty/.copy()...",
                              target, f"create `{name}` with np.zeros(...) or copy it")
        self._no_failing_out_cast(target, written, value, env.values[name])
        # (a list's item at a bool is its item 0 or 1, never a mask: `check_write` decides)
        slot = None if name in self.list_arrays else \
            self._mask_write(target, value, env, augmented, written)
        if slot is None:
            slot = self.subscript(target, env)
        self.values[target] = slot
        current = env.values[name]
        if name in self.open_lists:
            check_open_write(target, value, self.open_lists[name])
        if name in self.weak_lists:
            check_weak_write(target, value, self.weak_lists[name])
        if name in self.open_lists and name not in self.list_dtypes and isinstance(
                value, Value) and value.known and not value.rank and value.dtype is not None \
                and value.dtype.kind in "fc" and value.dtype != getattr(current, "dtype",
                                                                        None):
            # the first item written into a list that starts empty gives its array the
            # item's type (the padding before it is never read): analysed again with it.
            # Floats and complex numbers only: a narrow int's sum and count are Python ints
            # meeting it per example (NEP 50 keeps the int8), which the batch's int64
            # count would widen
            self.list_dtypes[name] = value.dtype
            self.needs_rerun = True
        elif name in self.list_arrays and not (
                name in self.open_lists and self.needs_rerun and
                getattr(current, "dtype", None) != self.list_dtypes.get(name)):
            # (a list retyped by this run is checked by the next)
            check_write(target, value, current)
        if isinstance(current, Value) and not current.known:
            # (`torch.zeros(3, dtype=v.dtype)`: the analysis computed no example of it) the
            # batch's array would be allocated and padded as if it were a scalar
            raise Unsupported(f"cannot tell the shape of `{name}`, which is written into",
                              target, f"create `{name}` with sizes and a dtype written as "
                              "constants")
        index_batched = any(getattr(self.values.get(e.slice.value), "batched", False)
                            for e in target.slice if isinstance(e.slice, cst.Index))
        # under a condition that differs per example (a batched `if`, a masked loop's body)
        # the write happens on some lanes only: `if_to_where` makes it a masked write
        # (``y[i] = v if c else y[i]``), which holds per-example data from then on
        masked = bool(self._batched_depth)
        if masked and augmented:
            _no_failing_cast(target, slot, value, current)
        if (value.batched or index_batched or masked) and not current.batched:
            if name in self.params and not self._rebound_to_its_own(name, target):
                raise Unsupported(f"writing per-example data into `{name}`, an array the "
                                  "caller passed that is the same for every example", target,
                                  "return the new array and assign it in the caller")
            self.promoted.add(name)
            self.needs_rerun = True
        if current.batched or value.batched or index_batched:
            env.assign(name, Value(True, current.example))
        elif getattr(current, "exact", False):
            # the example is the array as created, before this write: no longer the array
            # itself (`out[0] = 1.0` then `if out[0] < 0.5:` must not be decided on it)
            env.assign(name, Value(False, current.example))


def _no_write_into_a_list(tree, name: str, target, arrays: bool = True) -> None:
    """A write into a local list that `passes.local_lists` did not make an array (or that
    this backend has no array for: ``arrays`` False): refused, saying why."""
    kinds = set()
    for n in walk(tree.body):
        if type(n) is cst.Assign and any(type(t.target) is cst.Name and t.target.value == name
                                         for t in n.targets):
            value = n.value
            if type(value) is cst.Call and type(value.func) is cst.Name and \
                    value.func.value == LIST_ARRAY:
                kinds.add("lowered")
            elif type(value) in (cst.List, cst.ListComp) or type(
                    value) is cst.BinaryOperation and cst.List in (type(value.left),
                                                                    type(value.right)):
                kinds.add("list" if arrays else "lowered")
            elif type(value) is cst.Dict:
                kinds.add("dict")
    if "dict" in kinds:
        raise Unsupported(f"writing into the dict `{name}`, which the function also uses in a "
                          "way separate variables would not keep: a key that is not a literal, "
                          "a key read where it may not have been written on every path, the "
                          "dict passed to a call, bound twice or to another name, iterated, "
                          "or created inside a branch or loop", target,
                          "use literal keys, write each key before the `if`/loop that reads "
                          "it (or create the dict with every key), and use the dict only by "
                          "key, d.get(key, default), `key in d` or `return d`")
    if "lowered" in kinds:
        raise Unsupported(f"writing into the list `{name}`: this backend has no array of a "
                          "list's items to write into", target,
                          "use the NumPy backend, or keep the items in separate names")
    if "list" in kinds:
        raise Unsupported(f"writing into the list `{name}`, which the function also uses in a "
                          "way an array of its items would not keep (returns it, passes it to "
                          "a function, binds another name to it, slices, appends to or "
                          "compares it...): only such arrays are written into", target,
                          f"use `{name}` only by index, len/sum/min/max, unpacking "
                          "or a for loop, or create it with np.zeros(...) and write into "
                          "that")


def _ufunc_name(source, node) -> str | None:
    """``np.add`` for a call of a NumPy ufunc (a module attribute or a free name), else None."""
    if type(node) is not cst.Call:
        return None
    names, root = [], node.func
    while type(root) is cst.Attribute:
        names.append(root.attr.value)
        root = root.value
    if type(root) is not cst.Name:
        return None
    found, fn, _ = source.lookup(root.value)
    for attr in reversed(names):
        fn = getattr(fn, attr, None)
    return _code(node.func).strip() if found and isinstance(fn, np.ufunc) else None


def _no_failing_cast(target, slot, value, current) -> None:
    """``y[1:3] += v`` computes in place into the slice of ``y``, which NumPy refuses where the
    result's dtype is not of the same kind as ``y``'s (float into int: a `UFuncTypeError` on
    every lane that gets there); its masked form (``y[1:3] = y[1:3] + v if c else y[1:3]``)
    would cast instead. Refused there. (A 0-d item, ``y[i] += v``, is read, added and written
    back: cast as the masked form casts.)"""
    if not (isinstance(slot, Value) and slot.rank > 0 and isinstance(value, Value)):
        return
    old = getattr(np.asarray(current.example), "dtype", None)
    new = getattr(np.asarray(value.example), "dtype", None)
    if old is not None and new is not None and not np.can_cast(new, old, "same_kind"):
        raise Unsupported(f"the update of `{_code(target).strip()}` casts {new} into the "
                          f"{old} array in place, which NumPy refuses (on the examples that "
                          f"get here)", target,
                          "convert the value to the array's dtype first, or write "
                          f"`{_code(target).strip()} = ...`")


def _out_cast_refused(target, ufunc: str, value, current) -> None:
    """``np.f(a, out=y)`` (`body_sugar.ufunc_out_as_write` made it ``y[...] = np.f(a)``):
    NumPy refuses to cast the result into ``y`` where its dtype is not of the same kind
    (float into int, int into bool: a `UFuncTypeError` on every example), where the write
    ``y[...] = v`` would cast it. Refused there."""
    if not isinstance(value, Value) or not value.known or not isinstance(current, Value):
        return
    old = getattr(np.asarray(current.example), "dtype", None)
    new = getattr(np.asarray(value.example), "dtype", None)
    if old is not None and new is not None and not np.can_cast(new, old, "same_kind"):
        name = target.value.value
        raise Unsupported(f"`{ufunc}(..., out={name})` gives {new} values, which NumPy refuses "
                          f"to cast into the {old} array `{name}` (a UFuncTypeError for every "
                          "example)", target.value,
                          f"create `{name}` with the result's dtype, or pass "
                          "casting='unsafe' to a separate np.copyto", kind="raises")


# methods whose result may be the tensor itself or a view of it (per example or on the
# batch), so an in-place update of the result may change another name's tensor
_ALIASING_METHODS = frozenset({
    "reshape", "view", "view_as", "reshape_as", "expand", "expand_as", "contiguous", "float",
    "double", "half", "int", "long", "short", "bool", "to", "type", "type_as", "detach",
    "t", "permute", "transpose", "swapaxes", "swapdims", "movedim", "moveaxis", "narrow",
    "select", "squeeze", "unsqueeze", "flatten", "unflatten", "unfold", "diagonal", "real",
    "imag", "conj", "as_strided", "split", "chunk", "unbind", "tensor_split", "ravel",
    "resolve_conj", "resolve_neg", "requires_grad_", "mT", "T", "H", "mH"})


def _fresh(value) -> bool:
    """Whether an expression makes a new tensor: arithmetic, or a call whose result is never
    its argument or a view of one (`_ALIASING_METHODS`, in-place methods and subscripts
    are not)."""
    t = type(value)
    if t in (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison):
        return True
    if t is cst.Call and type(value.func) is cst.Attribute:
        attr = value.func.attr.value
        if attr.endswith("_") and not attr.endswith("__"):    # returns its base
            return _fresh(value.func.value)
        return attr not in _ALIASING_METHODS
    return False


def _bound_names(node) -> set:
    """The names a statement (or `for`/`with`/walrus target) binds."""
    t = type(node)
    if t is cst.Assign:
        return {n for target in node.targets for n in target_names(target.target)}
    if t in (cst.AugAssign, cst.AnnAssign):
        return set(target_names(node.target))
    if t is cst.For:
        return set(target_names(node.target))
    if t is cst.NamedExpr:
        return set(target_names(node.target))
    if t is cst.WithItem and node.asname is not None:
        return set(target_names(node.asname.name))
    return set()


def _held(node):
    """The subexpressions of ``node`` whose object its value may be (``a if c else b``,
    ``a or b``, the items of a tuple display, ``(n := a)``)."""
    t = type(node)
    if t is cst.IfExp:
        yield from _held(node.body)
        yield from _held(node.orelse)
    elif t is cst.BooleanOperation:
        yield from _held(node.left)
        yield from _held(node.right)
    elif t in (cst.Tuple, cst.List):
        for element in node.elements:
            yield from _held(element.value)
    elif t is cst.NamedExpr:
        yield from _held(node.value)
    else:
        yield node


def _alias_links(tree) -> tuple[list, dict]:
    """The bindings of a name to another name's object (``y = x``, ``y, z = x, w``, or a view:
    `_viewed_name`) in the function, each as (y, x, where), and for every node its where:
    (position, ids of the loops around it, the branches it is on); positions count nodes in
    the order of the code; a branch is (id of an ``if`` outside every loop, 0 for its body
    or 1 for its ``else``)."""
    links: list = []
    where: dict = {}
    stack = [(tree, frozenset(), ())]
    index = 0
    while stack:
        node, loops, branches = stack.pop()
        where[id(node)] = (index, loops, branches)
        index += 1
        if type(node) is cst.Assign:
            for target in node.targets:
                _pairs(target.target, node.value, links, (index, loops, branches))
        kind = type(node)
        inner = loops | {id(node)} if kind in (cst.For, cst.While) else loops
        for child in reversed(children(node)):
            on = branches
            if kind is cst.If and not loops and (child is node.body or child is node.orelse):
                on = branches + ((id(node), 0 if child is node.body else 1),)
            stack.append((child, inner, on))
    return links, where


def _pairs(target, value, out: list, where: tuple) -> None:
    if type(target) is cst.Name:
        for source in _chosen_names(value):
            if target.value != source:
                out.append((target.value, source, where))
    elif type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List) \
            and len(target.elements) == len(value.elements):
        for t, v in zip(target.elements, value.elements):
            _pairs(t.value, v.value, out, where)


def _chosen_names(value) -> list[str]:
    """The variables whose object ``value`` may be: `_viewed_name`, or one of those of the
    operands it chooses between, which Python returns themselves: the arms of ``a if c else
    b``, the operands of ``a or b`` / ``a and b``, the arguments of the builtins ``max`` and
    ``min`` (``r = max(x, y)`` of 0-d tensors is ``x`` or ``y`` itself, which ``r -= 1``
    changes), ``(n := a)``."""
    name = _viewed_name(value)
    if name is not None:
        return [name]
    t = type(value)
    if t is cst.IfExp:
        return _chosen_names(value.body) + _chosen_names(value.orelse)
    if t is cst.BooleanOperation:
        return _chosen_names(value.left) + _chosen_names(value.right)
    if t is cst.NamedExpr:
        return _chosen_names(value.value)
    if t is cst.Call and type(value.func) is cst.Name and value.func.value in ("max", "min"):
        out = []
        for arg in value.args:
            if arg.keyword is not None:
                continue
            if arg.star == "" and len(value.args) > 1:
                out += _chosen_names(arg.value)
            elif type(arg.value) in (cst.List, cst.Tuple, cst.Set):
                # (``max([x, y])``, ``max(*[x, y])``: one of the items)
                for element in arg.value.elements:
                    out += _chosen_names(element.value)
        return out
    return []


def _flat_targets(targets) -> list:
    out, stack = [], list(targets)
    while stack:
        t = stack.pop()
        if type(t) in (cst.Tuple, cst.List):
            stack += [e.value for e in t.elements]
        else:
            out.append(t)
    return out


def _connected(pairs, name: str) -> set[str]:
    """The other names that chains of the ``(target, source)`` bindings connect to ``name``,
    either way."""
    links: dict[str, set] = {}
    for t, s in pairs:
        links.setdefault(t, set()).add(s)
        links.setdefault(s, set()).add(t)
    group, stack = {name}, [name]
    while stack:
        for other in links.get(stack.pop(), set()) - group:
            group.add(other)
            stack.append(other)
    return group - {name}


# methods that change an array in place
# (a list's, dict's or set's methods that change it, where calling them again changes it again)
_CONTAINER_CHANGES = frozenset({"append", "extend", "insert", "pop", "remove", "update",
                                "setdefault", "popitem", "add", "discard", "reverse",
                                "difference_update", "intersection_update",
                                "symmetric_difference_update"})
_CHANGING_METHODS = frozenset({"sort", "fill", "put", "resize", "partition", "itemset",
                               "setfield", "setflags", "byteswap"})

# NumPy functions whose result is always a new array, never an argument or a view of one
_FRESH_FUNCTIONS = frozenset({"roll", "concatenate", "stack", "hstack", "vstack", "where",
                              "clip", "sort", "cumsum", "cumprod", "diff", "outer", "tile",
                              "repeat", "round", "around", "dot", "matmul", "einsum", "cross",
                              "convolve", "interp", "polyval", "linspace", "arange"})

def _astype_copy(call) -> bool:
    """``w.astype(dtype)``, which always returns a new array unless ``copy=`` says
    otherwise (NumPy's default is ``copy=True``)."""
    return type(call.func) is cst.Attribute and call.func.attr.value == "astype" and all(
        a.keyword is None or a.keyword.value != "copy" or type(a.value) is cst.Name
        and a.value.value == "True" for a in call.args)


_VIEW_ATTRIBUTES = frozenset({"T", "mT", "real", "imag"})


_VIEW_METHODS = frozenset({"reshape", "ravel", "view", "transpose", "swapaxes", "squeeze",
                           "diagonal"})


_VIEW_FUNCTIONS = frozenset({"reshape", "ravel", "transpose", "swapaxes", "squeeze",
                             "expand_dims", "asarray", "asanyarray", "ascontiguousarray",
                             "asfortranarray", "atleast_1d", "atleast_2d", "atleast_3d",
                             "broadcast_to", "diagonal", "moveaxis", "rollaxis", "real",
                             "imag", "require"})


def _viewed_name(value) -> str | None:
    """The variable whose object (or memory) ``value`` may be: ``x`` itself, or a view of it
    (``x[1:]``, ``x.T``, ``x.reshape(3)``, ``np.asarray(x)``...), an in-place update of which
    changes ``x``; None for anything else (arithmetic makes new arrays)."""
    while True:
        t = type(value)
        if t is cst.Name:
            return value.value
        if t is cst.Subscript:
            value = value.value
        elif t is cst.Attribute and value.attr.value in _VIEW_ATTRIBUTES:
            value = value.value
        elif t is cst.Call and type(value.func) is cst.Attribute:
            func = value.func
            if type(func.value) is cst.Name and func.value.value in ("np", "numpy") \
                    and func.attr.value in _VIEW_FUNCTIONS and value.args:
                value = value.args[0].value
            elif func.attr.value in _VIEW_METHODS:
                value = func.value
            else:
                return None
        else:
            return None


def _function_tree(fn):
    """The libcst tree of the user's function ``fn``; None where its source cannot be read."""
    try:
        from ..source import read_function
        return read_function(fn).tree
    except Exception:
        return None


def _source_fact(compute):
    """``compute(fn, tree)`` as a fact of a function's own source, the same for every
    transform that reads it, not a transform's: computed once per function (``tree`` None
    where its source cannot be read) and kept, read-only, while the function lives; two
    transforms that compute one at once compute the same."""
    table: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(compute)
    def fact(fn) -> Mapping[str, str]:
        if fn in table:
            return table[fn]
        out = table[fn] = types.MappingProxyType(compute(fn, _function_tree(fn)))
        return out
    return fact


@_source_fact
def _parameters_updated_in_place(fn, tree) -> dict[str, str]:
    """The parameters of the user's function ``fn`` that its body updates in place (``v *=
    e``, or a name or view bound to ``v``), each with the operator."""
    out: dict[str, str] = {}
    if tree is not None:
        parameters = set(_signature_names(fn))
        pairs = [(t, s) for t, s, _ in _alias_links(tree)[0]]     # anywhere in the body
        for n in walk(tree.body):
            if type(n) is cst.AugAssign and type(n.target) is cst.Name:
                name = n.target.value
                for parameter in sorted(({name} | _connected(pairs, name)) & parameters):
                    out.setdefault(parameter, _code(n.operator).strip())
    return out


@_source_fact
def _parameters_changed_as_containers(fn, tree) -> dict[str, str]:
    """The parameters of ``fn`` its body changes as a list, dict or set does (``p.append(v)``,
    `_CONTAINER_CHANGES`) and never rebinds, each with the method."""
    out: dict[str, str] = {}
    if tree is not None:
        parameters = set(_signature_names(fn)) - {
            t for n in walk(tree.body) if type(n) is cst.AssignTarget
            for t in target_names(n.target)}
        for n in walk(tree.body):
            if type(n) is cst.Call and type(n.func) is cst.Attribute and type(
                    n.func.value) is cst.Name and n.func.value.value in parameters and \
                    n.func.attr.value in _CONTAINER_CHANGES:
                out.setdefault(n.func.value.value, n.func.attr.value)
    return out


@_source_fact
def _parameters_written_in_place(fn, tree) -> dict[str, str]:
    """The parameters of ``fn`` it changes in place: updated (`_parameters_updated_in_place`)
    or written into (``w[i] = v``, ``w[i] += v``, also through a name or view bound to it),
    each with the statement's text."""
    out = dict(_parameters_updated_in_place(fn))
    if tree is not None:
        parameters = set(_signature_names(fn))
        pairs = [(t, s) for t, s, _ in _alias_links(tree)[0]]
        for n in walk(tree.body):
            targets = [t.target for t in n.targets] if type(n) is cst.Assign else (
                [n.target] if type(n) is cst.AugAssign else [])
            for target in targets:
                if type(target) is cst.Subscript and type(target.value) is cst.Name:
                    name = target.value.value
                    for parameter in sorted(({name} | _connected(pairs, name)) & parameters):
                        out.setdefault(parameter, _code(n).strip())
    return out


def _number_parameters(fn, args, kwargs) -> set:
    """The parameters of ``fn`` these abstract arguments make numbers per example (a
    Python number or a NumPy scalar: no item assignment)."""
    try:
        bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
    except (TypeError, ValueError):
        return set()
    return {p for p, v in bound.arguments.items() if isinstance(v, Value) and v.known and (
        type(v.example) in (bool, int, float, complex) or isinstance(v.example, np.generic))}


def writes_caught_as_type_errors(fn) -> frozenset:
    """The parameters of ``fn`` every write into whose items is a statement of a `try` body
    with a handler of TypeError, and which nothing binds outside such handlers: passed a
    number, each such write raises TypeError and writes nothing."""
    tree = _function_tree(fn)
    if tree is None:
        return frozenset()
    parameters = set(_signature_names(fn))
    pairs = [(t, s) for t, s, _ in _alias_links(tree)[0]]
    caught, handled, bound = set(), set(), set()
    unsafe = set()
    for n in walk(tree.body):
        if type(n) is cst.Try and any(_catches_type_error(h, fn) for h in n.handlers):
            for stmt in n.body.body:
                for m in walk(stmt):
                    caught.add(id(m))
            for h in n.handlers:
                for m in walk(h):
                    handled.add(id(m))
    for n in walk(tree.body):
        t = type(n)
        targets = [a.target for a in n.targets] if t is cst.Assign else (
            [n.target] if t in (cst.AugAssign, cst.AnnAssign, cst.For) else [])
        for target in targets:
            if type(target) is cst.Subscript and type(target.value) is cst.Name:
                name = target.value.value
                if id(n) not in caught or name not in parameters:
                    # (written outside such a `try`, or through another name)
                    unsafe |= {name} | _connected(pairs, name)
            else:
                for m in walk(target):
                    if type(m) is cst.Name and id(n) not in handled:
                        bound.add(m.value)
    return frozenset(p for p in parameters if p not in unsafe and p not in bound)


def _catches_type_error(handler, fn) -> bool:
    if handler.type is None:
        return True
    parts = handler.type.elements if type(handler.type) is cst.Tuple else [handler.type]
    for part in parts:
        node = part.value if isinstance(part, cst.Element) else part
        cls = fn.__globals__.get(node.value, getattr(builtins, node.value, None)) \
            if type(node) is cst.Name else None
        if isinstance(cls, type) and issubclass(TypeError, cls):
            return True
    return False


def parameters_written_into(fn) -> list[str]:
    """The parameters of ``fn`` whose items it writes (``w[i] += v``) without updating them
    as a whole (``w += v``): the caller's array changes item by item, as
    `Aliasing._arguments_written_by` allows and `passes.helper_writes` copies."""
    updated = _parameters_updated_in_place(fn)
    return [p for p in _parameters_written_in_place(fn) if p not in updated]


def _signature_names(fn) -> tuple[str, ...]:
    code = fn.__code__
    return code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
