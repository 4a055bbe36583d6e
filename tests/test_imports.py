"""The package's import graph: no module imports another's private names, and no modules
import each other in a cycle, counting imports inside functions too (a lazy import hides a
cycle from Python, not from a reader). Read with the ``ast`` module, nothing is imported.

The package itself (``vectorize/__init__.py``, the public facade) is left out: a module may
read ``vectorize.__version__`` or the public functions through it.

`KNOWN_CYCLES` and `KNOWN_PRIVATE` list what was there when the check was written, to be
removed: the test fails for anything new, and for an entry that is gone (so the lists only
shrink).
"""

from __future__ import annotations

import ast
import functools
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "vectorize"

KNOWN_CYCLES: list[set[str]] = []
KNOWN_PRIVATE: set[tuple[str, str]] = set()


def module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _target(importer: str, is_package: bool, node: ast.ImportFrom) -> str | None:
    """The module (relative to the package) an ``import from`` names, None outside it."""
    if node.level == 0:
        if not (node.module or "").startswith("vectorize"):
            return None
        return (node.module or "").removeprefix("vectorize").lstrip(".")
    base = importer.split(".") if importer else []
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


@functools.cache       # (read once for both checks)
def imports(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """(modules ``name`` imports, private names of other modules it uses)."""
    path = MODULES[name]
    tree = ast.parse(path.read_text())
    is_package = path.name == "__init__.py"
    edges, private, aliases = set(), set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _target(name, is_package, node)
            if target is None:
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}" if target else alias.name
                if sub in MODULES:
                    edges.add(sub)
                    aliases[alias.asname or alias.name] = sub
                else:
                    edges.add(target)
                    if _private(alias.name):
                        private.add(f"{target}.{alias.name}")
        elif isinstance(node, ast.Import):
            edges |= {a.name.removeprefix("vectorize").lstrip(".") for a in node.names
                      if a.name.startswith("vectorize")}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in aliases and _private(node.attr):
            private.add(f"{aliases[node.value.id]}.{node.attr}")
    edges.discard(name)
    edges.discard("")          # the package facade
    return (frozenset(e for e in edges if e in MODULES),
            frozenset(p for p in private if not p.startswith(name + ".")))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _graph():
    return {name: imports(name)[0] for name in MODULES if name}


def test_no_new_import_cycles():
    found = cycles(_graph())
    assert [c for c in found if c not in KNOWN_CYCLES] == []
    assert [c for c in KNOWN_CYCLES if c not in found] == [], "gone: drop from KNOWN_CYCLES"


def test_no_new_private_imports():
    found = {(name, p) for name in MODULES if name for p in imports(name)[1]}
    assert found - KNOWN_PRIVATE == set()
    assert KNOWN_PRIVATE - found == set(), "gone: drop from KNOWN_PRIVATE"


def test_the_checks_find_cycles_and_private_names():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]
    assert _private("_code") and not _private("__version__") and not _private("code")


def test_the_cache_variable_is_named_once_for_both_readers():
    from vectorize import diskcache, frontend
    assert frontend.CACHE_ENV == diskcache.ENV


def test_the_layout_in_the_design_notes_names_every_module():
    """docs/design.md's package layout matches the tree: every top-level module, every
    subpackage, and every module of the rules, of loops/, of body_constructs/ and of each
    backend's folder."""
    import re
    text = (PACKAGE.parent / "docs" / "design.md").read_text()
    layout = text[text.index("## Layout"):text.index("## Pipeline")]
    words = set(re.findall(r"[\w.]+", layout))
    missing = [p.name for p in PACKAGE.glob("*.py") if p.name not in words | {"__init__.py"}]
    missing += [f"{p.name}/" for p in PACKAGE.iterdir()
                if p.is_dir() and (p / "__init__.py").exists() and f"{p.name}/" not in layout]
    backends = [p for p in (PACKAGE / "backends").iterdir() if p.is_dir()]
    for folder in [PACKAGE / "rules", PACKAGE / "loops", PACKAGE / "body_constructs",
                   *backends]:
        missing += [str(p.relative_to(PACKAGE)) for p in folder.glob("*.py")
                    if p.stem != "__init__" and p.stem not in words and p.name not in words]
    assert missing == []


def test_a_first_transform_imports_no_heavy_extras(tmp_path):
    """The cold first call pays for libcst itself, not for its optional parts: importing
    `libcst.matchers` (generated classes for every node) cost a cold first call about 200 ms
    of CPU, twice the rest of the engine's import; nor `logging` (the analysis asks
    `sys.modules` for it: a logger exists only where it was imported)."""
    import json
    import subprocess
    import sys
    (tmp_path / "cold_seed.py").write_text(
        "def func(t, b):\n    tmp = t * b\n    if tmp > 5:\n        root = t * b\n"
        "    else:\n        root = -t\n    return root\n")
    code = ("import sys, json\nimport numpy as np\nimport vectorize\nimport cold_seed\n"
            "f = vectorize.vectorize(cold_seed.func, fallback='error', cache_dir=False)\n"
            "f(np.linspace(-3.0, 12.0, 7), 1.0)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('libcst', 'logging'))))\n")
    env = {k: v for k, v in __import__("os").environ.items() if k != "VECTORIZE_CACHE_DIR"}
    env["PYTHONPATH"] = f"{PACKAGE.parent}:{tmp_path}"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, cwd=tmp_path)
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    assert "libcst" in loaded                   # (the engine ran)
    assert [m for m in loaded if m.startswith(("libcst.matchers", "libcst.codemod",
                                               "logging"))] == []
