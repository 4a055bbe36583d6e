"""Arrays the function creates and writes per-example data into.

Per example ``y = np.zeros(3)`` makes a fresh array that ``y[i] = v`` may write into (the
analysis allows writes only into such arrays, `analysis.aliasing`). Where per-example data is
written into it, it holds per-example data from its creation on: the batched code creates it
with the batch axis in front, ``np.zeros((len(x), 3))``, or as copies of the per-example array
for every example (``np.zeros_like(w)``, ``w.copy()``, ``np.array([...])``).
"""

from __future__ import annotations

import numpy as np

from ...rules.families import with_batch
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr

# functions whose first argument is the per-example shape
SHAPED = ["zeros", "ones", "empty", "full"]
# functions (and the method ``.copy()``) whose per-example result is repeated for every example
REPEATED = ["zeros_like", "ones_like", "empty_like", "full_like", "arange", "linspace", "eye",
            "identity", "array", "copy"]


def _repeated(site: Site):
    """The array created per example, repeated for every example (``site.batch`` copies)."""
    return expr(site.spelled.repeat("{a}", "{n}"), a=site.node, n=site.batch)


def _shaped(site: Site):
    """The shape with the batch length in front, where it is written positionally."""
    call = site.node
    if not (call.args and call.args[0].keyword is None):
        return _repeated(site)
    shape = with_batch(call.args[0].value, site.args[0], site.batch, site.spelled)
    return call.with_changes(args=[call.args[0].with_changes(value=shape)] + list(call.args[1:]))


def register(reg: Registry) -> None:
    shaped = Rule(
        name="creation.batched_shape", family="creation",
        explanation="An array created with a shape (`np.zeros`, `np.ones`, `np.empty`, "
                    "`np.full`) that per-example data is written into is created with the "
                    "batch length in front of its shape (see `array.scatter`).",
        before="y = np.zeros(3)\ny[0] = x", after="y = np.zeros((len(x), 3))\ny[:, 0] = x",
        rewrite=_shaped)
    repeated = Rule(
        name="creation.repeated", family="creation",
        explanation="Any other array the function creates (`np.zeros_like`, `np.array`, "
                    "`np.arange`, `.copy()`...) that per-example data is written into "
                    "starts as copies of the per-example array, one for every example.",
        before="y = w.copy()\ny[0] = x",
        after="y = np.repeat(w.copy()[None], len(x), axis=0)\ny[:, 0] = x",
        rewrite=_repeated)
    for name in SHAPED:
        reg.add_creation(getattr(np, name), shaped)
    for name in REPEATED:
        reg.add_creation(getattr(np, name), repeated)
    reg.add_creation_method("copy", repeated)
