"""Which names are read and written where, and which are live after each statement.

Liveness is a backward pass over structured code. Loops are over-approximated (everything a
loop reads is live throughout it), which only ever keeps a variable that could have been
dropped; it never drops one that is needed.
"""

from __future__ import annotations

import libcst as cst


class _Reads(cst.CSTVisitor):
    def __init__(self):
        self.names: list[str] = []

    def visit_Name(self, node):
        self.names.append(node.value)

    def visit_Attribute(self, node):
        node.value.visit(self)
        return False

    def visit_Arg(self, node):
        node.value.visit(self)
        return False

    def visit_Param(self, node):
        return False

    # assignment targets are writes, but what they index into is read
    def visit_Assign(self, node):
        node.value.visit(self)
        for t in node.targets:
            _target_reads(t.target, self)
        return False

    def visit_AugAssign(self, node):
        node.value.visit(self)
        node.target.visit(self)
        return False

    def visit_AnnAssign(self, node):
        if node.value is not None:
            node.value.visit(self)
        return False

    def visit_For(self, node):
        node.iter.visit(self)
        node.body.visit(self)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_NamedExpr(self, node):
        node.value.visit(self)
        return False


def reads(node) -> set[str]:
    """Names an expression or statement reads anywhere (assignment targets excluded)."""
    v = _Reads()
    if node is not None:
        node.visit(v)
    return set(v.names)


def exposed_reads(stmts) -> set[str]:
    """Names a statement sequence reads before assigning them itself (the values it takes
    from outside). Compound statements count what their parts read before the sequence
    assigned it; reads after a write inside a nested block are treated as exposed, which
    errs on the side of keeping values."""
    out: set[str] = set()
    written: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                out |= reads(small) - written
                written |= writes(small)
        elif isinstance(stmt, cst.With):
            out |= set().union(*(reads(i.item) for i in stmt.items)) - written
            out |= exposed_reads(stmt.body.body) - written
            written |= writes(stmt)
        elif isinstance(stmt, cst.If):
            out |= reads(stmt.test) - written
            out |= exposed_reads(stmt.body.body) - written
            out |= exposed_reads(body_of(stmt.orelse)) - written
            written |= writes(stmt)
        else:
            out |= reads(stmt) - written
            written |= writes(stmt)
    return out


def _target_reads(target, v):
    if isinstance(target, (cst.Tuple, cst.List)):
        for e in target.elements:
            _target_reads(e.value, v)
    elif not isinstance(target, cst.Name):
        target.visit(v)   # x[i] = ... reads x and i


def target_names(target) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def writes(stmt) -> set[str]:
    """Names a statement (including nested blocks) may assign."""
    out: set[str] = set()

    class W(cst.CSTVisitor):
        def visit_Assign(self, node):
            for t in node.targets:
                out.update(target_names(t.target))

        def visit_AugAssign(self, node):
            out.update(target_names(node.target))

        def visit_AnnAssign(self, node):
            out.update(target_names(node.target))

        def visit_For(self, node):
            out.update(target_names(node.target))

        def visit_NamedExpr(self, node):
            out.update(target_names(node.target))

    stmt.visit(W())
    return out


def body_of(block) -> list:
    if block is None:
        return []
    if isinstance(block, cst.If):
        return [block]
    if isinstance(block, cst.Else):
        return list(block.body.body)
    return list(block.body)


class Liveness:
    """``live_after[stmt]``: names whose current value may still be read after ``stmt``."""

    def __init__(self, func: cst.FunctionDef):
        self.live_after: dict[cst.CSTNode, set[str]] = {}
        self.block(list(func.body.body), set())

    def block(self, stmts, live: set[str]) -> set[str]:
        for stmt in reversed(stmts):
            self.live_after[stmt] = set(live)
            live = self.stmt(stmt, live)
        return live

    def stmt(self, stmt, live: set[str]) -> set[str]:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in reversed(stmt.body):
                self.live_after[small] = set(live)
                if isinstance(small, cst.Return):
                    live = reads(small.value) if small.value is not None else set()
                elif isinstance(small, (cst.Assign, cst.AnnAssign)):
                    targets = (small.targets if isinstance(small, cst.Assign)
                               else [small])
                    killed = {n for t in targets for n in target_names(t.target)}
                    live = (live - killed) | reads(small)
                elif isinstance(small, cst.AugAssign):
                    live = live | reads(small)
                else:
                    live = live | reads(small)
            return live
        if isinstance(stmt, cst.If):
            body = self.block(list(stmt.body.body), set(live))
            orelse = self.block(body_of(stmt.orelse), set(live)) if stmt.orelse else set(live)
            return reads(stmt.test) | body | orelse
        if isinstance(stmt, (cst.For, cst.While)):
            everything = reads(stmt) | live
            self.block(list(stmt.body.body), everything)
            if stmt.orelse is not None:
                self.block(body_of(stmt.orelse), set(live))
            return everything
        if isinstance(stmt, cst.With):
            inner = self.block(list(stmt.body.body), set(live))
            return inner | {n for item in stmt.items for n in reads(item.item)}
        return live | reads(stmt)


class Namer:
    """Fresh names derived from the user's, never colliding with any name in scope."""

    def __init__(self, taken=()):
        self.taken: set[str] = set(taken)
        self.generated: set[str] = set()

    def fresh(self, base: str) -> str:
        candidate, n = base, 1
        while candidate in self.taken:
            n += 1
            candidate = f"{base}_{n}"
        self.taken.add(candidate)
        self.generated.add(candidate)
        return candidate

    def release(self, name: str) -> None:
        """Give back a fresh name that ended up unused."""
        if name in self.generated:
            self.generated.discard(name)
            self.taken.discard(name)


def all_names(node) -> set[str]:
    names: set[str] = set()

    class C(cst.CSTVisitor):
        def visit_Name(self, n):
            names.add(n.value)

    node.visit(C())
    return names
