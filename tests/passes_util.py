"""Run single passes on small functions written as source text."""

from __future__ import annotations

import importlib.util
import itertools
import pathlib
import tempfile
import textwrap

import libcst as cst
import numpy as np

from vectorize.abstract import Value
from vectorize.source import read_function
from vectorize.syntax.edit import fix_parens
from vectorize.transform import FunctionJob, ModuleContext

_dir = pathlib.Path(tempfile.mkdtemp(prefix="vectorize_passes_"))
_count = itertools.count()


def load(source: str, name: str = "f"):
    path = _dir / f"passes_case_{next(_count)}.py"
    path.write_text("import math\nimport numpy as np\n\n" + textwrap.dedent(source))
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def params_for(func, batched: str):
    """Parameters named in ``batched`` are batched float64, the others unbatched floats."""
    import inspect
    return {p: Value(True, np.float64(1.0)) if p in batched.split() else Value(False, 1.0)
            for p in inspect.signature(func).parameters}


def run(source: str, passes, batched: str = "x") -> str:
    func = load(source)
    module = ModuleContext("numpy", "error")
    job = FunctionJob(module, read_function(func), params_for(func, batched), "f")
    tree = job.source.tree
    for p in passes:
        tree = p.transform(tree, job)
    return cst.Module(body=[fix_parens(tree)]).code


def body(code: str) -> str:
    """The function body, dedented, for comparing with expected text."""
    lines = code.strip("\n").splitlines()[1:]
    return textwrap.dedent("\n".join(lines)).strip("\n")
