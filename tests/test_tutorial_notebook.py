"""examples/tutorial.ipynb is docs/tutorial.md as a notebook (outputs stripped), and it runs
top to bottom on a real Jupyter kernel (`nbclient`, `ipykernel`): what each cell prints is
what the tutorial documents after it, and `explain` shows its side-by-side view."""

from __future__ import annotations

import json
import os
import re

import pytest
from tutorial_notebook import NOTEBOOK, ROOT, TUTORIAL, build, pieces, text

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("torch")      # the tutorial's PyTorch sections


def test_the_notebook_is_the_tutorial():
    assert NOTEBOOK.read_text() == text(), "run: python tests/tutorial_notebook.py"
    notebook = nbformat.reads(NOTEBOOK.read_text(), as_version=4)
    nbformat.validate(notebook)
    assert all(not cell.get("outputs") and cell.get("execution_count") is None
               for cell in notebook.cells if cell.cell_type == "code")
    code = [t for kind, t in pieces(TUTORIAL.read_text()) if kind == "python"]
    assert ["".join(c.source) for c in notebook.cells if c.cell_type == "code"] == code


def test_links_in_the_notebook_point_at_the_docs():
    notebook = build(TUTORIAL.read_text())
    prose = "".join("".join(c["source"]) for c in notebook["cells"]
                    if c["cell_type"] == "markdown")
    for target in re.findall(r"\]\(([^)#]+)", prose):
        assert (NOTEBOOK.parent / target).exists(), target


def documented_outputs() -> list[tuple[int, str]]:
    """(index of the code cell, the text block documented as what it prints)."""
    out, cell = [], -1
    for kind, body in pieces(TUTORIAL.read_text()):
        if kind == "python":
            cell += 1
        elif kind == "text":
            assert cell >= 0
            out.append((cell, body))
    return out


def _shows(documented: str, printed: str) -> bool:
    """Whether the documented lines are a stretch of the printed ones, a ``...`` line (with
    any comment after it) standing for any number of lines."""
    pattern = ""
    for line in documented.splitlines():
        if line.strip().startswith("..."):
            pattern += r"(?:.*\n)*?"
        else:
            pattern += re.escape(line) + r"\n"
    return re.search(r"(?:^|\n)" + pattern, printed + "\n") is not None


@pytest.fixture(scope="module")
def executed(tmp_path_factory):
    notebook = nbformat.reads(NOTEBOOK.read_text(), as_version=4)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["VECTORIZE_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT / "examples")}})
    old = dict(os.environ)
    os.environ.update(env)         # the kernel inherits this environment
    try:
        client.execute()
    finally:
        os.environ.clear()
        os.environ.update(old)
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def _printed(cell) -> str:
    out = []
    for output in cell.outputs:
        if output.output_type == "stream" and output.name == "stdout":
            out.append(output.text)
        elif output.output_type in ("execute_result", "display_data"):
            out.append(output.data.get("text/plain", "") + "\n")
    return "".join(out)


def test_every_cell_runs_without_errors_or_warnings(executed):
    for cell in executed:
        kinds = {o.output_type for o in cell.outputs}
        assert "error" not in kinds, "".join(cell.source)
        stderr = "".join(o.text for o in cell.outputs if o.get("name") == "stderr")
        assert "Warning" not in stderr, stderr


@pytest.mark.parametrize("index", range(len(documented_outputs())))
def test_what_a_cell_prints_is_what_the_tutorial_shows(executed, index):
    cell, documented = documented_outputs()[index]
    printed = _printed(executed[cell])
    assert _shows(documented, printed), f"cell {cell} printed:\n{printed}"


def test_explain_shows_the_side_by_side_view_in_the_notebook(executed):
    (cell,) = [c for c in executed if "".join(c.source).rstrip().endswith("\nreport")]
    (result,) = [o for o in cell.outputs if o.output_type == "execute_result"]
    view = result.data["text/html"]
    assert 'class="vz-code"' in view
    assert 'href="../docs/rules.md#operator.conditional_expression"' in view
    assert "root = np.<span" in view or "np.where" in json.dumps(view)
    assert "`func` becomes a batched function" in result.data["text/plain"]
