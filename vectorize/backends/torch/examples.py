"""The analysis' NumPy examples computed on by PyTorch itself.

The analysis represents every tensor by a NumPy example (`TorchBackend.example_of`): a NumPy
scalar for a 0-d tensor, an array for a tensor with dims. To learn what an operation gives
per example (dtype, shape, or that it raises), it is run by PyTorch on tensors made from the
examples, and its result made an example again. So PyTorch's own promotion decides dtypes,
which differs from NumPy's in three ways that matter here:

- an integer tensor with a Python float, and ``/`` of integers, give the default float dtype
  (NumPy: float64);
- a 0-d tensor promotes with less priority than a tensor with dims of the same category
  (float32 vector times float64 0-d tensor is float32; NumPy: float64);
- a Python number is weakly typed: a per-example value that is a Python number (``float(x)``,
  ``x.item()``, ``math.sin(x)``, a literal chosen by an ``if``) stays a Python number in the
  examples (``EXAMPLE_SEMANTICS.weak``), and yields to the tensors it meets.

Python numbers are left as they are; only NumPy examples become tensors (on the CPU: the
examples are a few elements, whatever device the arguments live on).
"""

from __future__ import annotations

import contextlib
import operator

import numpy as np

from ...abstract import EXAMPLE_SEMANTICS
from ...pytree import is_node, items_of, rebuild
from .dtypes import DTYPE_NAMES, torch_module

_PYTHON_NUMBERS = (bool, int, float, complex)
_IDENTITY_OPS = (operator.is_, operator.is_not)


def to_tensor(example):
    """A NumPy example as the tensor it stands for (0-d for a NumPy scalar), and each one in
    a pytree (tuples, lists, dicts, namedtuples: a vmapped function's arguments) holding
    one; anything else (a Python number, a dtype, None) as it is."""
    if isinstance(example, (np.ndarray, np.generic)) and example.dtype.name in DTYPE_NAMES:
        return torch_module().from_numpy(np.array(example))
    if _holds_example(example):
        return rebuild(example, [to_tensor(e) for e in items_of(example)])
    return example


def of_tensor(value):
    """A tensor itself (one held in a tuple the function closes over) as its example: NumPy
    ones of its dtype and shape; anything else as it is."""
    from .dtypes import is_tensor, numpy_dtype
    if is_tensor(value):
        return np.ones(tuple(value.shape), numpy_dtype(value.dtype))[()]
    return value


def to_example(out):
    """A tensor computed on examples as a NumPy example again (``torch.Size`` as a tuple)."""
    torch = torch_module()
    if isinstance(out, torch.Tensor):
        if str(out.dtype).rpartition(".")[2] not in DTYPE_NAMES:
            raise TypeError(f"a tensor of dtype {out.dtype} has no NumPy example")
        arr = out.detach().resolve_conj().resolve_neg().numpy()
        return arr[()] if arr.ndim == 0 else arr
    if isinstance(out, torch.Size):
        return tuple(out)
    if isinstance(out, tuple):           # torch.return_types (values, indices) included
        return tuple(to_example(o) for o in out)
    return out


def run(fn, *args, **kwargs):
    """``fn`` on the examples, computed by PyTorch (a PyTorch error is a TypeError: the
    operation does not take these dtypes or shapes)."""
    tensors = [to_tensor(a) for a in args]
    kw = {k: to_tensor(v) for k, v in kwargs.items()}
    try:
        out = fn(*tensors, **kw)
    except RuntimeError as exc:
        raise TypeError(str(exc)) from None
    return to_example(out)


def _holds_example(value) -> bool:
    """A NumPy example, or a pytree holding one (``torch.cat([x, y])``, a dict argument of
    a vmapped function)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return True
    return is_node(value) and any(_holds_example(v) for v in items_of(value))


def on_examples(fn):
    """``fn`` as PyTorch computes it on NumPy examples."""
    if fn in _IDENTITY_OPS:
        return fn

    def computed(*args, **kwargs):
        if not any(_holds_example(a) for a in args) and not any(
                _holds_example(v) for v in kwargs.values()):
            return fn(*args, **kwargs)      # Python numbers: Python's own arithmetic
        return run(fn, *args, **kwargs)
    # (its name is the operation's: `analysis.expressions` tells wrapping arithmetic by it)
    computed.__name__ = getattr(fn, "__name__", computed.__name__)
    return computed


class ExampleMethod:
    """A tensor method bound to an example (``w.relu`` of a shared tensor ``w``): called on
    examples, computed by PyTorch. ``__self__`` marks it as a pure method of an example for
    the analysis (`analysis.purity._pure_numpy`)."""

    def __init__(self, example, name: str):
        self.__self__ = example
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        return run(lambda t, *a, **k: getattr(t, self.__name__)(*a, **k), self.__self__,
                   *args, **kwargs)


def example_attribute(example, attr: str):
    """Attribute ``attr`` of a NumPy example standing for a tensor, as the tensor has it."""
    if not isinstance(example, (np.ndarray, np.generic)) or example.dtype.name not in DTYPE_NAMES:
        return getattr(example, attr)
    tensor = to_tensor(example)
    value = getattr(tensor, attr)         # AttributeError: the tensor has none either
    if callable(value) and not isinstance(value, type):
        if attr.endswith("_") and not attr.endswith("__"):
            raise AttributeError(f"`.{attr}()` changes the tensor in place")
        return ExampleMethod(example, attr)
    return to_example(value)


def python_join(a, b):
    """The example of a value that is the Python number ``a`` on some lanes and ``b`` on
    others: a Python number of the wider kind (bool < int < float < complex)."""
    order = {bool: 0, int: 1, float: 2, complex: 3}
    wide = type(a) if order[type(a)] >= order[type(b)] else type(b)
    return wide(1)


class _Semantics:
    """`abstract.EXAMPLE_SEMANTICS` for PyTorch: Python numbers stay weak, and a join is
    what ``torch.where`` of the two examples gives."""

    weak = True

    @staticmethod
    def join(a, b):
        from ...abstract import UNKNOWN
        if type(a) in _PYTHON_NUMBERS and type(b) in _PYTHON_NUMBERS:
            return python_join(a, b)
        torch = torch_module()
        try:
            return run(lambda x, y: torch.where(torch.tensor(True), x, y), a, b)
        except Exception:
            return UNKNOWN


@contextlib.contextmanager
def analysing():
    token = EXAMPLE_SEMANTICS.set(_Semantics)
    try:
        yield
    finally:
        EXAMPLE_SEMANTICS.reset(token)


def materialized(example) -> np.dtype:
    """The dtype the batched code holds a per-example value in: the example's (a Python
    number: float64, int64, bool, complex128, its exact value)."""
    return np.asarray(example).dtype
