"""`vectorize.passes.inner_lambdas` on its own: inputs it leaves alone (with the reason) and
before/after pairs."""

import textwrap

import pytest
from passes_util import body, run

from vectorize.passes import inner_lambdas

HEADER = "from vectorize import vmap\n"


def _case(text):
    return textwrap.dedent(text).strip("\n")


UNCHANGED = [
    ("a lambda that reads only its parameters closes over nothing",
     """
     def f(x):
         return vmap(lambda y: y * 2)(x)
     """),
    ("a lambda that reads only globals closes over nothing",
     """
     def f(x):
         return vmap(lambda y: np.sin(y))(x)
     """),
    ("in_axes that is not a literal cannot be extended",
     """
     def f(x, axes):
         return vmap(lambda y: x * y, in_axes=axes)(x)
     """),
    ("keyword arguments of the call are not positions",
     """
     def f(x):
         return vmap(lambda y: x * y)(y=x)
     """),
    ("another function called vmap is not vectorize's",
     """
     def f(x):
         vmap = print
         return vmap(lambda y: x * y)(x)
     """),
    ("a lambda with defaults keeps its own parameters",
     """
     def f(x):
         return vmap(lambda y, k=2: x * y * k)(x)
     """),
]

CASES = [
    ("the function's value a lambda reads becomes an unmapped first argument",
     """
     def f(x, v):
         return vmap(lambda y: x * y)(v)
     """,
     """
     return vmap(lambda x, y: x * y, in_axes=(None, 0))(x, v)
     """),
    ("an int in_axes applies to each of the call's arguments; out_axes is kept",
     """
     def f(x, v):
         w = x + 1
         return vmap(lambda a, b: a * b + w, 1, 0)(v, v)
     """,
     """
     w = x + 1
     return vmap(lambda w, a, b: a * b + w, in_axes=(None, 1, 1), out_axes=0)(w, v, v)
     """),
    ("a tuple in_axes (or torch's in_dims) gets None in front",
     """
     def f(x, v):
         return vmap(lambda a, b: a @ b + x, in_dims=(0, None))(v, v)
     """,
     """
     return vmap(lambda x, a, b: a @ b + x, in_axes=(None, 0, None))(x, v, v)
     """),
]


@pytest.mark.parametrize("reason,source", UNCHANGED)
def test_inner_lambdas_leave_alone(reason, source):
    source = HEADER + textwrap.dedent(source)
    assert run(source, [inner_lambdas]) == run(source, []), reason


@pytest.mark.parametrize("reason,before,after", CASES)
def test_inner_lambdas(reason, before, after):
    got = run(HEADER + textwrap.dedent(before), [inner_lambdas], "x v")
    assert body(got) == _case(after), reason
