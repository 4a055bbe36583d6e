"""PyTorch's exhaustive OpInfo vmap test, adapted: ``TestVmapOperatorsOpInfo.
test_vmap_exhaustive`` / ``test_op_has_batch_rule`` of pytorch/pytorch
(``test/functorch/test_vmap.py``, batching scheme of ``functorch/common_utils.py``).

For every OpInfo of ``torch.testing._internal.common_methods_invocations.op_db`` whose op the
torch backend has a rule for (``registry.for_call(opinfo.op)``), each of its
``sample_inputs(device="cpu", dtype=...)`` for float32, float64 and int64 (where the OpInfo
supports the dtype) is batched as ``get_exhaustive_batched_inputs`` does: every tensor
argument (tensors inside lists too, as ``pytree.tree_flatten`` finds them) at dim 0 for all
of them, then every choice of dim -1 or not batched for each (all unbatched left out), with a
batch of 2. PyTorch batches by repeating the example, so both lanes are equal; here the second
lane is the example flipped along every dim (the same values, so an op's domain still holds,
in other places), so that a rule that mixes lanes shows.

Each case runs ``vmap(f, in_dims=...)`` where ``f`` is the op called on its tensor arguments
(``def f(a0, a1): return op(a0, a1, dim=1)``: the non-tensor arguments and keywords are
constants of ``f``), and compares it with the per-example loop (``torch_reference``): shapes,
dtypes, values with NaN equal to NaN; where the loop raises, ours must raise the same
exception type (or refuse). A refusal must be a located `VectorizeError` (file:line:col);
anything else raised is a crash.

The suite runs a fixed seeded subset (``SUITE_OPS``); ``python
tests/peers/test_torch_vmap_opinfo.py`` runs every op and prints pass / refused / wrong /
crash per op (``-v``: the first cases that are not a pass, with their messages; ``--all``:
every sample, not the first 16 of each dtype).
"""

from __future__ import annotations

import collections
import itertools
import linecache
import math
import os
import random
import sys
import time
import warnings

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("expecttest")     # torch.testing._internal imports it
import torch.utils._pytree as pytree  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from torch_reference import reference  # noqa: E402

from vectorize import VectorizeError, vmap  # noqa: E402

DTYPES = ("float32", "float64", "int64")
BATCH = 2
# random or uninitialized results: the loop and the batch cannot agree (functorch skips them)
NONDETERMINISTIC = {"empty", "empty_like", "new_empty", "bernoulli", "normal", "rand_like",
                    "randn_like", "randint_like", "multinomial", "nn.functional.dropout"}


def _op_db():
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def _registry():
    from vectorize import backends
    return backends.get("torch").registry


def opinfos():
    """The OpInfos whose op the torch backend has a rule for, by ``name.variant``."""
    registry = _registry()
    found = {}
    for info in _op_db():
        if info.name in NONDETERMINISTIC or registry.for_call(info.op) is None:
            continue
        key = info.name + (f".{info.variant_test_name}" if info.variant_test_name else "")
        found[key] = info
    return found


# -------------------------------------------------------- batching (functorch's scheme)


def bdim_choices(count):
    """``get_bdim_choices``: all at dim 0, then every choice of (-1, None), all None left
    out."""
    choices = [(0,) * count, *itertools.product((-1, None), repeat=count)]
    return choices[:-1]


def batched(arg, bdim):
    """``add_batch_dim`` with lanes that differ: the example, then the example flipped."""
    lanes = [arg, arg.flip(tuple(range(arg.dim())))]
    return torch.stack(lanes, dim=0 if bdim == 0 else arg.dim())


def cases(sample):
    """(flat arguments, flat in_dims, spec) of every batching of one sample input."""
    flat, spec = pytree.tree_flatten((sample.input, *sample.args))
    is_tensor = [isinstance(a, torch.Tensor) for a in flat]
    for choice in bdim_choices(sum(is_tensor)):
        dims = iter(choice)
        in_dims = [next(dims) if t else None for t in is_tensor]
        args = [a if d is None else batched(a, d) for a, d in zip(flat, in_dims)]
        yield args, in_dims, spec


# ----------------------------------------------------------- the function that calls op

_SIMPLE = (bool, int, str, type(None))


def _literal(value, constants):
    """``value`` as source: a literal where it reads as one, else a constant's name."""
    if isinstance(value, _SIMPLE) or (isinstance(value, float) and math.isfinite(value)):
        return repr(value)
    if isinstance(value, (tuple, list)) and all(
            isinstance(v, _SIMPLE) or (isinstance(v, float) and math.isfinite(v))
            for v in value):
        return repr(value)
    constants.append(value)
    return f"c{len(constants) - 1}"


def function_of(info, flat, in_dims, spec, kwargs, serial=[0]):  # noqa: B006
    """``def f(a0, a1): return op(...)``: the mapped tensors are its parameters (so is every
    tensor: an unmapped one is passed with in_dims None, as functorch does), the rest
    constants; the call rebuilds the sample's structure (`spec`)."""
    constants: list = []
    params = []
    leaves = []
    for value in flat:
        if isinstance(value, torch.Tensor):
            params.append(f"a{len(params)}")
            leaves.append(_Name(params[-1]))
        else:
            leaves.append(_Name(_literal(value, constants)))
    args = pytree.tree_unflatten(leaves, spec)
    parts = [_spelled(a) for a in args]
    parts += [f"{k}=k_{k}" if isinstance(v, torch.Tensor) else f"{k}={_literal(v, constants)}"
              for k, v in kwargs.items()]
    text = f"def f({', '.join(params)}):\n    return op({', '.join(parts)})\n"
    serial[0] += 1
    filename = f"<opinfo {serial[0]}: {info.name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"op": info.op, "torch": torch,
                 **{f"c{i}": c for i, c in enumerate(constants)},
                 **{f"k_{k}": v for k, v in kwargs.items() if isinstance(v, torch.Tensor)}}
    exec(compile(text, filename, "exec"), namespace)
    return namespace["f"], text


class _Name(str):
    pass


def _spelled(tree):
    if isinstance(tree, _Name):
        return str(tree)
    if isinstance(tree, tuple):
        return "(" + "".join(_spelled(t) + ", " for t in tree) + ")"
    if isinstance(tree, list):
        return "[" + ", ".join(_spelled(t) for t in tree) + "]"
    if isinstance(tree, dict):
        return "{" + ", ".join(f"{k!r}: {_spelled(v)}" for k, v in tree.items()) + "}"
    raise TypeError(type(tree))


# ----------------------------------------------------------------------- one comparison


def _tolerance(dtype):
    return {torch.float32: (1e-4, 1e-5), torch.float64: (1e-7, 1e-9)}.get(dtype, (0, 0))


def same(got, expected):
    """None where they agree, else what differs."""
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            return f"got {type(got).__name__}, expected {len(expected)} outputs"
        for g, e in zip(got, expected):
            problem = same(g, e)
            if problem:
                return problem
        return None
    if not isinstance(got, torch.Tensor):
        return f"got {type(got).__name__}, not a tensor"
    if got.shape != expected.shape:
        return f"shape {tuple(got.shape)} != {tuple(expected.shape)}"
    if got.dtype != expected.dtype:
        return f"dtype {got.dtype} != {expected.dtype}"
    rtol, atol = _tolerance(expected.dtype)
    try:
        torch.testing.assert_close(got.detach(), expected.detach(), equal_nan=True,
                                   rtol=rtol, atol=atol)
    except AssertionError as problem:
        return str(problem).splitlines()[0] + " " + " ".join(str(problem).splitlines()[1:4])
    return None


def _loop(f, args, in_dims):
    """The per-example loop, outputs as lists of tensors stacked (the peer's ``loop``)."""
    return reference(f, args, tuple(in_dims), 0)


def run_case(info, sample, args, in_dims, spec):
    """('pass' | 'refused' | 'wrong' | 'crash', message)."""
    f, text = function_of(info, args, in_dims, spec, sample.kwargs)
    tensor_dims = tuple(d for a, d in zip(args, in_dims) if isinstance(a, torch.Tensor))
    tensor_args = [a for a in args if isinstance(a, torch.Tensor)]
    try:
        expected = _loop(f, tensor_args, tensor_dims)
        loop_error = None
    except Exception as problem:        # the op raises per example
        expected, loop_error = None, problem
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = vmap(f, in_dims=tensor_dims)(*tensor_args)
        bugs = [w for w in caught if "may be a bug of vectorize" in str(w.message)]
        if bugs:      # the batched code raised where the loop does not: replayed, but a bug
            return "crash", str(bugs[0].message)[:300] + f"\n{text}"
    except VectorizeError as refusal:
        located = refusal.filename.startswith("<opinfo") and refusal.line > 0
        if loop_error is not None:
            return "pass", f"both raise ({type(loop_error).__name__}; refused)"
        if not located:
            return "crash", f"refusal not located at the call: {refusal}"
        return "refused", refusal.reason
    except Exception as problem:
        if loop_error is not None and type(problem) is type(loop_error):
            return "pass", "both raise"
        return "crash", f"{type(problem).__name__}: {problem}"[:300] + f"\n{text}"
    if loop_error is not None:
        return "wrong", f"the loop raises {type(loop_error).__name__}: {loop_error}"[:300]
    problem = same(got, expected)
    if problem:
        return "wrong", problem + f"\n{text}in_dims={tensor_dims}"
    return "pass", ""


def samples(info, dtype_name, limit=None, seed=None):
    """The OpInfo's sample inputs of a dtype that have a tensor to map: the first ``limit``,
    or (``seed``) ``limit`` of them drawn with that seed."""
    dtype = getattr(torch, dtype_name)
    if dtype not in info.supported_dtypes("cpu"):
        return []
    found = []
    for sample in info.sample_inputs("cpu", dtype, requires_grad=False):
        flat, _ = pytree.tree_flatten((sample.input, *sample.args))
        if not any(isinstance(a, torch.Tensor) for a in flat):
            continue          # nothing to map (a creation op given sizes)
        found.append(sample)
        if seed is None and limit is not None and len(found) >= limit:
            break
    if seed is not None and limit is not None and len(found) > limit:
        found = random.Random(seed).sample(found, limit)
    return found


def run_op(info, dtypes=DTYPES, limit=None, cases_limit=None, seed=None):
    """Counter of outcomes of one OpInfo, and the messages of the ones that are not a pass
    (``seed``: `samples` drawn, and ``cases_limit`` batchings of each drawn too)."""
    outcomes: collections.Counter = collections.Counter()
    notes = []
    for dtype_name in dtypes:
        drawn = None if seed is None else f"{seed}-{info.name}-{dtype_name}"
        for sample in samples(info, dtype_name, limit, drawn):
            batchings = list(cases(sample))
            if cases_limit is not None and len(batchings) > cases_limit:
                batchings = batchings[:1] + random.Random(drawn).sample(batchings[1:],
                                                                        cases_limit - 1)
            for args, in_dims, spec in batchings:
                with torch.random.fork_rng():
                    torch.manual_seed(0)
                    outcome, message = run_case(info, sample, args, in_dims, spec)
                outcomes[outcome] += 1
                if outcome != "pass":
                    notes.append(f"{outcome} {info.name} {dtype_name} in_dims={in_dims}: "
                                 f"{message}")
    return outcomes, notes


# ------------------------------------------------------------------ the bounded suite

# a fixed subset of the ops (one of each family, and those the full run found wrong): two
# samples of each of two dtypes and three of their batchings (all at dim 0 and two more),
# drawn with a fixed seed
SUITE_OPS = ("add", "atan2", "clamp", "all", "count_nonzero", "sum", "amax", "softmax",
             "cumsum", "sort", "topk", "matmul", "cat", "diff", "nn.functional.normalize",
             "flip", "roll", "narrow", "max.reduction_with_dim", "nn.functional.relu",
             "nn.functional.linear", "linalg.det", "linalg.matrix_norm", "nan_to_num",
             "searchsorted")


@pytest.fixture(scope="module")
def suite_ops():
    found = opinfos()
    return {k: found[k] for k in SUITE_OPS if k in found}


def test_suite_ops_have_rules(suite_ops):
    # the subset is not silently smaller: each op is in op_db and has a rule
    assert set(suite_ops) == set(SUITE_OPS), sorted(set(SUITE_OPS) - set(suite_ops))


@pytest.mark.parametrize("name", SUITE_OPS)
def test_vmap_exhaustive(name, suite_ops):
    outcomes, notes = run_op(suite_ops[name], dtypes=("float32", "int64"), limit=2,
                             cases_limit=3, seed=0)
    assert sum(outcomes.values()) > 0
    bad = [n for n in notes if not n.startswith("refused")]
    assert not bad, "\n".join(bad[:5])


if __name__ == "__main__":
    verbose = "-v" in sys.argv
    # the first samples of each dtype (`--all`: every one; linspace's tensor overloads have
    # thousands)
    per_dtype = None if "--all" in sys.argv else 16
    only = [a for a in sys.argv[1:] if not a.startswith("-")]
    start = time.time()
    found = opinfos()
    totals: collections.Counter = collections.Counter()
    by_op = {}
    for key, info in sorted(found.items()):
        if only and key not in only and info.name not in only:
            continue
        outcomes, notes = run_op(info, limit=per_dtype)
        by_op[key] = outcomes
        totals.update(outcomes)
        worst = next((o for o in ("crash", "wrong", "refused") if outcomes[o]),
                     "pass" if outcomes else "no case")   # (no tensor to map in these dtypes)
        print(f"{worst:8} {key}: {dict(outcomes)}", flush=True)
        if verbose:
            for note in notes[:6]:
                print("    " + note.replace("\n", "\n    "))
    ops = collections.Counter(next((o for o in ("crash", "wrong", "refused") if c[o]),
                                   "pass" if c else "no case") for c in by_op.values())
    print(f"ops: {len(by_op)} tried, {dict(ops)}; cases: {dict(totals)}; "
          f"{time.time() - start:.0f} s")
