"""What ``--explain`` says about a function or a file, as data (a `Report`: for each rewritten
function its `Part`s, each a list of `Step`s aligning scalar lines with batched lines and the
rules that fired on them), and its text (`render_text`, `one_line`). `explain` collects it;
the text and the HTML view (`explain_html`) are both made from it."""

from __future__ import annotations

import ast
import re
import textwrap
from collections import Counter
from dataclasses import dataclass, field


@dataclass
class Rewritten:
    """One rewritten function, for ``--explain`` (what `module` and `explain` hand `_collect`)."""

    name: str
    first_line: int                 # its first line (decorators included) in the file
    def_line: int                   # the line of its `def`
    last_line: int
    new_text: str                   # what replaces it in the file (with its helpers)
    explanations: list              # (rule name, file, line)
    registry: object
    # (original per-example function, the text of its batched version): the function
    # itself first, then the helpers batched with it
    functions: list = field(default_factory=list)
    wrapper: str | None = None      # the batched code's name where a wrapper calls it


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
        if getattr(loop, "numpy_name", ""):
            out.append(f"  (its items are NumPy scalars, which the decorator handed to "
                       f"`{loop.function}` as they are: it calls `{loop.numpy_name}`, "
                       "the version for them)")
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
        body = body_start([s for _, s in part.scalar_lines])
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
    if len(first) + 1 > limit and colon is not None and colon < end:   # (+1: its period)
        first = _without_asides(explanation[:colon])
    return first.rstrip(" :;,") + "."


def _without_asides(text: str) -> str:
    return re.sub(r" \((?:[^()`]|`[^`]*`)*\)", "", text)


def body_start(lines: list[str]) -> int:
    """The index of a function's first body line (after its possibly long ``def`` line)."""
    try:
        tree = ast.parse(textwrap.dedent("\n".join(lines)))
        return tree.body[0].body[0].lineno - 1
    except (SyntaxError, IndexError, AttributeError):
        return 1


def _span(a: int, b: int) -> str:
    return f"{a}" if a == b else f"{a}-{b}"
