"""The side-by-side view of ``explain``: what a notebook shows for `vectorize.explain(...)`
and what ``vectorize --explain --html FILE.py`` writes.

The page is read back with a real HTML parser (``html.parser``, elements checked to be
balanced) and checked against the code itself: every line of the scalar function (at the
user's line numbers) and of the generated function is on it, every rule that fired is named,
and every link resolves, to an element of the page or to an anchor of the rules reference.
Golden pages for the seed function, a ``while`` loop and an ``einsum`` are reviewed like code;
regenerate them after a deliberate change with ``VECTORIZE_UPDATE_GOLDEN=1 python -m pytest
tests/test_explain_html.py`` and review the diff.

``docs/explain.png`` is a headless Chromium screenshot of the seed function's page;
``docs/explain.png.sha256`` is the SHA-256 of the page it shows, which must be the page the
code makes today. To remake it (with Chromium installed)::

    vectorize --explain --html --function func examples/seed_func.py > /tmp/seed.html
    chromium --headless --hide-scrollbars --window-size=1200,680 \\
        --screenshot=docs/explain.png /tmp/seed.html
    sha256sum < /tmp/seed.html | cut -d' ' -f1 > docs/explain.png.sha256
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import pathlib
import re
import subprocess
import sys
from html.parser import HTMLParser

import numpy as np
import pytest

import vectorize
from vectorize import explain, vmap

ROOT = pathlib.Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden_explain"
RULES = ROOT / "docs" / "rules.md"
sys.path.insert(0, str(ROOT / "examples"))
import seed_func  # noqa: E402 -- the example file, from examples/
from test_explain import calls_helper, collatz  # noqa: E402 -- functions explained there too

VOID = {"meta", "col", "br", "img", "hr", "input", "link", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], []

    @property
    def classes(self):
        return set((self.attrs.get("class") or "").split())

    def walk(self):
        yield self
        for child in self.children:
            if isinstance(child, Node):
                yield from child.walk()

    def all_text(self) -> str:
        return "".join(c.all_text() if isinstance(c, Node) else c for c in self.children)

    def find(self, tag=None, cls=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag)
                and (cls is None or cls in n.classes)]


class Tree(HTMLParser):
    """A DOM of the page; raises on an end tag that does not close the open element."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.root = self.at = Node("#document", {})
        self.feed(text)
        self.close()
        assert self.at is self.root, f"<{self.at.tag}> is never closed"

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Node(tag, attrs, self.at))

    def handle_endtag(self, tag):
        assert tag not in VOID and self.at.tag == tag, f"</{tag}> closes <{self.at.tag}>"
        self.at = self.at.parent

    def handle_data(self, data):
        self.at.children.append(data)


def rule_anchors() -> set:
    return set(re.findall(r'<a id="([^"]+)"></a>', RULES.read_text()))


def sides(tree: Tree):
    """(scalar lines, batched lines) of every table: (line number shown, code) each."""
    scalar, batched = [], []
    for row in tree.root.find("tr", "vz-step"):
        cells = [c for c in row.children if isinstance(c, Node) and c.tag == "td"]
        for cell, out in ((cells[0], scalar), (cells[2], batched)):
            for line in cell.find("div", "vz-line"):
                number = line.find("span", "vz-n")[0].all_text()
                out.append((int(number), line.find("span", "vz-text")[0].all_text()))
    return scalar, batched


def check_links(tree: Tree, rules_url: str = "docs/rules.md") -> int:
    ids = {n.attrs["id"] for n in tree.root.walk() if "id" in n.attrs}
    anchors = rule_anchors()
    links = [n.attrs["href"] for n in tree.root.find("a") if "href" in n.attrs]
    for href in links:
        if href.startswith("#"):
            assert href[1:] in ids, href
        else:
            page, _, anchor = href.partition("#")
            assert page == rules_url and anchor in anchors, href
    return len(links)


@functools.cache     # the same command line, the same files: one run for the tests that read it
def cli(*args) -> str:
    return subprocess.run([sys.executable, "-m", "vectorize", *args], capture_output=True,
                          text=True, cwd=ROOT, check=True).stdout


# --- the view of one call, in a notebook ------------------------------------------------

def safe_sqrt(x):
    if x >= 0:
        return np.sqrt(x)
    return 0.0


def attention(q, K, V):
    scores = K @ q / np.sqrt(len(q))
    w = np.exp(scores - scores.max())
    w = w / w.sum()
    return w @ V


def first_negative_run(v):
    i = 0
    while i < len(v) and v[i] < 0.0:
        i += 1
    return i


CALLS = {
    "seed": lambda: (seed_func.func.pyfunc, (np.arange(1.0, 9.0), 1.0), {}),
    "collatz": lambda: (collatz, (np.arange(1, 50),), {}),
    "safe_sqrt": lambda: (safe_sqrt, (np.linspace(-1, 1, 5),), {}),
    "attention": lambda: (attention, (np.ones((4, 3)), np.ones((5, 3)), np.ones((5, 2))),
                          {"in_axes": (0, None, None)}),
    "helper": lambda: (calls_helper, (np.linspace(0, 1, 4),), {}),
}


def fired_rules(func, args, kwargs) -> set:
    """The rules the engine records for this call (not read from the page)."""
    if "in_axes" in kwargs:
        wrapped = vmap(func, kwargs["in_axes"], fallback="error", cache_dir=False)
        wrapped._explain = True
        spec = wrapped._plan(args)[0].spec
    else:
        wrapped = vectorize.vectorize(func, fallback="error", cache_dir=False)
        wrapped._explain = True
        spec = wrapped._entry(args, {}).spec
    return {name for name, _, _ in spec.explanations}


def generated_function(func, args, kwargs) -> list[str]:
    source = (vmap(func, kwargs["in_axes"]) if "in_axes" in kwargs
              else vectorize.vectorize(func)).source(*args)
    return source.splitlines()


@pytest.mark.parametrize("case", sorted(CALLS))
def test_the_notebook_view_shows_both_functions_and_every_rule(case):
    func, args, kwargs = CALLS[case]()
    report = explain(func, *args, **kwargs)
    page = report._repr_html_()
    tree = Tree(page)
    scalar, batched = sides(tree)
    # every line of the user's function, at its line number in their file
    lines, first = inspect.getsourcelines(func)
    shown = dict(scalar)
    for k, line in enumerate(lines):
        if line.strip() and not line.lstrip().startswith("@"):
            assert shown[first + k] == line.rstrip("\n"), (first + k, line)
    # every line of the generated function, at its line in the generated source, in order
    generated = generated_function(func, args, kwargs)
    body = [(n, text) for n, text in batched if text.strip()]
    assert [text for _, text in body] == [line for line in generated[body[0][0] - 1:]
                                         if line.strip()][:len(body)]
    for n, text in body:
        assert generated[n - 1] == text
    assert any(text.startswith(f"def {func.__name__}(") for _, text in body)
    # every rule that fired, by name, linked to its entry in the rules reference
    names = {a.all_text() for a in tree.root.find("a", "vz-rule")}
    assert fired_rules(func, args, kwargs) <= names
    assert check_links(tree) >= len(names)


def test_the_text_is_short_and_the_long_form_is_verbose():
    report = explain(seed_func.func, np.arange(1.0, 9.0), 1.0)
    rules = vectorize.rules.NUMPY.rules_by_name()
    full = rules["operator.arithmetic"].explanation
    assert full not in report and full in report.verbose
    assert report.text(verbose=True) == report.verbose and report.text() == report
    rule_lines = [line for line in report.splitlines() if line.lstrip().startswith("rule ")]
    assert rule_lines and all(len(line.split(": ", 1)[1]) <= 150 for line in rule_lines)
    assert "            rule operator.conditional_expression: `a if cond else b` with a batched " \
           "condition chooses lane by lane: `np.where(cond, a, b)`.\n" in report
    assert str(report) == report and isinstance(report, str)
    import copy
    import pickle
    assert copy.copy(report) == report and pickle.loads(pickle.dumps(report)) == report


def test_every_rule_has_a_one_line_reason():
    from vectorize.rewrite.report import one_line
    from vectorize.rules.doc import entries
    for name, _, explanation in entries():
        reason = one_line(explanation)
        assert reason.endswith(".") and "\n" not in reason, name
        assert len(reason) < len(explanation) or len(explanation) <= 150, name
        assert len(reason) <= 220, name


def test_the_notebook_view_links_to_the_reference_from_the_notebooks_folder(monkeypatch):
    monkeypatch.chdir(ROOT / "examples")
    view = explain(seed_func.func, np.arange(3.0), 1.0)._repr_html_()
    assert 'href="../docs/rules.md#operator.conditional_expression"' in view
    monkeypatch.chdir(ROOT)
    view = explain(seed_func.func, np.arange(3.0), 1.0)._repr_html_()
    assert 'href="docs/rules.md#operator.conditional_expression"' in view


def test_two_views_in_one_notebook_do_not_share_ids():
    one = explain(collatz, np.arange(1, 9))._repr_html_()
    two = explain(collatz, np.arange(1, 9))._repr_html_()
    ids = re.compile(r'id="([^"]+)"')
    assert set(ids.findall(one)).isdisjoint(ids.findall(two))


def test_lines_that_serve_the_batch_are_marked():
    tree = Tree(explain(collatz, np.arange(1, 9)).html())
    tagged = {}
    for line in tree.root.find("div", "vz-line"):
        for tag in line.find("span", "vz-tag"):
            tagged.setdefault(tag.all_text(), []).append(
                line.find("span", "vz-text")[0].all_text().strip())
    assert "lanes = np.flatnonzero(active)" in tagged["compaction"]
    assert "active = n != 1" in tagged["mask"]
    # (the mask narrowed only where some lane has finished: the compaction's choice)
    assert "active_lanes = active_lanes & active_if if idle else active_if" in \
        tagged["compaction"]
    # (a merge taken only where some lane has finished since the last compaction)
    assert "n_lanes = merge.blend_pass(active_lanes, n_if, n_lanes) if idle else n_if" in \
        tagged["compaction"]
    guarded = Tree(explain(safe_sqrt, np.linspace(-1, 1, 5)).html())
    assert any("errstate" in line.all_text() and line.find("span", "vz-tag-guard")
               for line in guarded.root.find("div", "vz-line"))
    bounded = Tree(explain(first_negative_run, np.random.default_rng(0).normal(size=(5, 4)),
                           in_axes=(0,)).html())
    assert any("np.where(active_lanes &" in line.all_text()
               and line.find("span", "vz-tag-guard")
               for line in bounded.root.find("div", "vz-line"))
    # the seed function has none of them
    assert not Tree(explain(seed_func.func, np.arange(3.0), 1.0).html()).root.find(
        "span", "vz-tag")


def test_a_batched_line_points_at_the_scalar_lines_it_came_from():
    tree = Tree(explain(collatz, np.arange(1, 9)).html())
    lines, first = inspect.getsourcelines(collatz)
    number = {text.strip(): first + k for k, text in enumerate(lines)}
    merge = next(line for line in tree.root.find("div", "vz-line")
                 if line.find("span", "vz-text")[0].all_text().strip().startswith("n_if ="))
    came = {int(i.rsplit("L", 1)[1]) for i in merge.attrs["data-from"].split()}
    assert {number["n = n // 2"], number["n = 3 * n + 1"]} <= came
    assert number["steps = 0"] not in came


# --- the page of a file -----------------------------------------------------------------

PAGES = {   # golden page -> the command line's arguments
    "seed_func.html": ["--function", "func", "examples/seed_func.py"],
    "collatz.html": ["examples/collatz.py"],           # a `while` loop, a helper
    "models.html": ["examples/models.py"],             # `.dot` and `np.dot` -> einsum
}


@pytest.mark.parametrize("name", sorted(PAGES))
def test_golden_pages(name):
    page = cli("--explain", "--html", *PAGES[name])
    path = GOLDEN / name
    if os.environ.get("VECTORIZE_UPDATE_GOLDEN"):
        path.write_text(page)
    assert page == path.read_text(), f"{name} changed; review the diff and regenerate"


@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_files_page_is_a_whole_document_with_every_line(name):
    args = PAGES[name]
    page = cli("--explain", "--html", *args)
    tree = Tree(page)
    assert page.startswith("<!DOCTYPE html>") and tree.root.find("html")
    assert tree.root.find("style") and "@media print" in page
    assert "http://" not in page and "https://" not in page     # nothing from the network
    assert not tree.root.find("link") and all("src" not in s.attrs
                                              for s in tree.root.find("script"))
    scalar, batched = sides(tree)
    file_lines = (ROOT / args[-1]).read_text().splitlines()
    for number, text in scalar:
        assert file_lines[number - 1] == text
    # the generated functions, numbered as in the rewritten file where they are there as
    # they are, else from their `def` (where the file adapts them to the calling convention)
    rewritten = cli(*args).splitlines()
    starts = [k for k, (number, text) in enumerate(batched) if text.startswith("def ")]
    assert starts and starts[0] == 0
    for a, b in zip(starts, starts[1:] + [len(batched)]):
        function = batched[a:b]
        if function[0][0] == 1:
            assert [n for n, _ in function] == list(range(1, len(function) + 1))
            name = function[0][1].split("(")[0]
            at = next(k for k, line in enumerate(rewritten) if line.startswith(name + "("))
            body = [t for _, t in function[1:] if t.strip()]
            assert all(t in rewritten[at:] for t in body), body
        else:
            for number, text in function:
                assert rewritten[number - 1] == text
    text_form = cli("--explain", *args)
    for name_ in re.findall(r"^ +rule ([^:( ]+)", text_form, re.M):
        assert name_ in {a.all_text() for a in tree.root.find("a", "vz-rule")}
    for loop in re.findall(r"^    (.*)\n  => ", text_form, re.M):
        assert loop in page.replace("&#x27;", "'") or loop in tree.root.all_text()
    check_links(tree)


def test_every_function_of_a_file_and_several_files_make_one_page():
    page = cli("--explain", "--html", "examples/seed_func.py", "examples/models.py")
    tree = Tree(page)
    titles = [h.all_text() for h in tree.root.find("h2")]
    for name in ("func", "func_2", "batched_dot", "model", "centered"):
        assert f"{name} becomes a batched function" in " ".join(titles)
    assert page.count("<!DOCTYPE html>") == 1
    check_links(tree)


def test_rules_url_option():
    page = cli("--explain", "--html", "--rules-url", "https://example.org/rules.html",
               "examples/models.py")
    assert 'href="https://example.org/rules.html#linalg.dot"' in page


def test_verbose_and_html_need_explain():
    for flag in ("--html", "--verbose"):
        run = subprocess.run([sys.executable, "-m", "vectorize", flag, "examples/seed_func.py"],
                             capture_output=True, text=True, cwd=ROOT)
        assert run.returncode == 2 and "go with --explain" in run.stderr


def test_verbose_text_has_the_whole_explanations():
    short, long = cli("--explain", "examples/seed_func.py"), \
        cli("--explain", "--verbose", "examples/seed_func.py")
    explanation = vectorize.rules.NUMPY.rules_by_name()["operator.arithmetic"].explanation
    assert explanation in long and explanation not in short
    assert len(short) < len(long)


def test_the_readme_shows_what_explain_prints(tmp_path):
    """README.md's explain output is the real one, for its own `func` (its path aside)."""
    readme = (ROOT / "README.md").read_text()
    code = re.search(r"```python\n(import numpy as np\n.*?)\nfunc\(np", readme, re.S).group(1)
    shown = re.search(r"```text\n(/path/to/yours\.py:4:.*?)```", readme, re.S).group(1)
    path = tmp_path / "yours.py"
    path.write_text(code)
    module = {}
    exec(compile(code, str(path), "exec"), module)
    import linecache
    linecache.checkcache(str(path))
    printed = str(explain(module["func"], np.zeros(3), 1.0))
    assert printed.replace(str(path), "/path/to/yours.py") == shown


def test_the_screenshot_shows_the_page_made_today():
    page = cli("--explain", "--html", "--function", "func", "examples/seed_func.py")
    stored = (ROOT / "docs" / "explain.png.sha256").read_text().split()[0]
    assert hashlib.sha256(page.encode()).hexdigest() == stored, \
        "the page changed: remake docs/explain.png (see this module's docstring)"
    png = (ROOT / "docs" / "explain.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) < 400_000
