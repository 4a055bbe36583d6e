"""Each pass on its own: tables of inputs that must stay unchanged (with the reason) and of
before/after pairs, in the style of libcst codemods and pyupgrade."""

import textwrap

import libcst as cst
import numpy as np
import pytest
from passes_util import body, load, run

from vectorize.abstract import Value
from vectorize.passes import batch_rules, early_return, guard_indices, if_to_where, simplify
from vectorize.source import read_function
from vectorize.syntax.edit import fix_parens
from vectorize.transform import FunctionJob, ModuleContext


def _case(text):
    return textwrap.dedent(text).strip("\n")


# --------------------------------------------------------------------------- early_return
EARLY_RETURN_UNCHANGED = [
    ("returns under an unbatched condition stay returns", "x",
     """
     def f(x, n):
         if n > 0:
             return x
         return -x
     """),
    ("a single final return has nothing to lower", "x",
     """
     def f(x):
         y = x + 1
         return y
     """),
]

EARLY_RETURN_CASES = [
    ("the code after a returning branch moves into the other branch", "x",
     """
     def f(x):
         if x < 0:
             return 0.0
         y = x * 2
         return y
     """,
     """
     if x < 0:
         result = 0.0
     else:
         y = x * 2
         result = y
     return result
     """),
    ("when every return returns the same variable, it is the result", "x",
     """
     def f(x):
         y = x
         if x < 0:
             return y
         y = y * 2
         return y
     """,
     """
     y = x
     if x < 0:
         pass
     else:
         y = y * 2
     return y
     """),
    ("a partial return inside a branch duplicates the continuation", "x",
     """
     def f(x, c):
         if c > 0:
             if x > 1:
                 return 1.0
         return x
     """,
     """
     if c > 0:
         if x > 1:
             result = 1.0
         else:
             result = x
     else:
         result = x
     return result
     """),
]


@pytest.mark.parametrize("reason,batched,source", EARLY_RETURN_UNCHANGED)
def test_early_return_leaves_alone(reason, batched, source):
    before = run(source, [], batched)
    assert run(source, [early_return], batched) == before, reason


@pytest.mark.parametrize("reason,batched,before,after", EARLY_RETURN_CASES)
def test_early_return(reason, batched, before, after):
    assert body(run(before, [early_return], batched)) == _case(after), reason


# --------------------------------------------------------------------------- if_to_where
IF_UNCHANGED = [
    ("an unbatched test stays a Python if", "x",
     """
     def f(x, n):
         if n > 2:
             y = x
         else:
             y = -x
         return y
     """),
]

IF_CASES = [
    ("single assignments are inlined into one conditional expression", "x",
     """
     def f(x):
         if x > 0:
             y = x
         else:
             y = -x
         return y
     """,
     """
     y = x if x > 0 else -x
     return y
     """),
    ("a variable defined before and assigned in one branch merges with its old value", "x",
     """
     def f(x):
         y = 1.0
         if x > 0:
             y = -x
         return y
     """,
     """
     y = 1.0
     y = -x if x > 0 else y
     return y
     """),
    ("several live variables share one named condition (with simplify)", "x",
     """
     def f(x):
         if x > 0:
             a = x
             b = 1
         else:
             a = -x
             b = 2
         return a + b
     """,
     """
     cond = x > 0
     a = x if cond else -x
     b = 1 if cond else 2
     return a + b
     """),
    ("branch-local names keep the outer value visible to the other branch", "x",
     """
     def f(x):
         if x > 0:
             x = -x
             y = abs(x)
         else:
             y = x
         return y
     """,
     """
     x_if = -x
     y_if = abs(x_if)
     y = y_if if x > 0 else x
     return y
     """),
    ("float arithmetic in a branch can overflow on thrown-away lanes: silenced", "x",
     """
     def f(x):
         if x > 0:
             y = x * 2
         else:
             y = x
         return y
     """,
     """
     with np.errstate(all="ignore"):
         y = x * 2 if x > 0 else x
     return y
     """),
    ("branches that can warn on thrown-away lanes run with warnings silenced", "x",
     """
     def f(x):
         if x > 0:
             y = np.log(x)
         else:
             y = 0.0
         return y
     """,
     """
     with np.errstate(all="ignore"):
         y = np.log(x) if x > 0 else 0.0
     return y
     """),
]


@pytest.mark.parametrize("reason,batched,source", IF_UNCHANGED)
def test_if_to_where_leaves_alone(reason, batched, source):
    before = run(source, [], batched)
    assert run(source, [if_to_where], batched) == before, reason


@pytest.mark.parametrize("reason,batched,before,after", IF_CASES)
def test_if_to_where(reason, batched, before, after):
    passes = [if_to_where, simplify] if "simplify" in reason else [if_to_where]
    assert body(run(before, passes, batched)) == _case(after), reason


# ----------------------------------------------------------------------------- simplify
def test_simplify_keeps_user_names():
    source = """
    def f(x):
        y = x + 1
        return y
    """
    assert body(run(source, [simplify])) == _case("""
    y = x + 1
    return y
    """)


def test_simplify_inlines_single_use_generated_names():
    source = """
    def f(x):
        if x < 0:
            return 0.0
        return -x
    """
    assert body(run(source, [early_return, if_to_where, simplify])) == _case("""
    return 0.0 if x < 0 else -x
    """)


# -------------------------------------------------------------------------- batch_rules
RULE_UNCHANGED = [
    ("operations on unbatched values are left exactly as written", "x",
     """
     def f(x, n):
         k = n and 2 or 3
         return x * k
     """),
]

RULE_CASES = [
    ("and/or/not on booleans become & | ~", "x",
     """
     def f(x, lo):
         return x > lo and not x > 2 or x == 0
     """,
     "return (x > lo) & ~(x > 2.0) | (x == 0.0)"),
    ("a chained comparison becomes a conjunction of links", "x",
     """
     def f(x):
         return 0 < x <= 1
     """,
     "return (0.0 < x) & (x <= 1.0)"),
    ("builtin min of a constant keeps Python's choice on ties and NaN", "x",
     """
     def f(x):
         return min(x, 0.5)
     """,
     "return merge.minimum(0.5, x)"),
    ("builtin min of two values that can be NaN compares explicitly", "x y",
     """
     def f(x, y):
         return min(x, y)
     """,
     "return np.where(y < x, y, x)"),
    ("math functions become NumPy ufuncs", "x",
     """
     def f(x):
         return math.floor(x) + math.hypot(x, 1.0)
     """,
     "return np.floor(x).astype(int) + np.hypot(x, 1.0)"),
]


@pytest.mark.parametrize("reason,batched,source", RULE_UNCHANGED)
def test_batch_rules_leave_alone(reason, batched, source):
    before = run(source, [], batched)
    after = run(source, [batch_rules], batched)
    assert body(after) == body(before), reason


@pytest.mark.parametrize("reason,batched,before,after", RULE_CASES)
def test_batch_rules(reason, batched, before, after):
    assert body(run(before, [batch_rules], batched)) == _case(after), reason


# ------------------------------------------------------------------------- guard_indices
def _run_on_vectors(source: str, passes) -> str:
    """Like `run`, with ``v`` a batched vector of floats and ``i`` a batched integer."""
    func = load(source)
    params = {"v": Value(True, np.ones(3)), "i": Value(True, np.int64(1))}
    job = FunctionJob(ModuleContext("numpy", "error"), read_function(func), params, "f")
    tree = job.source.tree
    for p in passes:
        tree = p.transform(tree, job)
    return cst.Module(body=[fix_parens(tree)]).code


GUARD_CASES = [
    ("the right side of `and` indexes only where the left side holds",
     """
     def f(v, i):
         return i < len(v) and v[i] < 0.0
     """,
     "return i < len(v) and v[i if i < len(v) else 0] < 0.0"),
    ("`or`: only where the left side is false",
     """
     def f(v, i):
         return i >= len(v) or v[i] > 0.0
     """,
     "return i >= len(v) or v[0 if i >= len(v) else i] > 0.0"),
    ("an `if` test is kept in a name: the branch changes what it reads",
     """
     def f(v, i):
         y = 0.0
         if i < len(v) - 1:
             i = i + 1
             y = v[i]
         return y
     """,
     """
     y = 0.0
     cond = i < len(v) - 1
     if cond:
         i = i + 1
         y = v[i if cond else 0]
     return y
     """),
    ("indexes the same for every example are left alone",
     """
     def f(v, i):
         return v[0] if i > 0 else v[1]
     """,
     "return v[0] if i > 0 else v[1]"),
]


@pytest.mark.parametrize("reason,before,after", GUARD_CASES)
def test_guard_indices(reason, before, after):
    assert body(_run_on_vectors(before, [guard_indices])) == _case(after), reason


def test_every_pass_states_the_records_it_reads_and_writes():
    """Passes talk through typed records (`passes.records`), each read through its owner
    (``Record.get(ctx)``): a pass's docstring says which it reads and writes, or that it uses
    none, and names every record its code touches."""
    import inspect

    from vectorize.passes import records
    from vectorize.pipeline import PIPELINE
    kinds = {name for name, obj in vars(records).items()
             if inspect.isclass(obj) and issubclass(obj, records.Record)
             and obj is not records.Record}
    assert kinds >= {"MaskedLoopFacts", "CompactedIfs", "BatchedLoopFacts"}
    for module in set(PIPELINE):
        doc, source = module.__doc__, inspect.getsource(module)
        assert "Reads" in doc, module.__name__
        for kind in kinds:
            if f"{kind}.get(" in source:
                assert kind in doc, (module.__name__, kind)
