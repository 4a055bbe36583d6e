"""`syntax.traversal.by_type`: a tree's nodes grouped by class, which reading a function and
the passes ask instead of walking the tree again: exactly `walk`'s nodes in `walk`'s order,
computed once per tree until the transform's memo is cleared."""

from pathlib import Path

import libcst as cst
import pytest

from vectorize.syntax.traversal import by_type, clear_memo, walk

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "vectorize" / "body_sugar.py", ROOT / "tests" / "corpus.py",
         ROOT / "examples" / "newton.py"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_by_type_is_walk_grouped_by_class(path):
    module = cst.parse_module(path.read_text())
    for tree in [module, *module.body[:40]]:
        expected: dict = {}
        for node in walk(tree):
            expected.setdefault(type(node), []).append(node)
        got = by_type(tree)
        assert got.keys() == expected.keys()
        for kind, nodes in expected.items():
            assert len(got[kind]) == len(nodes)
            assert all(a is b for a, b in zip(got[kind], nodes))
    clear_memo()


def test_by_type_is_computed_once_per_tree_and_transform():
    tree = cst.parse_module("def f(x):\n    if x:\n        return [y for y in x]\n")
    first = by_type(tree)
    assert by_type(tree) is first
    assert cst.ListComp in first and cst.Try not in first
    clear_memo()
    assert by_type(tree) is not first and by_type(tree) == first
    clear_memo()
