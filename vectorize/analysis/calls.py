"""Calls (`Calls`, a part of `Analysis`): of a function with a rule in the registry, a
method of a per-example value, a random draw (the registry's random family), the user's own
functions (analysed as helpers), and calls without a rule (run per example where fallbacks
are allowed)."""

from __future__ import annotations

import types

import libcst as cst
import numpy as np

from ..abstract import UNKNOWN, TupleValue, Value, all_exact, batched_like, unbatched
from ..errors import Unsupported
from ..rules.lanes import ENGINE_NAMES
from ..rules.registry import Site, default_infer
from .float_semantics import _evaluate, _numpy_math, _numpy_scalar_for
from .purity import PURE_BUILTINS, _is_number, _pure_numpy
from .syntax import _code


class Calls:
    """The `Analysis` methods that give the abstract value of a call."""

    def call(self, node: cst.Call, env):
        if type(node.func) is cst.Attribute:
            base = self.expr(node.func.value, env)
            if base.batched:
                return self.method_call(node, base, env)
            if isinstance(base.example, (np.ndarray, np.generic)) and \
                    node.func.attr.value in self.registry.methods and any(
                        getattr(self.expr(a.value, env), "batched", False)
                        for a in node.args):
                return self.method_call(node, base, env)   # shared.dot(x)
        func = self.expr(node.func, env)
        args, kwargs = [], {}
        for arg in node.args:
            value = self.expr(arg.value, env)
            if arg.star:
                if value.batched:
                    raise Unsupported("`*`/`**` unpacking of per-example values", arg,
                                      "pass the arguments one by one")
                if arg.star == "*" and value.known:
                    try:
                        args.extend(unbatched(v) for v in value.example)
                        continue
                    except TypeError:
                        pass
                raise Unsupported("`*`/`**` unpacking in calls is not supported yet", arg,
                                  "pass the arguments one by one")
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        fn = func.example
        if func.batched:
            raise Unsupported("calling a per-example value", node)
        if self._exception_of_one_example and (
                isinstance(fn, type) and issubclass(fn, BaseException)
                or isinstance(getattr(fn, "__self__", None), str)       # "{}".format(x)
                or fn in (str, repr, format)):
            return unbatched(UNKNOWN)      # made from one example's values
        draw = self.registry.draw_for(fn) if func.known else None
        if draw is not None:
            if not any(v.batched for v in self.params.values()):
                return unbatched(UNKNOWN)
            self.random_calls[node] = draw
            return draw.infer(Site(args=args, nodes=[], func=fn, original=node,
                                   kwargs={k: (None, v) for k, v in kwargs.items()}))
        if not any(v.batched for v in [*args, *kwargs.values()]):
            if func.known and fn in (float, int, bool, complex) and not all(
                    a.known for a in args):
                return unbatched(fn(1))     # the type is known even if the value is not
            if isinstance(fn, types.FunctionType) and self.helpers is not None and not (
                    getattr(fn, "__module__", None) or "").startswith(
                        ("numpy", "math", "vectorize")) and not self.registry.knows(fn):
                # the user's own function on unbatched values: analysed (not run) to learn
                # what it returns; if it cannot be analysed it is simply called as written
                try:
                    value = self.helpers(fn, args, kwargs, node)
                except Exception:
                    return unbatched(UNKNOWN)
                self.helper_calls[node] = value
                return value
            rule = self.registry.for_call(fn) if func.known else None
            # the operation as it computes on NumPy examples (a torch function's shadow)
            evaluated = rule.shadow if rule is not None and rule.shadow is not None else fn
            if rule is not None and rule.family == "math":
                # hoisted out of a per-example condition, this call runs for every lane, also
                # where the scalar code would skip it: math functions follow NumPy (nan
                # instead of a domain error) on unbatched values too
                self.math_in_branches.add(node)
            if (fn is divmod or fn is pow) and len(args) == 2 and not kwargs and (
                    self.speculative or self._batched_depth):
                # like `a % b` / `a ** b` on Python numbers in code every lane runs
                scalar = _numpy_scalar_for(cst.Modulo() if fn is divmod else cst.Power(),
                                           *args)
                if scalar is not None:
                    self.numpy_scalar_ops[node] = scalar
                    args = [args[0], unbatched(scalar(args[1].example), args[1].exact)]
            if func.known and (fn in PURE_BUILTINS or self.registry.knows(fn)
                               or isinstance(fn, np.ufunc) or _pure_numpy(fn)):
                out = _evaluate(evaluated, *[a.example for a in args],
                                **{k: v.example for k, v in kwargs.items()})
                # a method of a value not known exactly (`w.min()` of a shared array, whose
                # example is made up) is not known exactly either
                known = all_exact(*args, *kwargs.values()) and (
                    func.exact or type(node.func) is not cst.Attribute)
                if out is UNKNOWN and rule is not None and rule.family == "math" \
                        and not kwargs:
                    # Python's math raised (`math.fmod(0.0, 0.0)`); the generated code calls
                    # NumPy's function (`math_in_branches`), whose value it then has
                    out, known = _numpy_math(fn, [a.example for a in args]), False
                if isinstance(out, tuple) and fn is not tuple:   # divmod, np.modf, frexp...
                    return TupleValue(tuple(unbatched(item, known) for item in out))
                return unbatched(out, known)
            return unbatched(UNKNOWN)
        if not func.known:
            raise Unsupported(f"cannot tell what `{_code(node.func)}` is, so cannot vectorize "
                              "a call of it on per-example values", node.func)
        rule = self.registry.for_call(fn)
        if rule is not None:
            if not kwargs and fn is not ENGINE_NAMES.get("__any_lane__"):
                self._must_not_raise(rule.shadow or fn, args, node,
                                     lambda: f"`{_code(node.func)}`")
            site = Site(args=args, nodes=[], kwargs={k: (None, v) for k, v in kwargs.items()},
                        func=fn, original=node)
            infer = rule.infer or default_infer
            return infer(site)
        if isinstance(fn, type) and issubclass(fn, np.generic):
            return batched_like(_evaluate(fn, args[0].example) if args else UNKNOWN)
        if isinstance(fn, types.FunctionType) and self.helpers is not None \
                and not (getattr(fn, "__module__", None) or "").startswith(("numpy", "math")):
            self._no_update_of_an_argument(fn, node, env)
            value = self.helpers(fn, args, kwargs, node)
            self.helper_calls[node] = value
            return value
        name = _code(node.func)     # as the user wrote it
        if self.allow_fallback and all(not isinstance(v, TupleValue) and v.rank == 0
                                       for v in [*args, *kwargs.values()]):
            out = self._per_example_number(fn, args, kwargs, node)
            self.fallback_calls[node] = f"`{name}` has no batching rule"
            # the array of the per-example results has the dtype NumPy gives a list of
            # such numbers (Python ints are int64, floats float64)
            return Value(True, np.asarray([out])[0])
        raise Unsupported(f"`{name}` has no batching rule, so it cannot be called on "
                          "per-example values", node,
                          "use a NumPy equivalent, register a rule with "
                          "vectorize.register_rule, or pass fallback='warn' to run this call "
                          "per example")

    def method_call(self, node: cst.Call, base, env):
        """``x.sum(axis=0)`` on a batched ``x``: a method rule from the registry."""
        name = node.func.attr.value
        rule = self.registry.methods.get(name)
        if base.known and not hasattr(base.example, name) and (rule is None
                                                                or rule.infer is None):
            raise Unsupported(f"per example this value ({base.describe()}) has no method "
                              f"`.{name}()`", node, "call the NumPy function instead")
        if rule is None or isinstance(base, TupleValue):
            raise Unsupported(f"the method `.{name}()` of a per-example value has no batching "
                              "rule", node, "use the NumPy function instead, or register a "
                                            "rule with vectorize.register_rule")
        args, kwargs = [base], {}
        for arg in node.args:
            value = self.expr(arg.value, env)
            if arg.star:
                raise Unsupported("`*`/`**` unpacking in a method call", arg,
                                  "pass the arguments one by one")
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        self.method_calls[node] = rule
        self.values[node.func] = Value(False, UNKNOWN)   # not an attribute read
        site = Site(args=args, nodes=[], kwargs={k: (None, v) for k, v in kwargs.items()},
                    func=name, original=node)
        if rule.infer is not None:
            return rule.infer(site)
        method = getattr(base.example, name, None) if base.known else None
        if method is None:
            return Value(True, UNKNOWN)
        return batched_like(_evaluate(method, *[a.example for a in args[1:]],
                                     **{k: v.example for k, v in kwargs.items()}))

    def _per_example_number(self, fn, args, kwargs, node):
        """A call without a rule runs per example (a list of its results, one per lane) only
        where each result is a number: the rest of the function treats the list as one
        number per lane. Its result is learned by calling it on the examples where that has
        no side effects; a result that is not a number, or one that cannot be learned, is
        refused, so that with fallbacks allowed the whole function runs per example."""
        pure = fn in PURE_BUILTINS or isinstance(fn, np.ufunc) or _pure_numpy(fn) or \
            getattr(fn, "__module__", None) in ("math", "cmath")
        out = _evaluate(fn, *[a.example for a in args],
                        **{k: v.example for k, v in kwargs.items()}) if pure else UNKNOWN
        if _is_number(out):
            return out
        if out is UNKNOWN:
            what = ("its result cannot be learned without running it (it may have side "
                    "effects)" if not pure else "it raised on the examples")
        else:
            shape = np.shape(out)
            what = (f"it gives {type(out).__name__}" + (f" of shape {shape}" if shape else "")
                    + " per example, not a number")
        raise Unsupported(f"`{_code(node)}` has no batching rule and would run per example, "
                          f"but {what}: the rest of the function cannot take its results as "
                          "one number per example, so the whole function runs per example",
                          node, "compute it with operations that have batching rules (see "
                          "docs/rules.md), or register a rule with vectorize.register_rule")
