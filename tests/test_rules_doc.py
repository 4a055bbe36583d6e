"""docs/rules.md is generated from the registries and must be current."""

import pathlib

import pytest

from vectorize import backends
from vectorize.rules.doc import render

DOC = pathlib.Path(__file__).parent.parent / "docs" / "rules.md"


def test_rules_page_is_current():
    assert DOC.read_text() == render(), "run: python -m vectorize.rules.doc > docs/rules.md"


@pytest.mark.parametrize("backend", list(backends.KNOWN))
def test_every_rule_is_documented_with_an_example(backend):
    text = DOC.read_text()
    header = next(line for line in text.splitlines() if line.startswith("| rule | family |"))
    column = header.strip("|").split("|").index(f" {backend} ")
    table = {line.split("|")[1].strip(): line.strip("|").split("|")[column].strip()
             for line in text.splitlines() if line.startswith("| `")}
    for rule in backends.get(backend).registry.all_rules:
        if rule.family == "user":
            continue
        assert rule.name and rule.explanation and rule.before and rule.after, rule
        assert f"### `{rule.name}`" in text
        assert table[f"`{rule.name}`"] == "yes", f"{rule.name} not marked for {backend}"
