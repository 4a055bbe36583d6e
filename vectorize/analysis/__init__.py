"""Batchedness, per-example rank and dtype of every value: an abstract interpreter.

`Analysis` (`interpreter.py`) runs a ``FunctionDef`` in scalar style on the abstract values of
its parameters and records, for every expression, whether it is batched (differs per
example) and an example of its per-example value, from which rank, shape and dtype are read.
A variable assigned under a batched condition becomes batched at the join (it differs per
lane); loops are analysed to a fixed point. The passes read it; it never rewrites.

The parts, one concern each:

- `interpreter.py`: `Analysis` itself, the statements and loops;
- `expressions.py`, `calls.py`: the values of expressions and of calls (the rules of the
  registry, the user's helpers, random draws, per-example fallbacks);
- `environments.py`: the variables' values at a program point and how paths join;
- `aliasing.py`: names for one object (views, in-place updates), arrays the function
  creates and writes into;
- `float_semantics.py`: running operations on examples, NumPy scalars where Python numbers
  would raise, which code can warn (`may_warn`);
- `purity.py`: what may run on examples, which globals a specialization may rely on;
- `syntax.py`: facts read from the code alone (literals, wording of refusals).
"""

from .environments import Env, join_envs
from .float_semantics import may_warn
from .interpreter import Analysis

__all__ = ["Analysis", "Env", "join_envs", "may_warn"]
