"""``--explain``: which batching rule turned which scalar line into which batched line.

For each rewritten function, its lines are aligned with the generated lines (as ``diff``
aligns them); each changed stretch is shown as the scalar lines, the rules that fired on
them (their names and one-sentence explanations from the rule registry), and the batched
lines that replace them. Lines kept as they were are shown when a rule fired on them (an
operator on batched values is written the same way). Rules the engine applied to code it
wrote itself (the merge of an ``if``, the mask of a loop) are listed after the function. Then
each loop over examples that calls a rewritten function: its batched call, or why it stays.

`render_specialization` shows the same for one specialization made at run time
(`vectorize.explain`).
"""

from __future__ import annotations

import ast
import difflib
import inspect
import textwrap
from collections import Counter


def render_outcome(outcome, filename: str, text: str) -> str:
    lines = text.splitlines()
    out = []
    for fn in outcome.rewritten:
        out += _function(fn, filename, lines)
    for loop in outcome.loops:
        if loop.rewritten:
            out.append(f"{filename}:{loop.line}: loop over examples -> one batched call")
            out.append(f"    {loop.before}")
            out.append(f"  => {loop.after}")
        else:
            out.append(f"{filename}:{loop.line}: loop over examples of `{loop.function}` "
                       "stays a loop")
            out.append(f"    {loop.before}")
            out.append(f"  because {loop.reason}")
        out.append("")
    for line, note in outcome.notes:
        out.append(f"{filename}:{line}: note: {note}")
    if not out:
        out.append(f"{filename}: nothing to rewrite (no function is marked @vectorize or "
                   "@vmap)")
    return "\n".join(out).rstrip("\n") + "\n"


def render_specialization(spec) -> str:
    """What `render_outcome` shows for a rewritten function, for ``spec``, a `Generated` made
    with explanations (`vectorize.explain`): the function it was made from, then the helpers
    batched with it, located in their own files."""
    from .. import backends
    from .module import Rewritten
    texts = _function_texts(spec.source)
    emitted = spec.origin.emitted       # (name in the generated module, original function)
    main = emitted[0][1]
    path, first, old = _source(main)
    line = getattr(getattr(main, "__code__", None), "co_firstlineno", first)
    fn = Rewritten(main.__name__, line, first, first + max(len(old) - 1, 0), spec.source,
                   list(spec.explanations), backends.get(spec.backend).registry,
                   [(func, texts[name]) for name, func in emitted])
    return "\n".join(_function(fn, path, [])).rstrip("\n") + "\n"


def _function_texts(source: str) -> dict:
    """The text of each function of a generated module, by name."""
    lines = source.splitlines()
    return {node.name: "\n".join(lines[node.lineno - 1:node.end_lineno]) + "\n"
            for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}


def _function(fn, filename: str, lines: list[str]) -> list[str]:
    rules = fn.registry.rules_by_name()
    out = [f"{filename}:{fn.first_line}: `{fn.name}` becomes a batched function"]
    if fn.wrapper is not None:
        out.append(f"  `{fn.name}` keeps its calling convention (see docs/cli.md) and calls "
                   f"`{fn.wrapper}`, the batched code, on batches along axis 0")
    # the engine places rules on code it made itself at the `def` line of the function
    made = []
    for index, (func, text) in enumerate(fn.functions):
        path, first, old = _source(func)
        if not old:
            continue
        name = fn.wrapper or fn.name if index == 0 else text.split("(", 1)[0][4:]
        out.append(f"  {path}:{first}: `{func.__name__}` -> `{name}`")
        fired_here = [(rule, line) for rule, file, line in fn.explanations if file == path
                      and first <= line < first + len(old)]
        made += [rule for rule, line in fired_here if line == first]
        fired_here = [(rule, line) for rule, line in fired_here if line != first]
        old_body, new_body = _body_start(old), _body_start(text.splitlines())
        base = first + old_body
        old, new = old[old_body:], text.splitlines()[new_body:]
        matcher = difflib.SequenceMatcher(None, [s.strip() for s in old],
                                          [s.strip() for s in new], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":     # lines kept as written: shown where a rule fired on them
                for k in range(i1, i2):
                    fired = Counter(rule for rule, line in fired_here if line == base + k)
                    if fired:
                        out.append(f"  {base + k:>9} | {old[k]}")
                        out += _rules(fired, rules)
                        out.append("         => | (as written)")
                continue
            span = range(base + i1, base + i2)
            fired = Counter(rule for rule, line in fired_here if line in span)
            if tag == "insert" and not any(s.strip() for s in new[j1:j2]):
                continue
            where = _span(base + i1, base + i2 - 1) if i2 > i1 else "(new)"
            for k in range(i1, max(i2, i1 + 1)):
                out.append(f"  {where if k == i1 else '':>9} | {old[k] if k < i2 else ''}")
            out += _rules(fired, rules)
            for k, line in enumerate(new[j1:j2] or ["(nothing)"]):
                out.append(f"         {'=>' if k == 0 else '  '} | {line}")
    if made:
        out.append("  rules on code the engine wrote itself (the merges of `if` branches, the "
                   "masks of loops):")
        out += _rules(Counter(made), rules)
    out.append("")
    return out


def _rules(fired: Counter, rules: dict) -> list[str]:
    out = []
    for name, count in fired.items():
        rule = rules.get(name)
        why = f": {rule.explanation}" if rule is not None else ""
        out.append(f"            rule {name}{f' (x{count})' if count > 1 else ''}{why}")
    return out


def _body_start(lines: list[str]) -> int:
    """The index of a function's first body line (after its possibly long ``def`` line)."""
    try:
        tree = ast.parse(textwrap.dedent("\n".join(lines)))
        return tree.body[0].body[0].lineno - 1
    except (SyntaxError, IndexError, AttributeError):
        return 1


def _span(a: int, b: int) -> str:
    return f"{a}" if a == b else f"{a}-{b}"


def _source(func):
    """(file, line of the `def`, lines from it to the end of the function)."""
    try:
        source, start = inspect.getsourcelines(func)
        path = inspect.getsourcefile(func) or func.__code__.co_filename
    except (OSError, TypeError):
        return "?", 0, []
    source = [s.rstrip("\r\n") for s in source]
    while source and source[0].lstrip().startswith("@"):
        source, start = source[1:], start + 1
    return path, start, source
