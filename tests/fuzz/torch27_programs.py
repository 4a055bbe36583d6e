"""The NEP 50 and bool program generators (``nep50_programs``, ``bool_programs``) on PyTorch:
random small functions of two per-example values, run through ``vmap`` (and ``vectorize``) on
tensors of every dtype and compared with the per-example loop over 0-d tensors (torch.func
semantics: PyTorch's own type promotion; where a lane raises, the batch must raise the same
exception type, or the transform refuse).

``case(rng)`` gives ``(source, dtypes, family)``; ``run(source, dtypes, seed)`` the outcome:
``ok``, ``rejected`` (a `VectorizeError`), ``mismatch`` (values, NaN positions, zero signs or
dtype differ, or the loop raises and the batch returns, or the reverse), ``empty-raises`` or
``internal`` (an exception from inside the engine). The long run is
`benchmarks/fuzz_torch27.py`, a fixed set `tests/test_fuzz_torch27.py`.
"""

from __future__ import annotations

import random
import re
import traceback
import warnings

import numpy as np

from fuzz import bool_programs, nep50_programs
from fuzz.harness import ModuleWriter, Program
from vectorize import VectorizeError, vectorize, vmap

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "bool", "float32", "float64"]

# the NumPy calls of `nep50_programs` as PyTorch spells them
_TORCH_CALLS = {
    "np.sqrt(": "torch.sqrt(", "np.abs(": "torch.abs(", "np.negative(": "torch.negative(",
    "np.floor(": "torch.floor(", "np.sign(": "torch.sign(", "np.exp(": "torch.exp(",
    "np.minimum(": "torch.minimum(", "np.maximum(": "torch.maximum(",
    "np.where(": "torch.where(", "np.clip(": "torch.clamp(", "np.fmod(": "torch.fmod(",
    "np.hypot(": "torch.hypot(", "np.copysign(": "torch.copysign(",
    "np.float32(": "float(", "np.int64(": "int(",
}
_CALL = re.compile("|".join(re.escape(k) for k in _TORCH_CALLS))


def torch_source(source: str) -> str:
    body = _CALL.sub(lambda m: _TORCH_CALLS[m.group(0)], source)
    return body.replace("import numpy as np\n", "import torch\n")


def case(rng):
    """(source, dtypes, family): a function of two per-example values."""
    if rng.random() < 0.6:
        source = torch_source(nep50_programs.program(rng))
        family = "nep50"
    else:
        source, _, _ = bool_programs.case(rng)
        source = source.replace("def f(a):", "def f(a, b):").replace(
            "import numpy as np\n", "import torch\n")
        family = "bools"
    return source, [rng.choice(DTYPES) for _ in range(2)], family


def inputs(rng, n: int, dtypes):
    import torch
    x, y = nep50_programs.inputs(rng, n, dtypes)
    return torch.from_numpy(x.copy()), torch.from_numpy(y.copy())


def _quiet(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return "ok", call()
        except Exception as exc:  # noqa: BLE001 -- the outcome is compared
            return "raised", exc


def _as_numpy(value):
    import torch
    if isinstance(value, tuple):
        return tuple(_as_numpy(v) for v in value)
    if isinstance(value, torch.Tensor):
        return value.detach().numpy()
    return np.asarray(value)


def _beyond_int64(value) -> bool:
    return type(value) is int and not -2 ** 63 <= value < 2 ** 63


def _stacked_as_pytorch(column) -> None:
    """A column of results holding a Python int beyond int64: no tensor holds it, and
    PyTorch's conversion of it raises ValueError ("Overflow when unpacking long long"); the
    loop raises that (NumPy's stacking would make an object array of it)."""
    import torch
    for v in column:
        if _beyond_int64(v):
            torch.as_tensor(v)


def _loop(f, x, y):
    rows = [f(x[i], y[i]) for i in range(len(x))]
    for column in (zip(*rows) if rows and isinstance(rows[0], tuple) else [rows]):
        _stacked_as_pytorch(column)
    if rows and isinstance(rows[0], tuple):
        return tuple(np.stack([_as_numpy(r[k]) for r in rows]) for k in range(len(rows[0]))), \
            [r[0] for r in rows]
    return np.stack([_as_numpy(r) for r in rows]), rows


def _tensor_dtype(rows):
    """The dtype every lane's result has where each is a tensor of one dtype (else None:
    Python numbers, whose batched dtype is the join of the lanes')."""
    import torch
    dtypes = {r.dtype for r in rows if isinstance(r, torch.Tensor)}
    if len(dtypes) == 1 and all(isinstance(r, torch.Tensor) for r in rows):
        return str(next(iter(dtypes))).rpartition(".")[2]
    return None


def _compare(got, expected, rows) -> str:
    if isinstance(expected, tuple):
        if not isinstance(got, tuple) or len(got) != len(expected):
            return f"structure {type(got).__name__} vs {type(expected).__name__}"
        for g, e in zip(got, expected):
            problem = _compare(g, e, None)
            if problem:
                return problem
        return ""
    got = _as_numpy(got)
    want = _tensor_dtype(rows) if rows else None
    if want is not None and got.dtype.name != want and (
            got.dtype.kind == np.dtype(want).kind and got.dtype.itemsize < np.dtype(
                want).itemsize or got.dtype.kind == "b"):
        # (a wider dtype is the join of the types the lanes of other paths have,
        # docs/semantics.md; a narrower one loses or wraps what every lane computes)
        return f"dtype {got.dtype} != {want} (every lane's)\n got {got!r}\n expected {expected!r}"
    if want is not None and np.dtype(want).kind in "iub" and got.dtype.kind == "f" and \
            got.dtype.itemsize < 8:
        # every lane an int tensor, the batch the join of the program's int and float
        # branches (docs/semantics.md, "PyTorch"): each lane cast to it, as the loop's
        # stacking casts lanes of both (`tests/torch_reference.py`, joins)
        expected = expected.astype(got.dtype)
    problem = nep50_programs._differs(got, expected)
    if problem.startswith("dtype") and {got.dtype.kind, expected.dtype.kind} <= set("biuf"):
        joined = np.result_type(got.dtype, expected.dtype)
        if not nep50_programs._differs(got.astype(joined), expected.astype(joined)):
            return ""
    return f"{problem}\n got {got!r}\n expected {expected!r}" if problem else ""


def check(f, x, y, how: str):
    """(kind, detail) of the batch (``how``: vmap, vectorize or nested vmap) against the loop."""
    # (each run on its own copy: `flag = a; flag += 1` adds in place, to the argument too)
    originals = x.clone(), y.clone()
    if how == "nested":
        got = _quiet(lambda: vmap(vmap(f))(x[None], y[None]))
    elif how == "vectorize":
        got = _quiet(lambda: vectorize(f, fallback="error")(x, y))
    else:
        got = _quiet(lambda: vmap(f)(x, y))
    if got[0] == "raised" and isinstance(got[1], VectorizeError):
        # (before the loop: a refused `r += 255 ** 2 ** 40` would run for hours per example)
        return "rejected", str(got[1]).splitlines()[0]
    x, y = originals
    ref = _quiet(lambda: _loop(f, x.clone(), y.clone()))
    if len(x) == 0:
        if got[0] == "raised":
            ones = _quiet(lambda: _loop(f, x.new_ones(1), y.new_ones(1)))
            if ones[0] == "raised" and type(ones[1]) is type(got[1]):
                return "ok", ""     # (every example raises: `x ** -1` of an int)
            frames = traceback.extract_tb(got[1].__traceback__)
            if any(frame.filename.startswith("<vectorize:") for frame in frames[-3:]):
                # PyTorch raising in the generated code for a branch no example takes (a
                # bool tensor's `-`): no loop decides an empty batch (`nep50_programs`)
                return "empty-raises", f"{type(got[1]).__name__}: {got[1]}"
            return "internal", f"{type(got[1]).__name__}: {got[1]}"
        return "ok", ""
    if ref[0] == "raised":
        if got[0] == "raised" and type(got[1]) is type(ref[1]):
            return "ok", ""
        if got[0] == "raised":
            return "mismatch", (f"loop raises {type(ref[1]).__name__}: {ref[1]}; batch "
                                f"{type(got[1]).__name__}: {got[1]}")
        return "mismatch", f"loop raises {type(ref[1]).__name__}: {ref[1]}; batch returns"
    if got[0] == "raised":
        tb = "".join(traceback.format_exception(got[1]))[-2000:]
        frames = traceback.extract_tb(got[1].__traceback__)
        kind = "mismatch" if frames and frames[-1].filename.startswith(
            "<vectorize:") else "internal"
        return kind, f"loop returns; batch raises {type(got[1]).__name__}: {got[1]}\n{tb}"
    value = got[1]
    if how == "nested":
        value = tuple(v[0] for v in value) if isinstance(value, tuple) else value[0]
    expected, rows = ref[1]
    problem = _compare(value, expected, rows)
    return ("mismatch", problem) if problem else ("ok", "")


_WRITER = []


def run(source: str, dtypes, seed: int):
    """(kind, detail, n, how) of one program on inputs of ``dtypes``: N = 37, 0, 1, 5 through
    ``vmap``, N = 5 nested and through ``vectorize``; the first outcome that is not ok."""
    if not _WRITER:
        _WRITER.append(ModuleWriter())
    f = _WRITER[0].load(Program(source, ("x", "y"), 1))
    for n, how in ((37, "vmap"), (0, "vmap"), (1, "vmap"), (5, "vmap"), (5, "nested"),
                   (11, "vectorize")):
        x, y = inputs(random.Random(seed * 7919 + n), n, dtypes)
        kind, detail = check(f, x, y, how)
        if kind not in ("ok", "empty-raises"):
            return kind, detail, n, how
    return "ok", "", None, None
