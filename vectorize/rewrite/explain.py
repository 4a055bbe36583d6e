"""``--explain``: which batching rule turned which scalar line into which batched line.

For each rewritten function, its lines are aligned with the generated lines (as ``diff``
aligns them); each changed stretch is a `Step`: the scalar lines, the rules that fired on
them (their names and explanations from the rule registry), and the batched lines that
replace them. Lines kept as they were are shown when a rule fired on them (an operator on
batched values is written the same way). Rules the engine applied to code it wrote itself
(the merge of an ``if``, the mask of a loop) are listed after the function. Then each loop
over examples that calls a rewritten function: its batched call, or why it stays.

`collect_outcome` / `collect_specialization` build that record (a `report.Report`) once; it
renders it as text (``str()``: one line per rule with its one-line reason; ``verbose``: the
whole explanation) and as HTML (`explain_html`, the notebook view and ``--explain --html``):
the two views are made from the same data.
"""

from __future__ import annotations

import ast
import difflib
import inspect
from collections import Counter

from .report import FunctionReport, Part, Report, Rewritten, Step, body_start


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
        from .explain_html import render_html
        return render_html(self.report, rules_url=rules_url)

    def _repr_html_(self) -> str:
        from .explain_html import render_html
        return render_html(self.report, rules_url=notebook_rules_url(), standalone=False)

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
        old_body, new_body = body_start(old), body_start(new_lines)
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
