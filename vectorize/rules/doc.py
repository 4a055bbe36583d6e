"""Render the rule registries as Markdown: ``python -m vectorize.rules.doc > docs/rules.md``.

``docs/rules.md`` is generated from every backend's registry (`vectorize.backends.KNOWN`), with
a column per backend saying which rules it has, and a test keeps it current. A rule several
backends have is described once, in the words of the first that has it.
"""

from __future__ import annotations

from .. import backends

_FAMILY_ORDER = ["operators", "boolean", "control flow", "builtins", "math", "numpy", "random",
                 "creation", "user"]

_ENGINE_RULES = [
    ("if.select", "control flow",
     "An `if`/`elif`/`else` whose test differs per example runs both branches on every lane "
     "and merges each live variable with a conditional expression (then `np.where`); "
     "branch-local names (`root_if`, `root_else`) keep the branches apart; branches that can "
     "warn on thrown-away lanes run under `np.errstate(all=\"ignore\")`. This is the form of "
     "cheap branches (see `if.compact`), or of any `if` marked `# vectorize: select`.",
     "if tmp > 5:\n    root = t * b\nelse:\n    root = -t",
     "root = np.where(tmp > 5, t * b, -t)"),
    ("if.compact", "control flow",
     "An `if` whose branches are expensive (a loop, or much work for the data they move; "
     "`passes/compact_ifs.py` documents the heuristic) or that is marked "
     "`# vectorize: compact` runs each branch only on the lanes that take it: their indices "
     "come from `np.flatnonzero`, the per-example values the branch reads are gathered, and "
     "each variable it assigns is scattered back into an array of the dtype `np.where` "
     "would give. Same results as `if.select`.",
     "if x > 0:  # vectorize: compact\n    y = math.log(x) * x\nelse:\n    y = 0.0",
     "cond = x > 0\nlanes = np.flatnonzero(cond)\nx_lanes = x[lanes]\n"
     "y_lanes = np.log(x_lanes) * x_lanes\nlanes_else = np.flatnonzero(~cond)\n"
     "y_else = 0.0\ny = np.empty(len(cond), dtype=np.float64)\ny[lanes] = y_lanes\n"
     "y[lanes_else] = y_else"),
    ("if.unbatched", "control flow",
     "An `if` whose test is the same for every example stays a Python `if`.",
     "if n > 2:\n    y = x", "if n > 2:\n    y = x"),
    ("return.single_exit", "control flow",
     "A `return` under a per-example condition becomes an assignment of the result; the "
     "statements after it move into the branch that falls through.",
     "if x < 0:\n    return 0.0\nreturn x", "return np.where(x < 0, 0.0, x)"),
    ("loop.unbatched", "control flow",
     "A `for` over an unbatched range or sequence stays a Python loop with a batched body.",
     "for k in range(3):\n    s = s + x ** k", "for k in range(3):\n    s = s + x ** k"),
    ("call.user_function", "calls",
     "A call of another plain Python function of the user's is vectorized the same way, "
     "once per pattern of batched arguments (memoized), and emitted next to the caller.",
     "y = clamp(x, 0.0)", "y = clamp(x, 0.0)  # calls the batched clamp below"),
    ("array.scatter", "arrays",
     "An array the function creates (`np.zeros`, `np.full`, `x.copy()`...) that per-example "
     "data is written into is allocated with the batch axis in front; `y[i] = v` then writes "
     "every example's slot at once (`y[:, i] = v`, or `y[np.arange(len(y)), k] = v` for a "
     "per-example index). Writing into arguments or globals, through a second name, or under "
     "a per-example condition is rejected.",
     "y = np.zeros(3)\ny[0] = x\ny[k] = 1.0",
     "y = np.zeros((len(x), 3))\ny[:, 0] = x\ny[np.arange(len(y)), k] = 1.0"),
    ("call.per_example_fallback", "calls",
     "With `fallback='warn'`/`'loop'`, a call without a rule runs per example in a visible "
     "list comprehension (and warns once with 'warn').",
     "y = special(x)", "y = np.array([special(x_i) for x_i in x])"),
]


# the engine's own rules hold for every backend but these, which need a capability
_ENGINE_NEEDS = {
    "if.compact": lambda backend: backend.compaction,
    "array.scatter": lambda backend: backend.in_place_writes and any(
        rule.family == "creation" for rule in backend.registry.all_rules),
}


def _block(code: str) -> str:
    return "```python\n" + code.strip("\n") + "\n```"


def render() -> str:
    lines = ["# Batching rules", "",
             "Generated from the rule registry by `python -m vectorize.rules.doc`; "
             "`tests/test_rules_doc.py` fails when this page is out of date.", "",
             "Each rule says how one operation on per-example values becomes batched code. "
             "An operation whose inputs are all unbatched is never rewritten.", ""]
    known = [backends.get(name) for name in backends.KNOWN]
    entries = [(name, fam, expl, before, after) for name, fam, expl, before, after in
               _ENGINE_RULES]
    has = {name: {b.name for b in known if _ENGINE_NEEDS.get(name, lambda _: True)(b)}
           for name, *_ in _ENGINE_RULES}
    for backend in known:
        for r in backend.registry.all_rules:
            if r.family == "user":
                continue
            if r.name not in has:
                entries.append((r.name, r.family, r.explanation, r.before, r.after))
                has[r.name] = set()
            has[r.name].add(backend.name)
    families = sorted({e[1] for e in entries},
                      key=lambda f: (_FAMILY_ORDER.index(f) if f in _FAMILY_ORDER else 99, f))
    lines += ["## Rules by backend", "",
              "Which backend has each rule (the sections below describe each rule in the "
              "spelling of the first backend that has it).", "",
              "| rule | family | " + " | ".join(b.name for b in known) + " |",
              "|---|---|" + "---|" * len(known)]
    for family in families:
        for name, *_ in [e for e in entries if e[1] == family]:
            marks = " | ".join("yes" if b.name in has[name] else "—" for b in known)
            lines.append(f"| `{name}` | {family} | {marks} |")
    lines.append("")
    for family in families:
        lines += [f"## {family}", ""]
        for name, _, explanation, before, after in [e for e in entries if e[1] == family]:
            lines += [f"### `{name}`", "", explanation, "", "Before:", "", _block(before), "",
                      "After:", "", _block(after), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    print(render(), end="")
