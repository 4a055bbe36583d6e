"""Differential program fuzzer over per-example VECTORS (and scalars).

``programs()`` is a `hypothesis` strategy of `Program` objects whose ``f`` takes a vector ``v``
for each example, and maybe another vector ``w`` and scalars ``x``/``y``, each either batched
(its examples differ) or shared (the same for every example: ``in_axes=None``; no loop
dimensions under a signature). The program's `Layout` says how it is called: through
``vmap(f, in_axes=...)`` or ``vectorize(f, signature="(n),()->()")``. Code is written the way a
user writes it for one example: ``for i in range(len(v))``, ``for e in v``, scans
(``while k < len(v) and v[k] < x``), counter-bounded ``while`` loops whose condition differs per
example, ``break``/``continue``/early ``return`` inside loops (nested ones too, and returns in
both branches of a per-example ``if``), ``if``s inside loops, accumulators (``tot = 0.0`` ...
``tot += v[i]``, ``cnt += 1``), gathers (``v[i]``, ``v[j]`` with a per-example int index clipped
into range, ``v[j + 1]`` behind ``j + 1 < len(v) and ...``), reductions (``np.sum(v)``,
``v.max()``, ``np.argmax(v)``), elementwise vector expressions, a helper ``h0(p, a)`` taking a
vector, module-level constant tables indexed by a clipped int, and results that are a float,
an int, a vector (``return v * x``), a string (``"hi"``/``"lo"``) or a tuple of those. The
scalar expressions are those of `programs` (this generator subclasses its ``_Gen``).

``cases()`` draws a program, the arguments of one small call (N = 1 to 6 examples, vectors of
length 1 to 6, values with NaN, +-inf, +-0.0, negatives) and the protocol's seed; `harness`
runs it (`harness.run_case` with `harness.FULL`: N = 0, 1, 5, twelve large calls, a changed
shared argument, another vector length).

Invariants, besides those of `programs` (valid, well formed, terminating; constant-only code
never raises; "depends on the inputs" monotone):

* every index is in range for every example that reaches it: loop counters of
  ``range(len(v))``, ``len(v) - 1``, ``-1``, ``min(k, len(v) - 1)`` of a count, ``int`` of a
  ``np.clip(np.nan_to_num(...), 0, len(v) - 1)`` (NaN never reaches ``int``: the batch would
  convert it to an arbitrary int, documented), ``j + 1`` only behind ``j + 1 < len(v) and``;
  all vectors of a call (batched and shared) have one length, >= 1;
* a vector is never updated in place (``w += ...``): a row of a batched argument is a view
  of the caller's array;
* each output has one kind on every path (float / int / vector of the common length /
  string), so its dtype kind and shape do not depend on the path;
* ints stay small (counters, indexes, lengths: no int overflow) and are never divided.

``programs(avoid=...)`` leaves out constructs (`AVOIDABLE`), to look past known engine bugs.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

try:
    from fuzz.harness import HEADER, Layout, Program
    from fuzz.programs import (
        COMPARE_OPS,
        EXPR_DEPTH,
        FLOAT_LITERALS,
        _Expr,
        _function,
        _Gen,
        _indent,
        seeds,
        values,
    )
except ImportError:   # run outside pytest (benchmarks/fuzz_long.py puts tests/ on the path)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from fuzz.harness import HEADER, Layout, Program
    from fuzz.programs import (
        COMPARE_OPS,
        EXPR_DEPTH,
        FLOAT_LITERALS,
        _Expr,
        _function,
        _Gen,
        _indent,
        seeds,
        values,
    )

#: Constructs that `programs(avoid=...)` can leave out, to look past a known engine bug.
AVOIDABLE = {
    "string": "string results (`return \"hi\"` / `\"lo\"`)",
    "vector_return": "vector results (`return v`, `return v * x`)",
    "vector_return_in_loop": "a `return` inside a loop in a program with a vector result",
    "return_in_loop": "`return` inside a loop",
    "counter_reuse": "a `for` loop variable named like an earlier loop's (which may not have "
                     "run)",
    "return_in_nested_loop": "`return` inside a loop inside a loop",
    "shared_guard": "a bounds guard `i + 1 < len(v) and v[i + 1] ...` on an index the same "
                    "for every example (a loop counter)",
    "table": "a module-level table indexed by a per-example int",
    "scalar_carry": "an accumulator started from a constant (`tot = 0.0`, `cnt = 0`) and "
                    "changed under a per-example condition in a loop; with it avoided, "
                    "accumulators start from a per-example value",
    "helper": "a helper function",
    "tuple": "tuple results",
    "scalar_arg": "shared (unbatched) arguments",
    "for_elem": "`for e in v` (a loop over a per-example vector, `passes/sequence_loops.py`)",
}

MAX_DEPTH = 3          # statement nesting below the function body
MAX_LOOP_DEPTH = 2
VECTOR_UNARY = ["np.abs", "np.sqrt", "np.exp", "np.sin", "np.tanh", "np.floor", "np.square",
                "np.negative", "np.cos", "np.log1p"]
REDUCTIONS = ["np.sum({})", "{}.sum()", "np.max({})", "{}.max()", "np.min({})", "{}.min()",
              "np.mean({})", "sum({})", "max({})", "min({})"]
TABLES = ["(0.5, -1.0, 2.0, 3.5)", "[1.0, 0.25, -2.0, 10.0]", "(3.0, -0.0, 1e-08, -7.5)"]


class _VecGen(_Gen):
    """Generates one function body over vectors (``vectors``), floats (``scope``, as
    `programs`) and ints (``dints``: per-example ints, name -> (dep, kind), kind "index"
    for a valid index of the vectors, "count" for an int in [0, some small bound])."""

    ENV = ("scope", "vectors", "dints", "indexes")
    MORE = 1       # (blocks of loops nest deeper: keep programs short to transform)

    def __init__(self, draw, scalars, vectors, *, helper, is_helper, out_kinds, avoid,
                 table: str | None):
        super().__init__(draw, scalars, helper=helper, is_helper=is_helper,
                         out_kinds=out_kinds, avoid=avoid)
        self.vectors: dict[str, bool] = {p: True for p in vectors}   # vector var -> dep
        self.dints: dict[str, tuple] = {}
        self.indexes: dict[str, bool] = {}      # valid index expressions here -> dep
        self.table = table
        self.n_vectors = 0
        self.n_ints = 0
        self.n_elems = 0
        self.carries: set[str] = set()          # accumulators started from a constant
        self.in_index = False                   # generating an index: keep it simple
        self.pending = None                     # a statement the next block starts with

    def join(self, attr, values):
        if attr == "dints":
            dep = any(v[0] for v in values)
            kind = "index" if all(v[1] == "index" for v in values) else "count"
            return dep, kind
        if attr == "indexes":
            return any(values)
        return all(values)

    # ------------------------------------------------------------------- expressions
    def dep_var(self) -> str:
        if self.params and self.draw(st.booleans()):
            return self.choice(self.params)
        return f"{self.choice(self.vectors)}[{self.choice(['0', '-1'])}]"

    def batch_vector(self) -> str:
        """``v`` (always batched) in ``f``, the vector parameter in the helper."""
        return "v" if "v" in self.vectors else sorted(self.vectors)[0]

    def vector(self) -> _Expr:
        name = self.choice(self.vectors)
        return _Expr(name, self.vectors[name])

    def index(self) -> _Expr:
        """An int in range for the vectors (per example, where it says so)."""
        simple = self.in_index
        kind = self.pick([(6 if self.indexes else 0, "known"), (3, "const"),
                          (0 if simple or not self.dints else 2, "clip_int"),
                          (0 if simple else 1, "clip_float"), (0 if simple else 1, "arg")])
        if kind == "known":
            name = self.choice(self.indexes)
            return _Expr(name, self.indexes[name])
        if kind == "const":
            return _Expr(self.choice(["0", "-1", f"len({self.choice(self.vectors)}) - 1"]),
                         False)
        if kind == "clip_int":
            name = self.choice(self.dints)
            return _Expr(f"min({name}, len({self.choice(self.vectors)}) - 1)",
                         self.dints[name][0])
        if kind == "clip_float":
            self.in_index = True
            try:
                a = self.fexpr(1)
            finally:
                self.in_index = False
            return _Expr(f"int(np.clip(np.nan_to_num({a.text}), 0, "
                         f"len({self.choice(self.vectors)}) - 1))", a.dep)
        v = self.vector()
        return _Expr(f"int(np.{self.choice(['argmax', 'argmin'])}({v.text}))", v.dep)

    def gather(self) -> _Expr:
        v, i = self.vector(), self.index()
        return _Expr(f"{v.text}[{i.text}]", v.dep or i.dep)

    def fleaf(self) -> _Expr:
        kind = self.pick([(4, "var"), (2, "const"), (5, "gather"), (1, "reduce"),
                          (1 if self.table else 0, "table"), (1, "len")])
        if kind == "var":
            return super().fleaf() if self.scope else self.gather()
        if kind == "const":
            return _Expr(self.choice(FLOAT_LITERALS), False)
        if kind == "gather":
            return self.gather()
        if kind == "reduce":
            v = self.vector()
            return _Expr(self.choice(REDUCTIONS).format(v.text), v.dep)
        if kind == "table":
            return self.table_read()
        return _Expr(f"float(len({self.choice(self.vectors)}))", False)

    def table_read(self) -> _Expr:
        # (with "table" avoided only `for` loop variables: a `while` counter differs per
        # example after a per-example exit)
        counters = [n for n in self.ints if "table" not in self.avoid or n.startswith("i")]
        options = [(2, "counter")] if counters else []
        if "table" not in self.avoid:
            options += [(3, "index"), (1, "count")]
        kind = self.pick(options) if options else "const"
        if kind == "counter":
            return _Expr(f"TABLE[min({self.choice(counters)}, 3)]", False)
        if kind == "index":
            i = self.index()
            if i.dep:
                self.features.add("table_batched")
            return _Expr(f"TABLE[({i.text}) % 4]", i.dep)
        if kind == "count" and self.dints:
            name = self.choice(self.dints)
            self.features.add("table_batched")
            return _Expr(f"TABLE[min(max({name}, 0), 3)]", True)
        return _Expr(f"TABLE[{self.choice(['0', '-1', '2'])}]", False)

    def iexpr(self, depth: int) -> _Expr:
        """An int: a loop counter, a per-example int, a length, a literal, an index."""
        kind = self.pick([(2, "base"), (3 if self.dints else 0, "dint"), (1, "len"),
                          (1, "index")])
        if kind == "dint":
            name = self.choice(self.dints)
            return _Expr(name, self.dints[name][0])
        if kind == "len":
            return _Expr(f"len({self.choice(self.vectors)})", False)
        if kind == "index":
            return self.index()
        return super().iexpr(depth)

    def vexpr(self, depth: int = 2) -> _Expr:
        """A vector of the common length."""
        kind = self.pick([(4, "var"), (3, "scale"), (2, "unary"), (1, "binary"),
                          (1, "where") if depth > 0 else (0, "where"),
                          (1, "shift")])
        if kind == "var" or depth <= 0:
            return self.vector()
        d = depth - 1
        if kind == "scale":
            a, f = self.vexpr(d), self.fexpr(1)
            op = self.choice(["*", "+", "-"])
            if self.draw(st.booleans()):
                return _Expr(f"({a.text} {op} {f.text})", a.dep or f.dep)
            return _Expr(f"({f.text} {op} {a.text})", a.dep or f.dep)
        if kind == "unary":
            a = self.vexpr(d)
            return _Expr(f"{self.choice(VECTOR_UNARY)}({a.text})", a.dep)
        if kind == "binary":
            a, b = self.vexpr(d), self.vexpr(d)
            return _Expr(f"({a.text} {self.choice(['+', '-', '*'])} {b.text})", a.dep or b.dep)
        if kind == "where":
            a, b, f = self.vexpr(d), self.vexpr(d), self.fexpr(1)
            return _Expr(f"np.where({a.text} {self.choice(COMPARE_OPS)} {f.text}, {a.text}, "
                         f"{b.text})", a.dep or b.dep or f.dep)
        a = self.vexpr(d)
        return _Expr(f"({a.text} - np.mean({a.text}))", a.dep)

    def helper_call(self, d: int) -> _Expr:
        args = []
        for kind in self.helper.params:
            args.append(self.vexpr(1) if kind == "vector" else self.fexpr(d))
        return _Expr(f"h0({', '.join(a.text for a in args)})", any(a.dep for a in args))

    def out_expr(self, kind: str) -> _Expr:
        if kind == "v":
            return self.vexpr(2)
        if kind == "s":
            return _Expr(f'"{self.choice(["hi", "lo"])}"', False)
        if kind == "i":
            return self.iexpr(1)
        return super().out_expr(kind)

    def return_stmt(self) -> str:
        parts = []
        for kind in self.out_kinds:
            e = self.out_expr(kind)
            if self.is_helper and not e.dep:
                e = _Expr(f"({e.text} + {self.dep_var()})", True)
            parts.append(e.text)
        if self.loops:
            self.features.add("return_in_loop")
        return "return " + ", ".join(parts)

    # -------------------------------------------------------------------- statements
    def block(self, depth, lo, hi):
        first, self.pending = self.pending, None
        if first is None:
            return super().block(depth, lo, hi)
        lines, _ = first(depth)
        more, leaves = super().block(depth, 0, hi - 1)
        return lines + more, leaves

    def statement(self, depth: int) -> tuple[list[str], bool]:
        nested = depth < MAX_DEPTH
        loops_ok = nested and len(self.loops) < MAX_LOOP_DEPTH
        in_loop = bool(self.loops)
        kind = self.pick([
            (4, "assign"), (1, "aug"), (1, "tuple"),
            (3 if nested else 0, "if"),
            (3 if loops_ok else 0, "for_index"), (1 if loops_ok else 0, "for_elem"),
            (1 if loops_ok else 0, "for"), (2 if loops_ok else 0, "while"),
            (1 if loops_ok else 0, "scan"),
            (0 if in_loop else 2, "accum"), (5 if in_loop and self.carries else 0, "acc"),
            (2, "index_var"), (2 if nested else 0, "guard"), (1, "vassign"),
            (3 if in_loop else 0, "exit"),
            (1 if nested and in_loop and self._return_allowed() else 0, "return_both"),
        ])
        return getattr(self, f"stmt_{kind}")(depth)

    def stmt_assign(self, depth):
        name = self.target()
        e = self.assign_value(name, self.fexpr(2))
        return [f"{name} = {e.text}"], False

    def target(self) -> str:
        if not self.scope:
            return self.new_name() or "v0"
        return super().target()

    def stmt_aug(self, depth):
        if not self.scope:
            return self.stmt_assign(depth)
        return super().stmt_aug(depth)

    def stmt_exit(self, depth):
        """`if <test>: break` / `continue`, often on a per-example test."""
        word = self.choice(["break", "continue"])
        test = self.bexpr(1) if self.draw(st.booleans()) else self.counter_test()
        if test.dep or self.divergent or any(self.cond_stack[self.loops[-1]:]):
            self.features.add("exit_batched")
        return [f"if {test.text}:", f"    {word}"], False

    def _return_allowed(self) -> bool:
        return not self.loops or not (
            "return_in_loop" in self.avoid
            or ("return_in_nested_loop" in self.avoid and len(self.loops) > 1)
            or ("vector_return_in_loop" in self.avoid and "v" in self.out_kinds))

    def _branch(self, depth, test_dep, may_return):
        return super()._branch(depth, test_dep, may_return and self._return_allowed())

    def stmt_return_both(self, depth):
        """`if <per-example test>: return A` / `else: return B` inside a loop."""
        test = self.bexpr(1)
        lines = [f"if {test.text}:", "    " + self.return_stmt(), "else:",
                 "    " + self.return_stmt()]
        return lines, True

    def _counted_loop(self, depth, header: list[str], counter: str | None,
                      index: tuple[str, bool] | None = None,
                      elem: tuple[str, bool] | None = None):
        saved = self.snapshot()
        if index is not None:
            self.indexes[index[0]] = index[1]
        if elem is not None:
            self.scope[elem[0]] = elem[1]
        body = self._loop_body(depth, counter) if counter else self._elem_body(depth)
        self.restore(saved)
        return header + _indent(body), False

    def _elem_body(self, depth):
        # (the int variables the body binds, a counter of a loop in it, may be unbound after
        # the loop, as in `programs._loop_body`)
        saved, saved_ints = self.snapshot(), list(self.ints)
        self.loops.append(len(self.cond_stack))
        try:
            body, _ = self.block(depth + 1, 1, 3)
        finally:
            self.loops.pop()
            self.ints = saved_ints
        self.restore(saved)
        return body

    def stmt_for_index(self, depth):
        counter = self.counter_name()
        v = self.choice(self.vectors)
        return self._counted_loop(depth, [f"for {counter} in range(len({v})):"], counter,
                                  index=(counter, False))

    def stmt_for_elem(self, depth):
        if "for_elem" in self.avoid:
            return self.stmt_for_index(depth)
        name = f"e{self.n_elems}"
        self.n_elems += 1
        v = self.vector()
        return self._counted_loop(depth, [f"for {name} in {v.text}:"], None,
                                  elem=(name, v.dep))

    def stmt_while(self, depth):
        """A counter-bounded `while` whose condition differs per example (mostly)."""
        counter = f"n{self.n_counters}"
        self.n_counters += 1
        test = self.bexpr(1)
        if test.dep:
            self.features.add("while_batched")
        lines = [f"{counter} = 0",
                 f"while {counter} < {self.choice([2, 3, 1, 5])} and {test.text}:",
                 f"    {counter} += 1"]
        if not test.dep:
            lines, _ = self._counted_loop(depth, lines, counter)
            self.ints.append(counter)
            return lines, False
        # the counter differs per example (each example leaves the loop on its own)
        saved = self.snapshot()
        self.dints[counter] = (True, "count")
        body = self._elem_body(depth)
        self.restore(saved)
        self.dints[counter] = (True, "count")
        return lines + _indent(body), False

    def stmt_scan(self, depth):
        """`k = 0; while k < len(v) and <test of v[k]>: k += 1`: k is then a per-example
        count in [0, len(v)]."""
        name = f"k{self.n_ints}"
        self.n_ints += 1
        v = self.vector()
        op = self.choice(COMPARE_OPS)
        bound = self.fexpr(1)
        self.features.add("while_batched")
        lines = [f"{name} = 0", f"while {name} < len({v.text}) and {v.text}[{name}] {op} "
                                f"{bound.text}:", f"    {name} += 1"]
        saved = self.snapshot()
        self.dints[name] = (True, "count")
        self.indexes[f"{name} - 1"] = True
        body = []
        if self.chance(3):
            body = self._elem_body(depth)
        self.restore(saved)
        self.dints[name] = (True, "count")
        return lines + ["    " + line for line in body], False

    def stmt_accum(self, depth):
        """A float or int accumulator (`tot = 0.0`, `cnt = 0`), changed in later loops."""
        if self.draw(st.booleans()):
            name = f"tot{self.n_ints}"
            self.n_ints += 1
            if "scalar_carry" in self.avoid:    # (from a vector of the batch: v)
                value = f"{self.batch_vector()}[{self.index().text}] * 0.0"
                self.scope[name] = True
            else:
                value = self.choice(["0.0", "1.0", "-0.0"])
                self.scope[name] = False
            self.carries.add(name)
            return [f"{name} = {value}"] + self._accumulating_loop(depth), False
        name = f"cnt{self.n_ints}"
        self.n_ints += 1
        if "scalar_carry" in self.avoid:
            value, dep = f"int(np.argmax({self.batch_vector()})) * 0", True
            # (an index times 0 is 0, but not a Python constant)
        else:
            value, dep = "0", False
        self.dints[name] = (dep, "count")
        self.carries.add(name)
        return [f"{name} = {value}"] + self._accumulating_loop(depth), False

    def _accumulating_loop(self, depth) -> list[str]:
        """Now and then, right after an accumulator: a loop whose body starts by changing
        it (`tot += v[i]`, often under a per-example `if`)."""
        if depth >= MAX_DEPTH or len(self.loops) >= MAX_LOOP_DEPTH or not self.draw(
                st.booleans()):
            return []
        self.pending = self.stmt_acc
        lines, _ = self.stmt_for_index(depth)
        self.pending = None
        return lines

    def stmt_acc(self, depth):
        """`tot += <float>` / `cnt += 1` on an accumulator in scope, under a per-example
        test now and then."""
        names = [n for n in self.carries if n in self.scope or n in self.dints]
        if not names:
            return self.stmt_assign(depth)
        name = self.choice(sorted(names))
        if name in self.dints:
            line = f"{name} += 1"
            dep = self.dints[name][0]
        else:
            e = self.fexpr(EXPR_DEPTH - 1)
            line = f"{name} += {e.text}"
            dep = self.scope[name] or e.dep
        if self.chance(2):
            test = self.bexpr(1)
            lines = [f"if {test.text}:", f"    {line}"]
            dep = dep or test.dep
        else:
            lines = [line]
        if name in self.dints:
            self.dints[name] = (self.dints[name][0] or dep, "count")
        else:
            self.scope[name] = dep
        return lines, False

    def stmt_index_var(self, depth):
        """`j = <an index>`: a valid index from here on."""
        name = f"j{self.n_ints}"
        self.n_ints += 1
        i = self.index()
        self.dints[name] = (i.dep, "index")
        self.indexes[name] = i.dep
        return [f"{name} = {i.text}"], False

    def stmt_guard(self, depth):
        """`if j + 1 < len(v) and v[j + 1] <op> <float>:` (or `j - 1 >= 0`)."""
        known = [n for n in self.indexes if n.isidentifier()]
        if not known:
            return self.stmt_index_var(depth)
        j = self.choice(known)
        shared = not self.indexes[j]
        if shared and "shared_guard" in self.avoid:
            return self.stmt_if(depth)
        if shared:
            self.features.add("shared_guard")
        v = self.vector()
        bound = self.fexpr(1)
        op = self.choice(COMPARE_OPS)
        if self.draw(st.booleans()):
            test = f"{j} + 1 < len({v.text}) and {v.text}[{j} + 1] {op} {bound.text}"
        else:
            test = f"{j} - 1 >= 0 and {v.text}[{j} - 1] {op} {bound.text}"
        lines = [f"if {test}:"]
        body, env = self._branch(depth, True, True)
        lines += _indent(body)
        if env is not None:
            self.merge([env, self.snapshot()])
        return lines, False

    def stmt_vassign(self, depth):
        e = self.vexpr(2)
        name = f"u{self.n_vectors}"
        self.n_vectors += 1
        if self.n_vectors > 3:
            name = self.choice([n for n in self.vectors if n.startswith("u")] or ["u0"])
        self.vectors[name] = e.dep or self.vectors.get(name, False)
        return [f"{name} = {e.text}"], False


@st.composite
def programs(draw, avoid: frozenset = frozenset()) -> Program:
    """A module defining ``f`` over per-example vectors (and sometimes a helper ``h0`` and a
    constant table ``TABLE``); ``avoid`` names constructs (keys of `AVOIDABLE`) to leave
    out."""
    avoid = frozenset(avoid)
    features: set[str] = set()
    chunks = [HEADER]
    table = None
    if draw(st.integers(0, 3)) == 3:
        table = draw(st.sampled_from(TABLES))
        chunks.append(f"TABLE = {table}\n")
    helper = None
    if "helper" not in avoid and draw(st.integers(0, 3)) == 3:
        kinds = draw(st.sampled_from([("vector", "scalar"), ("vector",), ("scalar", "vector")]))
        names = tuple("p" if k == "vector" else "a" for k in kinds)
        gen = _VecGen(draw, [n for n in names if n == "a"], ["p"], helper=None,
                      is_helper=True, out_kinds=("f",), avoid=avoid, table=table)
        body, leaves = gen.block(1, 0, 3)
        if not leaves:
            body.append(gen.return_stmt())
        helper = _Helper(kinds)
        features |= gen.features | {"helper"}
        chunks.append("\n" + _function("h0", names, body))
    # parameters: v (a batched vector), then up to two of w (vector), x, y (scalars)
    extra = draw(st.lists(st.sampled_from(["w", "x", "y"]), max_size=2, unique=True))
    params = ("v",) + tuple(sorted(extra, key="wxy".index))
    cores = tuple(1 if p in "vw" else 0 for p in params)
    shared = (False,) + tuple(draw(st.integers(0, 2)) == 2 and "scalar_arg" not in avoid
                              for _ in params[1:])
    n_out = 1 if "tuple" in avoid or draw(st.integers(0, 3)) else 2
    kinds = [(6, "f"), (2, "i"), (0 if "vector_return" in avoid else 2, "v"),
             (0 if "string" in avoid else 1, "s"), (1, "b")]
    out_kinds = []
    for _ in range(n_out):
        k = draw(st.integers(0, sum(w for w, _ in kinds) - 1))
        for w, kind in kinds:
            if k < w:
                out_kinds.append(kind)
                break
            k -= w
    gen = _VecGen(draw, [p for p in params if p in "xy"], [p for p in params if p in "vw"],
                  helper=helper, is_helper=False, out_kinds=tuple(out_kinds), avoid=avoid,
                  table=table)
    body, leaves = gen.block(0, 1, 5)
    if not leaves:
        body.append(gen.return_stmt())
    features |= gen.features
    features |= {f"returns_{k}" for k in out_kinds}
    if n_out > 1:
        features.add("tuple_return")
    if any(shared):
        features.add("shared_arg")
    if table:
        features.add("table")
    api = draw(st.sampled_from(["vmap", "signature"]))
    features.add(api)
    chunks.append("\n" + _function("f", params, body))
    layout = Layout(api, cores, shared, tuple(1 if k == "v" else 0 for k in out_kinds))
    return Program("\n".join(chunks), params, n_out, frozenset(features), layout)


class _Helper:
    """What `_VecGen` needs to know of the helper: the kind of each parameter."""

    def __init__(self, params):
        self.params = params
        self.n_out = 1
        self.name = "h0"


@st.composite
def inputs_for(draw, program: Program) -> tuple:
    """The drawn call: N examples (1 to 6) of vectors of one length (1 to 6)."""
    n_rows = draw(st.integers(1, 6))
    length = draw(st.integers(1, 6))
    args = []
    for core, shared in zip(program.layout.cores, program.layout.shared):
        shape = ((length,) if core else ()) if shared else (n_rows,) + ((length,) if core
                                                                       else ())
        if shape == ():
            args.append(draw(values))
        else:
            count = int(np.prod(shape))
            args.append(np.array(draw(st.lists(values, min_size=count, max_size=count)),
                                 dtype=np.float64).reshape(shape))
    return tuple(args)


@st.composite
def cases(draw, avoid: frozenset = frozenset()) -> tuple[Program, tuple, int]:
    """(program, the drawn call's arguments, the protocol's seed)."""
    program = draw(programs(avoid))
    return program, draw(inputs_for(program)), draw(seeds)
