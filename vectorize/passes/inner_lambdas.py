"""A lambda mapped inside the function reads the function's values as arguments.

Assumes: scalar-style code, not yet analysed.
Reads: no record (the first pass). Writes no record.
Guarantees: ``vmap(lambda y: x * y)(y)``, whose lambda reads ``x``, a value of the function
(a parameter, or a name it assigns), is ``vmap(lambda x, y: x * y, in_axes=(None, 0))(x,
y)``: the same call (``x`` is the same for every call the inner vmap makes, so it is not
mapped), with a lambda that closes over nothing. The vmapped-call rule (`rules.nested`) then
batches it like a vmap of a function of the module: where ``x`` is per example, over the
batch too. Only ``vectorize``'s ``vmap`` with a literal ``in_axes`` (or ``in_dims``) is
rewritten, for a lambda of plain positional parameters called with positional arguments.

    z = vmap(lambda y: x * y)(v)     ->     z = vmap(lambda x, y: x * y, in_axes=(None, 0))(x, v)
"""

from __future__ import annotations

import ast
import symtable

import libcst as cst

from ..syntax.traversal import by_type, rewrite


def _code(node) -> str:
    return cst.Module([]).code_for_node(node)


def _function_locals(func: cst.FunctionDef) -> set[str]:
    text = _code(func.with_changes(decorators=[]))
    try:
        table = symtable.symtable(text, "<function>", "exec")
    except SyntaxError:
        return set()
    inner = next((t for t in table.get_children() if t.get_name() == func.name.value), None)
    return set(inner.get_locals()) if inner is not None else set()


def _free_reads(lam: cst.Lambda) -> list[str]:
    """The names the lambda reads that it does not bind (in order of first reading)."""
    try:
        tree = ast.parse("(" + _code(lam) + ")", mode="eval").body
    except SyntaxError:
        return []
    bound = {a.arg for n in ast.walk(tree) if isinstance(n, ast.Lambda)
             for a in n.args.args + n.args.kwonlyargs + n.args.posonlyargs}
    bound |= {t.id for n in ast.walk(tree) if isinstance(n, ast.comprehension)
              for t in ast.walk(n.target) if isinstance(t, ast.Name)}
    out: list[str] = []
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in bound \
                and n.id not in out:
            out.append(n.id)
    return out


def _literal(node):
    try:
        return True, ast.literal_eval(_code(node))
    except (ValueError, SyntaxError, TypeError):
        return False, None


class _Lift(cst.CSTTransformer):
    def __init__(self, locals_: set[str], is_vmap):
        self.locals = locals_
        self.is_vmap = is_vmap

    def leave_Call(self, original, updated):
        inner = updated.func
        if not (isinstance(inner, cst.Call) and inner.args and self.is_vmap(inner.func)):
            return updated
        root = inner.func.value if isinstance(inner.func, cst.Attribute) else inner.func
        if isinstance(root, cst.Name) and root.value in self.locals:
            return updated     # a name the function binds itself: not the module's vmap
        lam = inner.args[0].value
        if not isinstance(lam, cst.Lambda) or inner.args[0].keyword is not None:
            return updated
        params = lam.params
        if params.star_arg is not cst.MaybeSentinel.DEFAULT or params.kwonly_params or \
                params.star_kwarg is not None or params.posonly_params or any(
                    p.default is not None for p in params.params):
            return updated
        if any(a.keyword is not None or a.star for a in updated.args):
            return updated
        free = [n for n in _free_reads(lam) if n in self.locals]
        if not free:
            return updated
        count = len(updated.args)
        axes, rest = 0, []
        for k, arg in enumerate(inner.args[1:]):
            if (k == 0 and arg.keyword is None) or (arg.keyword is not None and
                                                    arg.keyword.value in ("in_axes", "in_dims")):
                ok, axes = _literal(arg.value)
                if not ok or not (axes is None or type(axes) in (int, tuple)):
                    return updated
            elif arg.keyword is None:
                rest.append(arg.with_changes(keyword=cst.Name("out_axes"),
                                             equal=cst.AssignEqual(
                                                 cst.SimpleWhitespace(""),
                                                 cst.SimpleWhitespace(""))))
            else:
                rest.append(arg)
        entries = axes if type(axes) is tuple else (axes,) * count
        if len(entries) != count:
            return updated
        new_params = [cst.Param(cst.Name(n)) for n in free] + list(params.params)
        new_lam = lam.with_changes(params=params.with_changes(params=new_params))
        in_axes = cst.parse_expression(repr((None,) * len(free) + tuple(entries)))
        vmapped = inner.with_changes(args=[cst.Arg(new_lam), cst.Arg(
            in_axes, keyword=cst.Name("in_axes"), equal=cst.AssignEqual(
                cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))] + rest)
        return updated.with_changes(func=vmapped, args=[cst.Arg(cst.Name(n)) for n in free]
                                    + list(updated.args))


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if cst.Lambda not in by_type(func.body):
        return func
    from ..codegen import SPELLED_WITH  # vectorize.vmap and the one generated code calls
    vmaps = SPELLED_WITH.get("vmap", ())
    source = ctx.source

    def is_vmap(node) -> bool:
        if isinstance(node, cst.Name):
            found, value, _ = source.lookup(node.value)
        elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            found, owner, _ = source.lookup(node.value.value)
            value = getattr(owner, node.attr.value, None) if found else None
        else:
            return False
        return found and any(value is v for v in vmaps)
    return rewrite(func, _Lift(_function_locals(func), is_vmap))
