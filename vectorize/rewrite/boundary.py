"""How a rewritten function is called: its boundary.

Generated code takes its batch along axis 0 of every batched argument, all of one length (a
batch of numbers is a 1-D array). The decorators accept more: ``@vectorize`` broadcasts its
arguments as ``numpy.vectorize`` does (scalars, arrays of any shape; with ``signature=``, the
loop dimensions before the core dimensions), ``@vmap`` maps any axis (``in_axes``) and puts the
batch of its outputs at ``out_axes``. A rewritten function keeps its decorator's calling
convention, so that the module's calls behave as before:

- generated code that broadcasts as it is (`broadcasts`: it only combines its arguments with
  operators, NumPy ufuncs and ``np.where``, so that arguments of any shapes that broadcast
  together give the per-example results in that shape) is the rewritten function itself,
  after one line that makes arrays of ``@vectorize``'s batched arguments (`prologue`: a list
  is an array_like to numpy.vectorize, and ``[1.0, 2.0] > 0`` raises);
- otherwise the generated code becomes ``<name>_batched`` and the function keeps its name as
  a few lines that bring the arguments to axis 0 and the results back (`wrapper`).
"""

from __future__ import annotations

import ast

import numpy as np

from ..abstract import TupleValue
from ..liveness import Namer

_ELEMENTWISE = frozenset({"where", "errstate"} | {
    name for name, value in vars(np).items() if isinstance(value, np.ufunc)})
_NUMBERS = frozenset(name for name, value in vars(np).items() if isinstance(value, float))
_STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Pass, ast.If,
               ast.For, ast.While, ast.Break, ast.Continue, ast.With, ast.Expr)
_EXPRESSIONS = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp,
                ast.IfExp, ast.Tuple, ast.Call, ast.Attribute, ast.keyword)
_CONTEXTS = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def broadcasts(functions: dict[str, str], name: str, alias: str = "np") -> bool:
    """Whether the generated function ``name`` (its text and its helpers' in ``functions``)
    computes elementwise on arguments of any shapes that broadcast together: only operators,
    ufuncs of the namespace ``alias``, its ``where``, ``errstate`` and numeric constants
    (``np.pi``), ``range`` and calls of helpers that do the same. No subscripts, methods or
    lengths: those depend on the batch being one axis."""
    seen: set[str] = set()

    def safe(function: str) -> bool:
        if function in seen:
            return True
        seen.add(function)
        tree = ast.parse(functions[function]).body[0]
        for node in ast.walk(tree):
            if node is tree or isinstance(node, (ast.arguments, ast.arg, ast.withitem,
                                                 *_CONTEXTS)):
                continue
            if not isinstance(node, _STATEMENTS + _EXPRESSIONS):
                return False
            if isinstance(node, ast.Attribute) and not (
                    isinstance(node.value, ast.Name) and node.value.id == alias
                    and node.attr in _ELEMENTWISE | _NUMBERS):
                return False
            if isinstance(node, ast.Call):
                callee = node.func
                if isinstance(callee, ast.Name):
                    if callee.id in functions:
                        if not safe(callee.id):
                            return False
                    elif callee.id != "range":
                        return False
                elif not (isinstance(callee, ast.Attribute) and node.func.attr in _ELEMENTWISE):
                    return False
                if any(isinstance(a, ast.Starred) for a in node.args):
                    return False
        return True

    return safe(name)


def prologue(plan, alias: str) -> str | None:
    """``x, y = np.asarray(x), np.asarray(y)`` for a ``@vectorize`` function that needs no
    wrapper (a vmap function's arguments are arrays already)."""
    if plan.kind != "vectorize":
        return None
    return (f"{', '.join(plan.batched)} = "
            + ", ".join(f"{alias}.asarray({p})" for p in plan.batched))


def needs_wrapper(plan, functions: dict[str, str], alias: str) -> bool:
    if plan.kind == "vmap":
        return bool(plan.moves) or plan.out_axes != 0
    return (plan.signature is not None or not broadcasts(functions, plan.name, alias)
            or _copies(plan, alias)
            or len(plan.batched) > 1 and not _all_reach_result(functions[plan.name],
                                                               plan.batched))


def _names(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} if node else set()


def _all_reach_result(function: str, batched) -> bool:
    """Whether each of the ``batched`` parameters reaches a value the elementwise function
    (`broadcasts`) returns: the short form returns the shape its operands broadcast to, which
    numpy.vectorize takes from every argument (``f(x, b)`` returning ``x - 1.0`` gives the
    shape of ``x`` and ``b`` broadcast together; the wrapper's raveled arguments have it).
    Followed backwards from the returns, through assignments (a rebinding ends a name's
    reach) and loops to a fixed point; a ``break``/``continue`` answers False."""
    tree = ast.parse(function).body[0]
    if any(isinstance(n, (ast.Break, ast.Continue)) for n in ast.walk(tree)):
        return False

    def block(stmts: list, needed: set) -> set:
        for stmt in reversed(stmts):
            needed = statement(stmt, needed)
        return needed

    def statement(stmt, needed: set) -> set:
        if isinstance(stmt, ast.Return):
            return _names(stmt.value)
        if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            bound = set().union(*(_names(t) for t in targets))
            if not bound & needed:
                return needed
            kept = needed if isinstance(stmt, ast.AugAssign) else needed - bound
            return kept | _names(stmt.value)
        if isinstance(stmt, ast.If):
            return block(stmt.body, needed) | block(stmt.orelse, needed)
        if isinstance(stmt, (ast.For, ast.While)):
            head = set(needed)
            while True:
                after_body = block(stmt.body, head)
                if isinstance(stmt, ast.For) and _names(stmt.target) & after_body and not (
                        isinstance(stmt.iter, ast.Call) and isinstance(stmt.iter.func, ast.Name)
                        and stmt.iter.func.id == "range"):
                    after_body |= _names(stmt.iter)
                new = head | after_body | block(stmt.orelse, needed)
                if new == head:
                    return head
                head = new
        if isinstance(stmt, ast.With):
            return block(stmt.body, needed)
        return needed

    return set(batched) <= block(tree.body, set())


def _copies(plan, alias: str) -> bool:
    """Whether the wrapper copies the result: numpy.vectorize always returns new arrays,
    where generated code that may return its argument (`returns_new_array`: ``return x``)
    would return the caller's array, or a view of it (the rows of ``M`` for ``f(M)``), so that
    writing into the result would change the argument. NumPy only (JAX arrays are immutable,
    and a tensor's copy is spelled otherwise)."""
    return plan.kind == "vectorize" and not plan.new_result and alias == "np"


def wrapper(plan, body: str, result, alias: str, indent: str = "    ",
            broadcast: str = "broadcast_arrays", converts: bool = False) -> list[str]:
    """The body lines (without the ``def`` line) of the function that keeps ``plan.name``
    and calls the generated code, renamed ``body``; ``broadcast``: the namespace's function
    that broadcasts arrays against each other; ``converts``
    (`Backend.converts_arguments`): a batched argument of a parameter rewritten for a float
    or complex dtype is made one of that dtype."""
    names = Namer(list(plan.params) + [body, alias])
    if plan.kind == "vmap":
        args = [f"{alias}.moveaxis({p}, {plan.moves[p]}, 0)" if p in plan.moves else p
                for p in plan.params if p not in plan.keyword_only]
        call = _call(body, args, plan)
        if plan.out_axes == 0:
            return [f"return {call}"]
        if isinstance(result, TupleValue):
            item = names.fresh("result")
            return [f"return tuple({alias}.moveaxis({item}, 0, {plan.out_axes}) for {item} in "
                    f"{call})"]
        return [f"return {alias}.moveaxis({call}, 0, {plan.out_axes})"]
    batched = plan.batched
    lines = []
    if plan.signature is None:
        def asarray(p: str) -> str:
            dtype = getattr(plan.params.get(p), "dtype", None) if converts else None
            if dtype is not None and dtype.kind in "fc":
                # (ints to a float64 `x`, docs/cli.md: the code runs as rewritten, where
                # PyTorch's writes into its float64 result would raise for int lanes)
                return f"{alias}.asarray({p}, dtype={alias}.{dtype.name})"
            return f"{alias}.asarray({p})"
        if len(batched) == 1:
            lines.append(f"{batched[0]} = {asarray(batched[0])}")
        else:
            # NumPy's broadcast_arrays takes any array-like; JAX's refuses lists (TypeError),
            # torch's takes tensors only
            items = batched if broadcast == "broadcast_arrays" and alias == "np" else [
                asarray(p) for p in batched]
            lines.append(f"{', '.join(batched)} = {alias}.{broadcast}({', '.join(items)})")
        shape = f"{batched[0]}.shape"
        flat = {p: f"{p}.ravel()" for p in batched}
    else:
        cores = dict(zip(batched, (len(dims) for dims in plan.signature[0])))
        lines.append(f"{', '.join(batched)} = "
                     + ", ".join(f"{alias}.asarray({p})" for p in batched))
        shape = names.fresh("shape")
        loops = [f"{p}.shape[:-{cores[p]}]" if cores[p] else f"{p}.shape" for p in batched]
        lines.append(f"{shape} = {alias}.broadcast_shapes({', '.join(loops)})"
                     if len(loops) > 1 else f"{shape} = {loops[0]}")
        for p in batched:      # each argument: (loop size, *core shape)
            core = f"{p}.shape[-{cores[p]}:]"
            whole = p if len(batched) == 1 else (
                f"{alias}.broadcast_to({p}, {shape} + {core})" if cores[p]
                else f"{alias}.broadcast_to({p}, {shape})")
            lines.append(f"{p} = {whole}.reshape((-1,) + {core})" if cores[p]
                         else f"{p} = {whole}.ravel()")
        flat = {}
    args = [flat.get(p, p) for p in plan.params if p not in plan.keyword_only]
    call = _call(body, args, plan, flat)
    items = result.items if isinstance(result, TupleValue) else (result,)
    scalar = all(getattr(item, "rank", 1) == 0 for item in items)
    if isinstance(result, TupleValue):
        results, item = names.fresh("results"), names.fresh("result")
        lines.append(f"{results} = {call}")
        back = f"{shape}" if scalar else f"{shape} + {item}.shape[1:]"
        copy = ".copy()" if _copies(plan, alias) else ""
        lines.append(f"return tuple({item}.reshape({back}){copy} for {item} in {results})")
    else:
        item = names.fresh("result")
        lines.append(f"{item} = {call}")
        back = f"{shape}" if scalar else f"{shape} + {item}.shape[1:]"
        copy = ".copy()" if _copies(plan, alias) else ""
        lines.append(f"return {item}.reshape({back}){copy}")
    return lines


def _call(body: str, args: list[str], plan, flat=None) -> str:
    keywords = [f"{p}={(flat or {}).get(p, p)}" for p in plan.keyword_only]
    return f"{body}({', '.join(args + keywords)})"
