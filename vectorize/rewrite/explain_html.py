"""The side-by-side view of ``--explain``: a notebook's display of `vectorize.explain` and
the page ``vectorize --explain --html FILE.py`` writes.

It is made from the same `explain.Report` as the text. Each function is a table: the scalar
function on the left at the user's line numbers, the generated function on the right, one
coloured band per `Step` of the alignment, the rules that fired on it in between (name, one-line
reason, a link to the rule's entry in the rules reference, ``docs/rules.md#<rule name>``).
Hovering a step highlights both sides; hovering a batched line also highlights the scalar
lines it came from (the lines of its step that share a name and half their words with it; a
line that shares no name with any is the engine's own code, shown in grey). Lines that only
serve the batch are tagged: dead-lane guards (``np.errstate``, indexes kept in bounds), masks
(``active``: which examples still run) and compaction (``lanes``: work only on the examples
still running). No network, no framework:
inline CSS (with a print stylesheet) and a few lines of plain JavaScript.
"""

from __future__ import annotations

import html
import io
import itertools
import keyword
import re
import tokenize
from collections import Counter

from .report import FunctionReport, Part, Report, Step, one_line

BANDS = 6     # colours of the changed steps, in turn

TAGS = {
    "guard": ("dead-lane guard", "keeps examples whose result is thrown away from warning, "
                                 "raising or reading out of bounds"),
    "mask": ("mask", "which examples are still running (or have returned); finished "
                     "examples keep their values"),
    "compact": ("compaction", "works only on the examples still running, gathered by index "
                              "and scattered back"),
}


def render_html(report: Report, *, rules_url: str = "docs/rules.md", title: str | None = None,
                standalone: bool = True) -> str:
    """``report`` as a page (``standalone``) or as a block for a notebook's output."""
    if standalone:
        return render_reports([report], rules_url=rules_url, title=title)
    key = f"n{next(_DISPLAYS)}"     # ids unique among the outputs of one notebook
    return (f"<style>{CSS}</style>\n<div class=\"vz\">\n{_legend(_used_tags([report]))}\n"
            f"{_report(report, key, rules_url)}\n</div>\n<script>{SCRIPT}</script>\n")


def render_reports(reports: list, *, rules_url: str = "docs/rules.md",
                   title: str | None = None) -> str:
    """One self-contained page for the reports of several files."""
    title = title or "vectorize --explain " + " ".join(r.filename for r in reports)
    content = "\n".join([f"<h1>{_e(title)}</h1>", _legend(_used_tags(reports))]
                        + [_report(r, f"r{i}", rules_url) for i, r in enumerate(reports)])
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            f"<div class=\"vz\">\n{content}\n</div>\n<script>{SCRIPT}</script>\n"
            "</body>\n</html>\n")


_DISPLAYS = itertools.count()


def _report(report: Report, key: str, rules_url: str) -> str:
    rules = report.registry.rules_by_name() if report.registry is not None else {}
    body = [_function(fn, f"{key}f{index}", rules, rules_url)
            for index, fn in enumerate(report.functions)]
    if report.loops:
        body.append(_loops(report))
    if report.notes:
        body.append('<section class="vz-notes"><h2>Notes</h2><ul>' + "".join(
            f"<li>{_e(report.filename)}:{line}: {_e(note)}</li>" for line, note in report.notes)
            + "</ul></section>")
    if not body:
        body.append(f"<p>{_e(report.filename)}: nothing to rewrite (no function is marked "
                    "@vectorize or @vmap)</p>")
    return "\n".join(body)


def _legend(used=()) -> str:
    tags = "".join(f'<li><span class="vz-tag vz-tag-{key}">{_e(name)}</span> {_e(why)}</li>'
                   for key, (name, why) in TAGS.items() if key in used)
    return ('<div class="vz-legend"><p>Left, your function for one example at your line '
            "numbers; right, the function that runs on the whole batch. Each coloured band "
            "pairs lines of yours with the lines that replace them, and names the batching "
            "rules that made them (each links to its entry in the rules reference). Hover a "
            "batched line to see the lines it came from.</p>"
            + (f"<ul>{tags}</ul>" if tags else "") + "</div>")


def _used_tags(reports) -> set:
    return {t for r in reports for fn in r.functions for part in fn.parts
            for ts in _tags(part).values() for t in ts}


def _function(fn: FunctionReport, key: str, rules: dict, rules_url: str) -> str:
    out = [f'<section class="vz-fn" id="vz-{key}">',
           f"<h2><code>{_e(fn.name)}</code> becomes a batched function "
           f'<span class="vz-where">{_e(fn.filename)}:{fn.first_line}</span></h2>']
    if fn.wrapper is not None:
        out.append(f"<p><code>{_e(fn.name)}</code> keeps its calling convention and calls "
                   f"<code>{_e(fn.wrapper)}</code>, the batched code, on batches along "
                   "axis 0.</p>")
    for index, part in enumerate(fn.parts):
        out.append(_part(part, f"{key}p{index}", rules, rules_url, helper=index > 0,
                         heading=len(fn.parts) > 1 or part.new_name != part.name))
    if fn.made:
        out.append('<div class="vz-made"><h4>Rules on code the engine wrote itself (the merges '
                   "of <code>if</code> branches, the masks of loops)</h4>"
                   + _rule_list(fn.made, rules, rules_url) + "</div>")
    out.append("</section>")
    return "\n".join(out)


def _part(part: Part, key: str, rules: dict, rules_url: str, helper: bool,
          heading: bool) -> str:
    scalar = dict(zip((n for n, _ in part.scalar_lines),
                      _highlight([s for _, s in part.scalar_lines])))
    batched = _highlight(part.batched_lines, _new_names(part))
    tags = _tags(part)
    out = []
    if heading:
        what = "helper" if helper else "function"
        out.append(f'<h3>{what} <code>{_e(part.name)}</code> <span class="vz-arrow">&rarr;'
                   f'</span> <code>{_e(part.new_name)}</code> <span class="vz-where">'
                   f"{_e(part.path)}:{part.first}</span></h3>")
    out += ['<table class="vz-code"><colgroup><col class="vz-c-src"><col class="vz-c-rules">'
            '<col class="vz-c-src"></colgroup>',
            '<thead><tr><th>scalar: one example</th><th>batching rules</th>'
            "<th>batched: the whole batch</th></tr></thead>", "<tbody>"]
    band = 0
    for index, step in enumerate(part.steps):
        if not step.scalar and not any(part.batched_lines[k].strip() for k in step.batched):
            continue
        cls = "vz-step"
        if step.changed and (step.rules or not (step.scalar and step.scalar[0] == part.first)):
            cls += f" vz-band vz-band{band % BANDS}"
            band += 1
        elif step.changed:
            cls += " vz-kept"          # the `def` line, renamed or without annotations
        elif step.rules:
            cls += " vz-kept"
        origins = _origins(part, step)
        left = "".join(f'\n<div class="vz-line" id="vz-{key}-L{n}"><span class="vz-n">{n}'
                       f'</span><span class="vz-text">{scalar[n]}</span></div>'
                       for n in step.scalar)
        right = []
        for k in step.batched:
            came = origins.get(k) or list(step.scalar)
            ids = " ".join(f"vz-{key}-L{n}" for n in came)
            label = f"from line{'s' * (len(came) > 1)} {_lines(came)}" if came else \
                "the engine's own code"
            number = part.batched_first + k
            link = f'<a href="#vz-{key}-L{came[0]}">{number}</a>' if came else f"{number}"
            tag = "".join(f'<span class="vz-tag vz-tag-{t}" title="{_e(TAGS[t][1])}">'
                          f"{_e(TAGS[t][0])}</span>" for t in tags.get(k, ()))
            tag = f'<span class="vz-tags">{tag}</span>' if tag else ""
            engine = " vz-engine" if step.changed and step.scalar and not origins.get(k) else ""
            right.append(f'\n<div class="vz-line{engine}" data-from="{ids}" title="{_e(label)}">'
                         f'<span class="vz-n">{link}</span>'
                         f'<span class="vz-text">{batched[k]}</span>{tag}</div>')
        out.append(f'<tr class="{cls}" id="vz-{key}-s{index}">\n<td class="vz-src">{left}</td>'
                   f'\n<td class="vz-rules">{_step_rules(step, rules, rules_url)}</td>'
                   f'\n<td class="vz-src">{"".join(right)}</td>\n</tr>')
    out.append("</tbody></table>")
    return "\n".join(out)


def _step_rules(step: Step, rules: dict, rules_url: str) -> str:
    if not step.changed and not step.rules:
        return ""
    text = _rule_list(step.rules, rules, rules_url) if step.rules else ""
    if not step.changed:
        text += '<p class="vz-as-written">kept as written</p>'
    elif not step.rules:
        text += '<p class="vz-as-written">rewritten by the engine</p>'
    return text


def _rule_list(fired: Counter, rules: dict, rules_url: str) -> str:
    items = []
    for name, count in fired.items():
        rule = rules.get(name)
        times = f' <span class="vz-times">&times;{count}</span>' if count > 1 else ""
        why = f'<span class="vz-why">{_md(one_line(rule.explanation))}</span>' if rule else ""
        full = f' title="{_e(rule.explanation)}"' if rule else ""
        items.append(f'<li><a class="vz-rule" href="{_e(rules_url)}#{_e(name)}"{full}>'
                     f"{_e(name)}</a>{times} {why}</li>")
    return '<ul class="vz-rule-list">' + "".join(items) + "</ul>"


def _loops(report: Report) -> str:
    out = ['<section class="vz-loops"><h2>Loops over examples</h2>']
    for loop in report.loops:
        where = f'<span class="vz-where">{_e(report.filename)}:{loop.line}</span>'
        if loop.rewritten:
            out.append(f'<div class="vz-loop"><p>{where} one batched call</p>'
                       f"<pre>{_highlight([loop.before])[0]}</pre>"
                       f'<p class="vz-arrow">&darr;</p><pre>{_highlight([loop.after])[0]}</pre>'
                       "</div>")
        else:
            out.append(f'<div class="vz-loop"><p>{where} stays a loop over the examples of '
                       f"<code>{_e(loop.function)}</code></p>"
                       f"<pre>{_highlight([loop.before])[0]}</pre>"
                       f"<p>because {_e(loop.reason)}</p></div>")
    out.append("</section>")
    return "\n".join(out)


# --- which scalar lines a batched line came from, and what it is for --------------------

_ENGINE_SUFFIX = re.compile(r"_(?:lanes|if|else|next|new|old)\d*$")


def _namespaces() -> set[str]:
    """Names that are no words of the user's: every backend's alias, and ``math``."""
    from .. import backends
    return {"math"} | {backends.get(name).alias for name in backends.KNOWN}


def _words(line: str) -> list[str]:
    """The names, numbers and operators of a line (not brackets or punctuation), names
    without the suffixes the engine adds to the user's (``n_lanes`` is ``n``)."""
    out, skip = [], _namespaces()
    for token in _tokens(line):
        if token.type == tokenize.NAME:
            if token.string not in skip:
                out.append(_ENGINE_SUFFIX.sub("", token.string))
        elif token.type == tokenize.NUMBER or (token.type == tokenize.OP and token.string
                                                not in "()[]{},:.=;"):
            out.append(token.string)
    return out


def _origins(part: Part, step: Step) -> dict:
    """Batched line index -> the scalar lines of its step it came from: those that share a
    name with it and half their words or more (all of them in a one-line step); none where
    it shares no name with any (the engine's own code)."""
    if len(step.scalar) <= 1 or not step.changed:
        return {k: list(step.scalar) for k in step.batched}
    text = dict(part.scalar_lines)
    scalar = {n: Counter(_words(text[n])) for n in step.scalar}
    out = {}
    for k in step.batched:
        words = Counter(_words(part.batched_lines[k]))
        names = {w for w in words if w.isidentifier() and not keyword.iskeyword(w)}
        out[k] = [n for n, ws in scalar.items() if ws and names & set(ws)
                  and sum((ws & words).values()) >= 0.5 * sum(ws.values())]
    return out


# an index kept in bounds on the lanes Python would not evaluate it on (`guard_indices`):
# ``v[i if guard else 0]``, later ``v[..., np.where(guard, i, 0)]`` (``merge.blend``)
_GUARDED_INDEX = re.compile(r"\bif\b[^\]]*\belse 0\]|"
                            r"\b(?:where|blend)\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*,\s*0\)"
                            r"\s*\]")


def _tags(part: Part) -> dict:
    """Batched line index -> the tags of the lines that only serve the batch, recognised by
    the names the engine made (those the scalar function does not have): guards
    (``np.errstate``, an index kept in bounds), compaction (the indexes of the running
    examples, gathers and scatters by them), masks (which examples still run, merges by it)."""
    scalar_names = {t.string for _, s in part.scalar_lines for t in _tokens(s)
                    if t.type == tokenize.NAME}
    out = {}
    for k, line in enumerate(part.batched_lines):
        names = {t.string for t in _tokens(line) if t.type == tokenize.NAME}
        made = names - scalar_names
        lanes = {n for n in made if re.fullmatch(r"(\w+_)?lanes(_\w+)?\d*", n)}
        masks = {n for n in made if re.fullmatch(r"(active|returned|exited|broke)\w*", n)}
        # (a compacted loop's count of lanes run after finishing, and the indices it keeps)
        counters = {n for n in made if re.fullmatch(r"(keep|idle|running)(_\d+)?", n)}
        tags = []
        if "errstate" in names or _GUARDED_INDEX.search(line):
            tags.append("guard")
        if {"flatnonzero", "count_nonzero"} & names or counters or any(
                re.search(rf"\[{n}\]|\b{n}\.size\b", line) for n in lanes | masks):
            tags.append("compact")
        elif masks and re.match(rf"\s*(?:({'|'.join(masks)})\s*=|while\b|if\b)|"
                                rf".*\b(?:where|blend)\(({'|'.join(masks)})\b", line):
            tags.append("mask")
        if tags:
            out[k] = tags
    return out


def _tokens(line: str) -> list:
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline)]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []


# --- text into HTML ---------------------------------------------------------------------


def _new_names(part: Part) -> dict:
    """Batched line index -> the names of the operations a rule brought in that its step's
    scalar lines do not have (``np.where``, ``np.einsum``, ``axis=``, ``.astype``): shown
    emphasised. The engine's own variables (``active``, ``lanes``) are tagged instead."""
    text = dict(part.scalar_lines)
    out = {}
    for step in part.steps:
        if not step.changed or not step.scalar or step.scalar[0] == part.first:
            continue                # unchanged, or the `def` line
        old = {t.string for n in step.scalar for t in _tokens(text[n])
               if t.type == tokenize.NAME}
        for k in step.batched:
            tokens = [t for t in _tokens(part.batched_lines[k])
                      if t.type in (tokenize.NAME, tokenize.OP)]
            names = set()
            for i, token in enumerate(tokens):
                before = tokens[i - 1].string if i else ""
                after = tokens[i + 1].string if i + 1 < len(tokens) else ""
                if token.type == tokenize.NAME and token.string not in old and (
                        token.string in _namespaces() or before == "." or (
                            after == "=" and before in ("(", ","))):
                    names.add(token.string)
            out[k] = names
    return out


def _highlight(lines: list[str], emphasis: dict | None = None) -> list[str]:
    """Each line as HTML, its keywords, strings, numbers and comments in spans, and the
    names of ``emphasis[line index]`` emphasised (lines it cannot tokenize are only
    escaped)."""
    text = "\n".join(lines) + "\n"
    marks = [[] for _ in lines]      # per line: (start col, end col, class)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = _kind(token)
            (r0, c0), (r1, c1) = token.start, token.end
            if emphasis and token.type == tokenize.NAME and \
                    token.string in emphasis.get(r0 - 1, ()):
                kind = f"{kind} vz-new" if kind else "new"
            if kind is None:
                continue
            for row in range(r0, r1 + 1):
                if 1 <= row <= len(lines):
                    start = c0 if row == r0 else 0
                    end = c1 if row == r1 else len(lines[row - 1])
                    marks[row - 1].append((start, end, kind))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        marks = [[] for _ in lines]
    out = []
    for line, spans in zip(lines, marks):
        pieces, at = [], 0
        for start, end, kind in sorted(spans):
            if start < at:
                continue
            pieces.append(_e(line[at:start]))
            classes = " ".join(k if k.startswith("vz-") else f"vz-{k}" for k in kind.split())
            pieces.append(f'<span class="{classes}">{_e(line[start:end])}</span>')
            at = end
        pieces.append(_e(line[at:]))
        out.append("".join(pieces) or " ")
    return out


def _kind(token) -> str | None:
    if token.type == tokenize.NAME:
        if keyword.iskeyword(token.string):
            return "kw"
        return "lib" if token.string in _namespaces() else None
    if token.type == tokenize.STRING or token.type in _FSTRING:
        return "str"
    if token.type == tokenize.NUMBER:
        return "num-lit"
    if token.type == tokenize.COMMENT:
        return "com"
    return None


_FSTRING = {getattr(tokenize, n) for n in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
            if hasattr(tokenize, n)}


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _md(text: str) -> str:
    """A reason's `code` spans as <code>."""
    parts = text.split("`")
    return "".join(f"<code>{_e(p)}</code>" if i % 2 else _e(p) for i, p in enumerate(parts))


def _lines(numbers: list) -> str:
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 1:
        return f"{numbers[0]}-{numbers[-1]}"
    return ", ".join(str(n) for n in numbers)


CSS = """
.vz{--ink:#1f2328;--muted:#59636e;--rule:#d1d9e0;--paper:#fff;--kw:#8250df;--str:#0a3069;
--lit:#0550ae;--com:#6e7781;--lib:#953800;
--b0:#f59e0b;--t0:#fef6e0;--b1:#10b981;--t1:#e3f8ef;--b2:#6366f1;--t2:#eceefe;
--b3:#ec4899;--t3:#fdebf4;--b4:#0ea5e9;--t4:#e3f4fd;--b5:#84cc16;--t5:#f0f9e0;
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);
max-width:1400px}
.vz h1{font-size:20px;margin:0 0 6px}
.vz h2{font-size:17px;margin:22px 0 4px;border-bottom:1px solid var(--rule);padding-bottom:4px}
.vz h3{font-size:14px;font-weight:600;margin:12px 0 6px;color:var(--muted)}
.vz h3 code,.vz h2 code{color:var(--ink);font-size:.95em}
.vz h4{font-size:13px;margin:0 0 4px;font-weight:600}
.vz .vz-where{font-weight:400;font-size:12px;color:var(--muted);margin-left:8px}
.vz .vz-legend{color:var(--muted);font-size:13px;margin:4px 0 10px;max-width:1100px}
.vz .vz-legend p{margin:0 0 4px}
.vz .vz-legend ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:4px 18px}
.vz code,.vz pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,
"DejaVu Sans Mono",monospace;font-size:12.5px}
.vz table.vz-code{border-collapse:collapse;width:100%;table-layout:fixed;
border:1px solid var(--rule);margin-top:6px}
.vz col.vz-c-src{width:29%}.vz col.vz-c-rules{width:25%}
.vz col.vz-c-src+col+col{width:46%}
.vz thead th{font-size:12px;font-weight:600;text-align:left;color:var(--muted);
background:#f6f8fa;padding:5px 10px;border-bottom:1px solid var(--rule)}
.vz td{padding:3px 0;vertical-align:top}
.vz td.vz-src{font-size:12.5px}
.vz td.vz-rules{font-size:12.5px;padding:4px 10px;border-left:1px solid var(--rule);
border-right:1px solid var(--rule)}
.vz .vz-line{display:flex;line-height:1.65;padding-right:8px}
.vz .vz-n{flex:0 0 3.4em;text-align:right;padding-right:10px;color:var(--muted);
font-size:11px;user-select:none}
.vz .vz-n a{color:inherit;text-decoration:none}
.vz .vz-n a:hover{text-decoration:underline}
.vz .vz-text{flex:1;white-space:pre-wrap;overflow-wrap:anywhere;padding-left:2.5em;
text-indent:-2.5em;
font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono",monospace}
.vz tr.vz-step{border-top:1px solid #eef1f4}
.vz tr.vz-band td{background:var(--tint)}
.vz tr.vz-band td.vz-src{box-shadow:inset 4px 0 0 var(--band)}
.vz tr.vz-kept td.vz-rules{background:#f6f8fa}
.vz .vz-band0{--band:var(--b0);--tint:var(--t0)}.vz .vz-band1{--band:var(--b1);--tint:var(--t1)}
.vz .vz-band2{--band:var(--b2);--tint:var(--t2)}.vz .vz-band3{--band:var(--b3);--tint:var(--t3)}
.vz .vz-band4{--band:var(--b4);--tint:var(--t4)}.vz .vz-band5{--band:var(--b5);--tint:var(--t5)}
.vz tr.vz-step:hover td{filter:brightness(.965)}
.vz tr.vz-step:hover td.vz-src{box-shadow:inset 6px 0 0 var(--band,#8c959f)}
.vz .vz-line.vz-hot{background:rgba(255,255,255,.75);
box-shadow:inset 0 0 0 1.5px var(--band,#8c959f);border-radius:3px}
.vz .vz-line.vz-engine .vz-text{color:#57606a}
.vz ul.vz-rule-list{list-style:none;margin:0;padding:0}
.vz ul.vz-rule-list li{margin:2px 0 5px}
.vz a.vz-rule{font:600 12px ui-monospace,monospace;color:#0550ae;text-decoration:none;
background:#fff;border:1px solid var(--band,#d1d9e0);border-radius:4px;padding:0 4px;
white-space:nowrap}
.vz a.vz-rule:hover{text-decoration:underline}
.vz .vz-why{color:#3b434b}
.vz .vz-why code{font-size:11.5px;background:rgba(175,184,193,.2);padding:0 2px;
border-radius:3px}
.vz .vz-times{color:var(--muted);font-size:11px}
.vz .vz-as-written{margin:2px 0;color:var(--muted);font-style:italic;font-size:12px}
.vz .vz-tag{display:inline-block;font:600 10px/1.5 system-ui,sans-serif;padding:0 6px;
border-radius:8px;vertical-align:1px;margin-left:6px;white-space:nowrap}
.vz .vz-tag-guard{background:#fff1e5;color:#953800;border:1px solid #ffb77c}
.vz .vz-tag-mask{background:#eef4ff;color:#0b4fbd;border:1px solid #9ec2ff}
.vz .vz-tag-compact{background:#f3edff;color:#6331c2;border:1px solid #c8b2f5}
.vz .vz-legend .vz-tag{margin-left:2px}
.vz .vz-tags{flex:none;padding-left:6px}
.vz .vz-kw{color:var(--kw)}.vz .vz-str{color:var(--str)}.vz .vz-num-lit{color:var(--lit)}
.vz .vz-com{color:var(--com);font-style:italic}.vz .vz-lib{color:var(--lib)}
.vz .vz-new{font-weight:700;background:rgba(255,255,255,.7);border-radius:3px;
box-shadow:0 1px 0 var(--band,#8c959f)}
.vz .vz-made{margin:8px 0 0;padding:8px 12px;background:#f6f8fa;border:1px solid var(--rule);
border-radius:6px}
.vz .vz-loop{margin:8px 0;padding:6px 12px;border-left:3px solid var(--rule)}
.vz .vz-loop p{margin:2px 0}
.vz .vz-loop pre{margin:2px 0;padding:4px 8px;background:#f6f8fa;border-radius:4px;
white-space:pre-wrap}
.vz .vz-arrow{color:var(--muted)}
@media print{
.vz{font-size:11px;max-width:none}
.vz *{-webkit-print-color-adjust:exact;print-color-adjust:exact}
.vz tr.vz-step{break-inside:avoid}
.vz section.vz-fn{break-before:auto}
.vz h2{break-after:avoid}
.vz a{color:inherit}
.vz tr.vz-step:hover td{filter:none}
}
"""

SCRIPT = """
(function(){
  function mark(cell, on){
    var ids=(cell.getAttribute('data-from')||'').split(' ');
    for(var i=0;i<ids.length;i++){
      var num=ids[i]&&document.getElementById(ids[i]);
      if(num){num.classList.toggle('vz-hot',on);}
    }
    cell.classList.toggle('vz-hot',on);
  }
  var cells=document.querySelectorAll('.vz [data-from]');
  for(var i=0;i<cells.length;i++){
    cells[i].addEventListener('mouseenter',function(){mark(this,true);});
    cells[i].addEventListener('mouseleave',function(){mark(this,false);});
  }
})();
"""
