"""``--explain``: which batching rule turned which scalar line into which batched line.

For each rewritten function, its lines are aligned with the generated lines (as ``diff``
aligns them); each changed stretch is a `Step`: the scalar lines, the rules that fired on
them (their names and explanations from the rule registry), and the batched lines that
replace them. Lines kept as they were are shown when a rule fired on them (an operator on
batched values is written the same way). Rules the engine applied to code it wrote itself
(the merge of an ``if``, the mask of a loop) are listed after the function. Then each loop
over examples that calls a rewritten function: its batched call, or why it stays.

`collect_outcome` / `collect_specialization` build that record (a `Report`) once; `Report`
renders it as text (``str()``: one line per rule with its one-line reason; ``verbose``: the
whole explanation) and as HTML (`explain_html`, the notebook view and ``--explain --html``):
the two views are made from the same data.
"""

from __future__ import annotations

import ast
import difflib
import inspect
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Step:
    """One stretch of the alignment of a scalar function with its batched version."""

    scalar: list            # the user's line numbers (in their file)
    batched: list           # indexes into `Part.batched_lines`
    rules: Counter          # rule name -> how many times it fired on these lines
    changed: bool = True    # False: the scalar lines are kept as written


@dataclass
class Part:
    """One per-example function (the user's, or a helper it calls) and its batched version."""

    path: str
    first: int                  # the line of its `def` in ``path``
    name: str                   # the scalar function's name
    new_name: str               # the batched function's name
    scalar_lines: list          # (line number, text), from the `def` to its end
    batched_lines: list         # the generated function's lines
    batched_first: int          # the line number of the generated `def` in the generated
                                # module or file (1 where the file adapts the function)
    steps: list                 # `Step`s, in the order of both functions


@dataclass
class FunctionReport:
    """One rewritten function: its parts (the function, then its helpers)."""

    filename: str
    name: str
    first_line: int
    wrapper: str | None
    parts: list
    made: Counter               # rules the engine applied to code it wrote itself


@dataclass
class Report:
    """What ``--explain`` says about one file (or `vectorize.explain` about one call)."""

    filename: str
    functions: list = field(default_factory=list)     # FunctionReport
    loops: list = field(default_factory=list)         # call_sites.Loop
    notes: list = field(default_factory=list)         # (line, message)
    registry: object = None                           # the rules the functions were made with
    whole_file: bool = True    # a file's report (says so where nothing was rewritten)

    def text(self, verbose: bool = False) -> str:
        return render_text(self, verbose)

    def html(self, *, rules_url: str = "docs/rules.md", title: str | None = None,
             standalone: bool = True) -> str:
        from .explain_html import render_html
        return render_html(self, rules_url=rules_url, title=title, standalone=standalone)


class Explanation(str):
    """What `vectorize.explain` returns: its text (one line per rule; ``.verbose`` has each
    rule's whole explanation), shown side by side with the generated code in a notebook
    (``_repr_html_``); ``.html()`` is the same view as a page of its own."""

    report: Report

    def __new__(cls, report: Report):
        self = super().__new__(cls, report.text())
        self.report = report
        return self

    @property
    def verbose(self) -> str:
        """The text with each rule's whole explanation (``text(verbose=True)``)."""
        return self.report.text(verbose=True)

    def text(self, verbose: bool = False) -> str:
        return self.report.text(verbose=verbose)

    def html(self, rules_url: str = "docs/rules.md") -> str:
        return self.report.html(rules_url=rules_url)

    def _repr_html_(self) -> str:
        return self.report.html(rules_url=notebook_rules_url(), standalone=False)

    def __reduce__(self):        # copies and pickles are the text
        return str, (str(self),)

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(str(self).rstrip("\n"))


def notebook_rules_url() -> str:
    """Where a notebook's view links rules to: the rules reference of the source checkout
    this package runs from, relative to the working directory (a notebook's kernel runs in
    the notebook's folder, and links in its output are relative to that folder); else
    ``docs/rules.md``."""
    import os
    reference = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))), "docs", "rules.md")
    if not os.path.exists(reference):
        return "docs/rules.md"
    try:
        return os.path.relpath(reference).replace(os.sep, "/")
    except ValueError:          # another drive (Windows)
        return "docs/rules.md"


# --- collecting -------------------------------------------------------------------------


def collect_outcome(outcome, filename: str) -> Report:
    report = Report(filename, loops=list(outcome.loops), notes=list(outcome.notes))
    for fn in outcome.rewritten:
        report.registry = fn.registry
        report.functions.append(_collect(fn, filename, outcome.text))
    return report


def collect_specialization(spec) -> Report:
    """The `Report` of ``spec``, a `Generated` made with explanations (`vectorize.explain`):
    the function it was made from, then the helpers batched with it, located in their own
    files."""
    from .. import backends
    from .module import Rewritten
    texts = _function_texts(spec.source)
    emitted = spec.origin.emitted       # (name in the generated module, original function)
    main = emitted[0][1]
    path, first, old = _source(main)
    line = getattr(getattr(main, "__code__", None), "co_firstlineno", first)
    registry = backends.get(spec.backend).registry
    fn = Rewritten(main.__name__, line, first, first + max(len(old) - 1, 0), spec.source,
                   list(spec.explanations), registry,
                   [(func, texts[name]) for name, func in emitted])
    return Report(path, [_collect(fn, path, spec.source)], registry=registry, whole_file=False)


def _function_texts(source: str) -> dict:
    """The text of each function of a generated module, by name."""
    lines = source.splitlines()
    return {node.name: "\n".join(lines[node.lineno - 1:node.end_lineno]) + "\n"
            for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}


def _collect(fn, filename: str, generated: str) -> FunctionReport:
    made = Counter()
    parts = []
    for index, (func, text) in enumerate(fn.functions):
        path, first, old = _source(func)
        if not old:
            continue
        name = fn.wrapper or fn.name if index == 0 else text.split("(", 1)[0][4:]
        fired_here = [(rule, line) for rule, file, line in fn.explanations if file == path
                      and first <= line < first + len(old)]
        # the engine places rules on code it made itself at the `def` line of the function
        made.update(rule for rule, line in fired_here if line == first)
        fired_here = [(rule, line) for rule, line in fired_here if line != first]
        new_lines = text.splitlines()
        if index == 0 and fn.wrapper and new_lines:     # as it is named in the new file
            new_lines[0] = new_lines[0].replace(f"def {fn.name}(", f"def {fn.wrapper}(", 1)
        old_body, new_body = _body_start(old), _body_start(new_lines)
        steps = [Step([first + k], [k], Counter(), changed=False) for k in range(old_body)
                 if k < new_body and old[k].strip() == new_lines[k].strip()]
        if len(steps) < old_body or old_body != new_body:      # the `def` line changed
            steps = [Step(list(range(first, first + old_body)), list(range(new_body)),
                          Counter())]
        base = first + old_body
        matcher = difflib.SequenceMatcher(None, [s.strip() for s in old[old_body:]],
                                          [s.strip() for s in new_lines[new_body:]],
                                          autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for k in range(i2 - i1):
                    line = base + i1 + k
                    steps.append(Step([line], [new_body + j1 + k],
                                      Counter(r for r, at in fired_here if at == line),
                                      changed=False))
                continue
            span = range(base + i1, base + i2)
            steps.append(Step(list(span), list(range(new_body + j1, new_body + j2)),
                              Counter(rule for rule, line in fired_here if line in span)))
        parts.append(Part(path, first, func.__name__, name,
                          [(first + k, s) for k, s in enumerate(old)], new_lines,
                          _line_in(generated, "\n".join(new_lines)), steps))
    return FunctionReport(filename, fn.name, fn.first_line, fn.wrapper, parts, made)


def _line_in(generated: str, text: str) -> int:
    """The line ``text`` starts at in ``generated``; 1 where it is not there as it is (a
    rewritten file adapts the function to its calling convention: its lines are then
    numbered from its `def`)."""
    at = generated.find(text.rstrip("\n") + "\n") if text.strip() else -1
    return generated.count("\n", 0, at) + 1 if at >= 0 else 1


# --- the text ---------------------------------------------------------------------------


def render_text(report: Report, verbose: bool = False) -> str:
    rules = report.registry.rules_by_name() if report.registry is not None else {}
    out = []
    for fn in report.functions:
        out += _function(fn, rules, verbose)
    for loop in report.loops:
        if loop.rewritten:
            out.append(f"{report.filename}:{loop.line}: loop over examples -> one batched call")
            out.append(f"    {loop.before}")
            out.append(f"  => {loop.after}")
        else:
            out.append(f"{report.filename}:{loop.line}: loop over examples of "
                       f"`{loop.function}` stays a loop")
            out.append(f"    {loop.before}")
            out.append(f"  because {loop.reason}")
        out.append("")
    for line, note in report.notes:
        out.append(f"{report.filename}:{line}: note: {note}")
    if not out and report.whole_file:
        out.append(f"{report.filename}: nothing to rewrite (no function is marked @vectorize "
                   "or @vmap)")
    return "\n".join(out).rstrip("\n") + "\n"


def _function(fn: FunctionReport, rules: dict, verbose: bool) -> list[str]:
    out = [f"{fn.filename}:{fn.first_line}: `{fn.name}` becomes a batched function"]
    if fn.wrapper is not None:
        out.append(f"  `{fn.name}` keeps its calling convention (see docs/cli.md) and calls "
                   f"`{fn.wrapper}`, the batched code, on batches along axis 0")
    for part in fn.parts:
        out.append(f"  {part.path}:{part.first}: `{part.name}` -> `{part.new_name}`")
        old = dict(part.scalar_lines)
        body = _body_start([s for _, s in part.scalar_lines])
        for step in part.steps:
            if step.scalar and step.scalar[0] < part.first + body:
                continue                      # the `def` line
            if not step.changed:              # kept as written: shown where a rule fired
                if step.rules:
                    out.append(f"  {step.scalar[0]:>9} | {old[step.scalar[0]]}")
                    out += _rules(step.rules, rules, verbose)
                    out.append("         => | (as written)")
                continue
            new = [part.batched_lines[k] for k in step.batched]
            if not step.scalar and not any(s.strip() for s in new):
                continue
            where = _span(step.scalar[0], step.scalar[-1]) if step.scalar else "(new)"
            for k, line in enumerate(step.scalar or [None]):
                out.append(f"  {where if k == 0 else '':>9} | "
                           f"{old[line] if line is not None else ''}")
            out += _rules(step.rules, rules, verbose)
            for k, line in enumerate(new or ["(nothing)"]):
                out.append(f"         {'=>' if k == 0 else '  '} | {line}")
    if fn.made:
        out.append("  rules on code the engine wrote itself (the merges of `if` branches, the "
                   "masks of loops):")
        out += _rules(fn.made, rules, verbose)
    out.append("")
    return out


def _rules(fired: Counter, rules: dict, verbose: bool) -> list[str]:
    out = []
    for name, count in fired.items():
        rule = rules.get(name)
        why = "" if rule is None else \
            f": {rule.explanation if verbose else one_line(rule.explanation)}"
        out.append(f"            rule {name}{f' (x{count})' if count > 1 else ''}{why}")
    return out


def one_line(explanation: str, limit: int = 150) -> str:
    """A rule's one-line reason: the first sentence of its explanation (up to its first
    ``. `` or ``; ``, outside backquotes and parentheses), without asides in parentheses;
    where that is longer than ``limit``, up to its first ``: ``."""
    depth, quoted, end, colon = 0, False, len(explanation), None
    for i, ch in enumerate(explanation):
        if ch == "`":
            quoted = not quoted
        elif quoted:
            continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
        elif depth == 0 and explanation[i + 1:i + 2] in (" ", ""):
            if ch in ".;":
                end = i
                break
            if ch == ":" and colon is None:
                colon = i
    first = _without_asides(explanation[:end])
    if len(first) > limit and colon is not None and colon < end:
        first = _without_asides(explanation[:colon])
    return first.rstrip(" :;,") + "."


def _without_asides(text: str) -> str:
    return re.sub(r" \((?:[^()`]|`[^`]*`)*\)", "", text)


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
