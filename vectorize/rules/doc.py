"""Render the rule registry as Markdown: ``python -m vectorize.rules.doc > docs/rules.md``.

``docs/rules.md`` is generated from the registry and a test keeps it current.
"""

from __future__ import annotations

from .. import backends

_FAMILY_ORDER = ["operators", "boolean", "control flow", "builtins", "math", "numpy", "random",
                 "creation", "user"]

_ENGINE_RULES = [   # (name, family, explanation): the rules of the engine's passes
    ("if.select", "control flow",
     "An `if`/`elif`/`else` whose test differs per example runs both branches on every lane and "
     "merges each live variable with a conditional expression (then `np.where`); branch-local "
     "names (`root_if`, `root_else`) keep the branches apart; branches that can warn on "
     "thrown-away lanes run under `np.errstate(all=\"ignore\")`. This is the form of cheap "
     "branches (see `if.compact`), or of any `if` marked `# vectorize: select`."),
    ("if.compact", "control flow",
     "An `if` whose branches are expensive (a loop, or much work for the data they move; "
     "`passes/compact_ifs.py` documents the heuristic) or that is marked `# vectorize: compact` "
     "runs each branch only on the lanes that take it: their indices come from `np.flatnonzero`, "
     "the per-example values the branch reads are gathered, and each variable it assigns is "
     "scattered back into an array of the dtype `np.where` would give. Same results as "
     "`if.select`."),
    ("if.unbatched", "control flow",
     "An `if` whose test is the same for every example stays a Python `if`."),
    ("return.single_exit", "control flow",
     "A `return` under a per-example condition becomes an assignment of the result; the "
     "statements after it move into the branch that falls through."),
    ("loop.unbatched", "control flow",
     "A `for` over an unbatched range or sequence stays a Python loop with a batched body."),
    ("call.user_function", "calls",
     "A call of another plain Python function of the user's is vectorized the same way, once per "
     "pattern of batched arguments (memoized), and emitted next to the caller."),
    ("array.scatter", "arrays",
     "An array the function creates (`np.zeros`, `np.full`, `x.copy()`...) that per-example data "
     "is written into is allocated with the batch axis in front; `y[i] = v` then writes every "
     "example's slot at once (`y[:, i] = v`, or `y[np.arange(len(y)), k] = v` for a per-example "
     "index). A helper may write into an array its caller created and passes by name (the "
     "batch's rows are the examples' arrays); writing into arguments or globals, or through a "
     "second name, is rejected (under a per-example condition: `array.masked_write`)."),
    ("array.masked_write", "arrays",
     "A write into an array under a per-example condition (a batched `if`, a masked loop's "
     "body, the code after a per-example `break`/`continue`/`return`) happens on the lanes "
     "that take it only: `y[:, i] = np.where(cond, v, y[:, i])`. A per-example index is kept "
     "in bounds on the other lanes (`k_safe = np.where(cond, k, 0)`), so only a lane that "
     "writes raises IndexError for an index out of range, as its example does. A loop that "
     "writes into an array keeps the select form. Into an int64/uint64 array the value is cast "
     "to the array's dtype before the choice (their common dtype, float64, would round the "
     "items kept). A slice with a per-example bound written with a number (`y[j:] = x`, "
     "`y[:k] = 0`) or with the same slice of a vector as long (`y[:j] = v[:j]`) writes the "
     "positions the slice keeps: `np.copyto(y, x[:, None], where=<the slice's mask>)`; under "
     "a per-example condition its end is 0 where the branch does not run (an empty slice)."),
    ("call.per_example_fallback", "calls",
     "With `fallback='warn'`/`'loop'`, a call without a rule runs per example in a visible list "
     "comprehension (and warns once with 'warn')."),
]


def _block(code: str) -> str:
    return "```python\n" + code.strip("\n") + "\n```"


BACKENDS = tuple(backends.KNOWN)

# the engine's rules a backend has only with a capability (every other backend has them all)
_ENGINE_NEEDS = {
    "if.compact": lambda backend: backend.compaction,
    "array.scatter": lambda backend: backend.in_place_writes and
    backend.registry.creates_arrays(),
    "array.masked_write": lambda backend: backend.masked_writes,
}


def backend_rules() -> dict:
    """Backend name -> the names of the rules it has: its registry's, and the engine's
    rules that its code is written with."""
    out = {}
    for name in BACKENDS:
        backend = backends.get(name)
        out[name] = set(backend.registry.rules_by_name()) | {
            rule for rule, _, _ in _ENGINE_RULES
            if _ENGINE_NEEDS.get(rule, lambda _: True)(backend)}
    return out


def entries() -> list:
    """(name, family, explanation) of every rule: the engine's, then every backend's."""
    out = [(name, family, explanation) for name, family, explanation in _ENGINE_RULES]
    seen = {name for name, _, _ in out}
    for backend in BACKENDS:
        for rule in backends.get(backend).registry.all_rules:
            if rule.family != "user" and rule.name not in seen:
                seen.add(rule.name)
                out.append((rule.name, rule.family, rule.explanation))
    return out


def generated_functions(source: str) -> str:
    """The functions of a generated module (without its header comments and imports)."""
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def "))
    return "\n".join(lines[start:]).strip("\n")


def example_section(name: str) -> list[str]:
    """The rule's example and what the engine generates for it today."""
    from . import examples
    example = examples.ALL[name]
    call = "vectorize(f" + (f", fallback={example.fallback!r}" if example.fallback != "error"
                            else "") + ")" if example.in_axes is None else \
        f"vmap(f, in_axes={example.in_axes!r})"
    on = f" on {backends.get(example.backend).arrays}" if example.backend != backends.DEFAULT \
        else ""
    out = [f"Example, called as `{call}({example.args})`{on}:", "", _block(example.source), ""]
    func = examples.function(example, f"<rule {name}>")
    if name in examples.REFUSED:
        from ..errors import VectorizeError
        try:
            examples.specialization(example, func, examples.arguments(example))
        except VectorizeError as error:
            return out + ["Refused:", "", "```text\n" + str(error).rstrip() + "\n```", ""]
        raise AssertionError(f"the example of {name} is not refused")
    spec = examples.specialization(example, func, examples.arguments(example))
    return out + ["Batched, as the engine writes it:", "",
                  _block(generated_functions(spec.source)), ""]


_SHAPED = {"V": "six vectors", "W": "six other vectors", "M": "six matrices",
           "w": "one vector for every example", "m": "one matrix for every example"}


def _arguments_table() -> list[str]:
    from .examples import batch_values
    values = batch_values()
    out = ["| name | one batch of examples |", "|---|---|"]
    for name, value in values.items():
        if name in _SHAPED:
            shown = f"`{value.tolist()}`" if value.size <= 9 else \
                f"shape {value.shape}, normal draws rounded to 0.01"
            out.append(f"| `{name}` | {_SHAPED[name]}: {shown} |")
        elif name != "np":
            out.append(f"| `{name}` | `{value.tolist()}` |")
    return out


def render() -> str:
    rules = entries()
    have = backend_rules()
    families = sorted({family for _, family, _ in rules},
                      key=lambda f: (_FAMILY_ORDER.index(f) if f in _FAMILY_ORDER else 99, f))
    lines = ["# Batching rules", "",
             "Generated from the rule registries by `python -m vectorize.rules.doc`; "
             "`tests/test_rules_doc.py` fails when this page is out of date.", "",
             "Each rule says how one operation on per-example values becomes batched code. "
             "An operation whose inputs are all unbatched is never rewritten. Each entry has "
             "an anchor of the rule's name (`rules.md#operator.compare`), which `explain` "
             "links to.", "",
             "Each example is a scalar function and one batch of arguments; the test suite "
             "runs it batched and as a loop over the examples (they agree), checks that the "
             "rule fired, and that the batched form shown is what the engine generates today "
             "(written for NumPy; for the rules only PyTorch has, for tensors of the same "
             "values). The arguments:", ""]
    lines += _arguments_table() + [""]
    lines += ["## The rules and their backends", "",
              "| rule | family | " + " | ".join(BACKENDS) + " |",
              "|---|---|" + "---|" * len(BACKENDS)]
    for family in families:
        for name, fam, _ in rules:
            if fam == family:
                marks = " | ".join("yes" if name in have[b] else "-" for b in BACKENDS)
                lines.append(f"| [`{name}`](#{name}) | {family} | {marks} |")
    lines.append("")
    for family in families:
        lines += [f"## {family}", ""]
        for name, fam, explanation in rules:
            if fam != family:
                continue
            backends_ = ", ".join(b for b in BACKENDS if name in have[b])
            lines += [f'<a id="{name}"></a>', "", f"### `{name}`", "", explanation, "",
                      f"Backends: {backends_}.", ""]
            lines += example_section(name)
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    print(render(), end="")
