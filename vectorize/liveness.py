"""Which names are read and written where, and which are live after each statement.

Liveness is a backward pass over structured code. Loops are over-approximated (everything a
loop reads is live throughout it), which only ever keeps a variable that could have been
dropped; it never drops one that is needed.
"""

from __future__ import annotations

import libcst as cst

from .syntax.traversal import memoized, push_children, walk


def reads(node) -> set[str]:
    """Names an expression or statement reads anywhere (assignment targets excluded; what
    a target indexes into is read)."""
    if node is None:
        return set()
    return set(memoized("reads", node, _reads))


def _reads(node) -> frozenset[str]:
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t in _STATEMENTS and n is not node:      # (see `_writes`)
            out |= memoized("reads", n, _reads)
        elif t is cst.Name:
            out.add(n.value)
        elif t is cst.Attribute or t is cst.Arg:
            stack.append(n.value)
        elif t is cst.Assign:
            stack.append(n.value)
            for tg in n.targets:
                stack += _target_subexpressions(tg.target)
        elif t is cst.AugAssign:
            stack += [n.value, n.target]
        elif t is cst.AnnAssign:
            if n.value is not None:
                stack.append(n.value)
        elif t is cst.For:
            stack += [n.iter, n.body] + ([n.orelse] if n.orelse is not None else [])
        elif t is cst.NamedExpr:
            stack.append(n.value)
        elif t is cst.Param:
            continue
        else:
            push_children(n, stack)
    return frozenset(out)


def _target_subexpressions(target) -> list:
    """The expressions an assignment target reads: none for names, the object and index for
    ``x[i]`` / ``x.a``."""
    kind = type(target)
    if kind is cst.Name or kind is cst.StarredElement:
        return []
    if kind is cst.Tuple or kind is cst.List:
        return [part for e in target.elements for part in _target_subexpressions(e.value)]
    return [target]


def exposed_reads(stmts) -> set[str]:
    """Names a statement sequence reads before assigning them itself (the values it takes
    from outside). Compound statements count what their parts read before the sequence
    assigned it; reads after a write inside a nested block are treated as exposed, which
    errs on the side of keeping values. Only writes made on every path count for the rest of
    the sequence: both branches of an ``if``, never a loop body (it may run zero times)."""
    out: set[str] = set()
    written: set[str] = set()
    for stmt in stmts:
        exposed, definite = _flow(stmt)
        out |= exposed - written
        written |= definite
    return out


def definite_writes(stmts) -> set[str]:
    """Names the statements assign on every path through them (loops may not run)."""
    out: set[str] = set()
    for stmt in stmts:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.With, cst.If)):
            out |= _flow(stmt)[1]
    return out


def _flow(stmt) -> tuple[frozenset[str], frozenset[str]]:
    """(`exposed_reads`, `definite_writes`) of one statement, kept per statement for the
    transform: nested blocks are asked again by each block around them."""
    return memoized("flow", stmt, _compute_flow)


def _compute_flow(stmt) -> tuple[frozenset[str], frozenset[str]]:
    if isinstance(stmt, cst.SimpleStatementLine):
        exposed: set[str] = set()
        written: set[str] = set()
        for small in stmt.body:
            exposed |= reads(small) - written
            written |= writes(small)
        return frozenset(exposed), frozenset(written)
    if isinstance(stmt, cst.With):
        exposed = set().union(*(reads(i.item) for i in stmt.items))
        return (frozenset(exposed | exposed_reads(stmt.body.body)),
                frozenset(definite_writes(stmt.body.body)))
    if isinstance(stmt, cst.If):
        exposed = reads(stmt.test) | exposed_reads(stmt.body.body) | exposed_reads(
            body_of(stmt.orelse))
        definite = definite_writes(stmt.body.body) & definite_writes(body_of(stmt.orelse)) \
            if stmt.orelse is not None else set()
        return frozenset(exposed), frozenset(definite)
    if isinstance(stmt, cst.While):
        # the test runs before the body; a body that assigns a name before reading it
        # does so on every pass
        inner = exposed_reads(stmt.body.body) | exposed_reads(body_of(stmt.orelse))
        return frozenset(reads(stmt.test) | inner), frozenset()
    if isinstance(stmt, cst.For):
        # the loop target is assigned before the body reads it
        inner = exposed_reads(stmt.body.body) | exposed_reads(body_of(stmt.orelse))
        return (frozenset(reads(stmt.iter) | (inner - set(target_names(stmt.target)))),
                frozenset())
    return frozenset(reads(stmt)), frozenset(writes(stmt))


def target_names(target) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return target_names(target.value)
    return []


def flows_from(node, names: set[str]) -> set[str]:
    """``names`` and every name assigned in ``node`` from a value that reads one of them,
    directly or through other such names (flow-insensitive: anywhere in ``node``)."""
    assignments = []
    for n in walk(node):
        t = type(n)
        if t is cst.Assign:
            assignments.append(({x for tg in n.targets for x in target_names(tg.target)},
                                reads(n.value)))
        elif t in (cst.AugAssign, cst.AnnAssign, cst.NamedExpr):
            value = reads(n.value) if n.value is not None else set()
            assignments.append((set(target_names(n.target)), value | reads(n.target)))
        elif t is cst.For:
            assignments.append((set(target_names(n.target)), reads(n.iter)))
    tainted = set(names)
    changed = True
    while changed:
        changed = False
        for targets, sources in assignments:
            if sources & tainted and not targets <= tainted:
                tainted |= targets
                changed = True
    return tainted


def writes(stmt) -> set[str]:
    """Names a statement (including nested blocks) may assign."""
    return set(memoized("writes", stmt, _writes))


def bound_names(func: cst.FunctionDef) -> set[str]:
    """The names ``func`` binds: its parameters and every name its statements may assign
    (where one of them is ``sum`` or ``map``, the builtin is not what the body calls)."""
    names = {p.name.value for p in func.params.params}
    for stmt in func.body.body:
        names |= writes(stmt)
    return names


def changes(stmt) -> set[str]:
    """Names a statement (including nested blocks) may assign or change in place: `writes`
    and the arrays it writes items of (``y`` of ``y[i] = v``, ``y[i] += v``), whose reads
    before and after it differ."""
    out = writes(stmt)
    for n in walk(stmt):
        t = type(n)
        if t is cst.AssignTarget or t is cst.AugAssign:
            stack = [n.target]
            while stack:
                target = stack.pop()
                if type(target) in (cst.Tuple, cst.List):
                    stack += [e.value for e in target.elements]
                    continue
                while type(target) in (cst.Subscript, cst.Attribute):
                    target = target.value
                if type(target) is cst.Name:
                    out.add(target.value)
    return frozenset(out)


# statements whose writes are remembered on their own when a statement around them is asked
# about (passes ask about the statements of a block after asking about the block)
_STATEMENTS = frozenset({cst.SimpleStatementLine, cst.If, cst.For, cst.While, cst.With})
_TARGETS = frozenset({cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr})


def _writes(node) -> frozenset[str]:
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t in _STATEMENTS and n is not node:
            out |= memoized("writes", n, _writes)
            continue
        if t is cst.Assign:
            for target in n.targets:
                out.update(target_names(target.target))
        elif t in _TARGETS:
            out.update(target_names(n.target))
        push_children(n, stack)
    return frozenset(out)


def body_of(block) -> list:
    if block is None:
        return []
    if isinstance(block, cst.If):
        return [block]
    if isinstance(block, cst.Else):
        return list(block.body.body)
    return list(block.body)


class Liveness:
    """``live_after[stmt]``: names whose current value may still be read after ``stmt``.

    Loops are solved to a fixed point: a name is live at the loop head when the rest of the
    function or the next iteration may read it; ``break`` continues with what is live after
    the loop and ``continue`` with what is live at its head."""

    def __init__(self, func: cst.FunctionDef):
        self.live_after: dict[cst.CSTNode, set[str]] = {}
        self.live_before: dict[cst.CSTNode, set[str]] = {}   # statements of blocks
        self.live_at_head: dict[cst.CSTNode, set[str]] = {}   # loop -> live at each test
        self._loops: list[tuple[set[str], set[str]]] = []   # (after the loop, at its head)
        self.block(list(func.body.body), set())

    def block(self, stmts, live: set[str]) -> set[str]:
        for stmt in reversed(stmts):
            self.live_after[stmt] = set(live)
            live = self.stmt(stmt, live)
            self.live_before[stmt] = live
        return live

    def stmt(self, stmt, live: set[str]) -> set[str]:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in reversed(stmt.body):
                self.live_after[small] = set(live)
                live = self.small(small, live)
            return live
        if isinstance(stmt, cst.If):
            body = self.block(list(stmt.body.body), set(live))
            orelse = self.block(body_of(stmt.orelse), set(live)) if stmt.orelse else set(live)
            return reads(stmt.test) | body | orelse
        if isinstance(stmt, (cst.For, cst.While)):
            return self.loop(stmt, live)
        if isinstance(stmt, cst.With):
            inner = self.block(list(stmt.body.body), set(live))
            return inner | {n for item in stmt.items for n in reads(item.item)}
        return live | reads(stmt)

    def small(self, small, live: set[str]) -> set[str]:
        if isinstance(small, cst.Return):
            return reads(small.value) if small.value is not None else set()
        if isinstance(small, (cst.Assign, cst.AnnAssign)):
            targets = small.targets if isinstance(small, cst.Assign) else [small]
            killed = {n for t in targets for n in target_names(t.target)}
            return (live - killed) | reads(small)
        if isinstance(small, cst.Break) and self._loops:
            return set(self._loops[-1][0])
        if isinstance(small, cst.Continue) and self._loops:
            return set(self._loops[-1][1])
        return live | reads(small)

    def loop(self, stmt, live: set[str]) -> set[str]:
        after = set(live)
        if stmt.orelse is not None:
            after = self.block(body_of(stmt.orelse), set(live))
        if isinstance(stmt, cst.While):
            entry, assigned = reads(stmt.test), set()
        else:
            entry, assigned = reads(stmt.iter), set(target_names(stmt.target))
        head = set(after) | entry
        for _ in range(100):
            self._loops.append((set(live), head))
            body_in = self.block(list(stmt.body.body), set(head))
            self._loops.pop()
            new_head = head | (body_in - assigned) | entry
            if new_head == head:
                break
            head = new_head
        self.live_at_head[stmt] = head
        return head


def liveness_of(func: cst.FunctionDef) -> Liveness:
    """``Liveness(func)``, computed once per tree and transform (its users only read it)."""
    return memoized("liveness", func, Liveness)


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
    """Every name in ``node`` (variables, attributes, keywords...)."""
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Name:
            out.add(n.value)
        else:
            push_children(n, stack)
    return out
