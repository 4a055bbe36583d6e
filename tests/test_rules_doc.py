"""docs/rules.md is generated from the registry and must be current."""

import pathlib

from vectorize.rules import NUMPY
from vectorize.rules.doc import render

DOC = pathlib.Path(__file__).parent.parent / "docs" / "rules.md"


def test_rules_page_is_current():
    assert DOC.read_text() == render(), "run: python -m vectorize.rules.doc > docs/rules.md"


def test_every_rule_is_documented_with_an_example():
    for rule in NUMPY.all_rules:
        assert rule.name and rule.explanation and rule.before and rule.after, rule
        assert f"`{rule.name}`" in DOC.read_text()
