"""What an array namespace must tell the engine: the `Backend` protocol.

Generated code is written for one array namespace (NumPy, PyTorch), chosen per specialization
from the call's arguments. Everything the engine needs to know about that namespace is one
`Backend` object:

- **its rules**: ``registry`` (`vectorize.rules.registry.Registry`), every "how does operation
  X batch" rule written in the namespace's spelling;
- **what the passes write themselves** (the *primitives*: the rules say how the user's
  operations batch, the passes also write a few operations of their own): the lane indices of
  a mask and the gathers and scatters of compaction, new arrays for values that become per
  example, the array of a per-example fallback, the number of elements of an array, a copy in
  another dtype, and the context that silences floating-point warnings on thrown-away lanes.
  Each method returns source text; its arguments are source text too (placeholders such as
  ``"{v}"`` stay placeholders, so a result can be a template for
  ``syntax.templates.expr``). The passes write no namespace name themselves
  (``tests/test_primitives.py`` checks it);
- **code generation**: the name generated code calls the namespace by (``alias``) and the
  module behind it (`module`);
- **the boundary**: which argument values belong to it (`claims`), and how an argument becomes
  an *example* for the analysis. Examples are always NumPy values (the analysis infers dtypes
  and shapes by running operations on them, `vectorize.analysis`); a backend whose arrays are
  not NumPy arrays maps them to NumPy examples of the same dtype and per-example shape, and
  gives its rules ``infer`` functions that compute on those.

A new backend is one folder under ``vectorize/backends/`` with a `Backend` subclass and its rule
tables (``docs/design.md``, "Backends").
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys

import numpy as np


class Backend:
    """One array namespace. Subclasses set the class attributes and override what differs."""

    name = "?"              # "numpy", "torch": part of every specialization key
    alias = "?"             # the name generated code calls the namespace by ("np")
    module_name = "?"       # the module behind it ("numpy")
    arrays = "arrays"       # what its arrays are called ("tensors")
    quiet: str | None = None   # a context expression under which nothing warns, if any

    # What generated code in this namespace may do. The engine asks these flags, never a
    # backend's name.
    in_place_writes = True   # arrays the function creates may be written into (`y[i] = v`)
    compaction = True        # branches and loops may run on gathered lanes (`gather`,
    #                          `scatter`); without it every per-example `if` and loop selects
    # without `compaction`: the file rewriter's code, which runs un-jitted, may still gather
    # the lanes of an `if` whose branch calls a helper that may raise (`compact_ifs`: the
    # select form would call it on every lane; its checks make the function unjittable anyway)
    unjitted_compaction = False
    scatter_casts = True     # `scatter` converts the values to the array's dtype (else
    #                          `compact` converts a branch's values of another dtype first)
    chunked_runs = True      # the runtime may split a call into chunks of the batch and time
    #                          the select form against the compacted one (`chunks.run`); else
    #                          one call (the library blocks and threads its own work)
    threads = True           # its functions may run on several threads at once (chunks do)
    takes_numpy = False      # its compiled functions take NumPy arrays as they are (converted
    #                          once, as they run), so a NumPy-in call need not convert them
    unmapped_numpy = None    # `vmap` leaves a NumPy array it does not map (in_axes None) as
    #                          it is, as the library's own vmap does (its NumPy calls on it
    #                          compute in NumPy): why such an array beside the library's own
    #                          mapped arrays is refused; None: converted as the others
    warm_by_dtype = False    # its arrays' dtype key, rank and type say all a specialization
    #                          depends on: a warm `vmap` call may skip planning (`_FastPath`)
    owned_temporaries = True  # generated code may update the arrays it just made in place
    #                          (`y = 2 * x` then `y += 1`: `passes/temporaries.py`)
    exception_checks = True  # `vectorize`'s checks of Python's exceptions may be written
    #                          (`passes.python_raises`)
    eager_raises = True      # its batched code raises as it runs, so where it raises the caller
    #                          may run the per-example loop to decide (`vmap` and `vectorize`
    #                          replay); traced code (JAX) raises at trace time instead,
    #                          where only an exception marked ``whole_batch`` (raised for
    #                          the whole batch, as NumPy's) is replayed
    statement_replays = True  # where a `raise` statement of the generated code (a check of
    #                          what raises per example) fires, `vmap` replays the loop: so a
    #                          `try` is lowered to per-example handlers (`passes.try_except`),
    #                          and a lane that raises what the lowering cannot test replays
    float_warnings = False   # `vmap`'s per-example values warn for float errors as NumPy's
    #                          do (RuntimeWarning), which `warnings.simplefilter("error")`
    #                          makes exceptions (`passes.try_except`); tensors do not warn
    item_views = False       # an item read (`y[0]`) is a view of the array per example
    #                          (PyTorch's 0-d tensors), not a number: refused where a later
    #                          write would change it; `x += v` of a per-example scalar
    #                          changes it in place, in its own dtype (`analysis.aliasing`)
    views = True             # a subscript, `.T`, `.reshape()`... may share memory with its
    #                          array, as NumPy's do (JAX's arrays are values: `analysis.aliasing`
    #                          refuses a view read after its array is written into)
    string_arrays = False    # arrays of strings (a table of strings indexed per example)
    sequence_operands = False  # its `where` takes a tuple or list of numbers as an array
    masked_writes = False    # `y[mask] = v` with a per-example mask may be written
    #                          (`masked_write`; `analysis.aliasing`)
    analysed_scalars = False  # its `scalar(x, dtype)` may be written into the scalar code
    #                          before the analysis, which reads it (`python_raises`: a
    #                          Python number meeting a float32 made a float32 there)
    weak_python_numbers = False  # per example a Python number meeting a narrow float keeps
    #                          the narrow type (NEP 50), which `vmap` must reproduce where its
    #                          batch holds the numbers as float64 (`rules.operators`)
    keys_by_value = True    # a per-example scalar (NumPy's, JAX's: as the number it holds)
    #                          is a dict key by its value; False: PyTorch's 0-d tensor hashes by
    #                          identity, so per example `TABLE[k]` finds no key (`vmap` refuses
    #                          a dict looked up by one; a Python number per example, `int(k)`,
    #                          is looked up by value)
    python_number_items = False  # an item of a table of Python numbers (`TUP[k]`,
    #                          `TABLE[k]` of a dict) looked up per example is that Python number,
    #                          weak in what it meets next, as its rules tell from the example's
    #                          type (PyTorch's: ``TUP[k] * x`` of a float32 ``x`` is float32)
    narrowing_joins = False  # a per-example Python int that meets an int array narrower
    #                          than int64 at a merge (`r = y` of an int32 on some lanes,
    #                          `r = x.item()` on others) is converted to it there, wrapping,
    #                          where per example the lane keeps the int (PyTorch's
    #                          `torch.where`): `vmap` checks that it fits and else replays
    #                          (`passes.python_raises`)
    unsigned_comparisons = False  # its comparisons of a uint64 with an int64 are exact
    #                          (NumPy's `qQ->?` loops, NumPy 2): `vectorize` compares them as
    #                          Python compares the two ints (`passes.python_raises`)
    int_power_checks = False  # `vmap` writes NumPy's ValueError of an integer to a negative
    #                          integer power, which its batched code does not raise (JAX's)
    python_int_power_raises = False  # `vmap` writes the RuntimeError a per-example int
    #                          tensor raises raised to a negative per-example Python int
    #                          (PyTorch: `a ** int(b)`; its batched int64 exponent does not)
    scalar_tail = False      # a compacted loop's last few lanes may finish in Python floats
    #                          (`passes.compact`): its float64 arithmetic is IEEE's, bit for
    #                          bit what Python's floats give
    big_int_results = True   # a result may be a Python int beyond int64 (NumPy: an object
    #                          array of it); PyTorch's and JAX's stacking of one raises, so
    #                          one known before the call (a constant) is refused, located
    float_literals = False   # an int literal beside a per-example float array is written as
    #                          the float it equals (`x > 5` as `x > 5.0`): the same values
    #                          and dtype, where NumPy converts a Python int operand more
    #                          slowly than a float (`rules.operators.float_literals`)
    dtypes: frozenset[str] | None = None    # the NumPy dtype names it computes in (None: all)
    # how to draw random numbers for every example instead of Python's `random` (its
    # refusal says it)
    random_hint = "the namespace's own random functions"
    # other modules generated code may call by a name of their own (alias -> module name,
    # ``{"lax": "jax.lax"}``), imported by the generated module where its code names them
    extra_modules: dict[str, str] = {}
    # top-level modules whose functions `vmap(f)` may wrap as ``alias.name`` (`vmap(np.sin)`)
    function_modules: tuple[str, ...] = ()

    def __init__(self):
        # how the passes recognise what they wrote: a `with` on any call of `quiet`'s
        # function, and the calls that only move data (they cannot warn)
        self.quiet_prefix = self.quiet.partition("(")[0] + "(" if self.quiet else None
        self.data_calls = frozenset(call.partition("(")[0] for call in (
            self.lanes_of("m"), self.full("s", "v", "d"), self.empty("s", "d")))
        self._registry = None

    def __repr__(self) -> str:
        return f"<vectorize backend {self.name}>"

    # ------------------------------------------------------------------------------ rules
    @property
    def registry(self):
        """The rule tables, built on first use."""
        if self._registry is None:
            self._registry = self.build_registry()
        return self._registry

    def build_registry(self):
        raise NotImplementedError

    def rule_examples(self) -> tuple[dict, set, set]:
        """(name -> example, random, refused) of the rules only this backend has, for
        ``docs/rules.md``: an example is the fields of a `rules.examples.Example` (a dict), run
        on the backend's arrays; the random ones are not compared with a loop, the refused ones
        show their refusal."""
        return {}, set(), set()

    def rule_example_arguments(self, args: tuple, written: str) -> tuple:
        """The arguments of a rules-page example (NumPy arrays and numbers, ``written`` as the
        example spells them) as this backend's arrays."""
        return args

    # ------------------------------------------------------------------ code generation
    def module(self):
        """The namespace's module (imported on first use: an optional dependency)."""
        return importlib.import_module(self.module_name)

    def finish_function(self, func_def, ctx):
        """A generated function (`libcst.FunctionDef`, after every pass of
        ``pipeline.PIPELINE``) as this namespace runs it: a backend that compiles its code
        (JAX's ``jit``) rewrites what its compiler cannot take here, or refuses it
        (`errors.Unsupported`, located in the user's code). ``ctx``: the function's
        `transform.FunctionJob`. The default keeps it as it is."""
        return func_def

    # the namespace's function that broadcasts arrays against each other (the file
    # rewriter's wrapper of a `vectorize` function with several batched arguments)
    broadcast_arrays = "broadcast_arrays"
    # a file's rewritten function converts a batched argument to the float (or complex)
    # dtype its parameter is rewritten for (`rewrite.boundary.wrapper`): the backend's
    # writes into a result of one dtype raise for lanes of another (PyTorch)
    converts_arguments = False

    def file_setup(self) -> tuple[dict, list[str]]:
        """What a file the rewriter writes for this namespace runs before its functions:
        (alias -> module to import, module-level statements after the imports). The
        default: nothing."""
        return {}, []

    def runnable(self, function, source: str):
        """What the front ends call for a loaded generated ``function`` (its module's text
        ``source``): a backend that compiles code wraps it here. The default: itself."""
        return function

    # --------------------------------------------------------------------- the boundary
    def claims(self, value) -> bool:
        """Whether an argument value is one of this namespace's arrays."""
        raise NotImplementedError

    def supports_dtype(self, dtype) -> bool:
        """Whether generated code can compute in the NumPy dtype ``dtype``."""
        return self.dtypes is None or dtype.name in self.dtypes

    def as_result(self, value):
        """A result of generated code as one of the namespace's arrays, None where it is not
        one (a Python value the code returned as it is)."""
        return value if self.claims(value) else None

    def from_numpy(self, array, like=None):
        """A NumPy array (an argument of a call that asked for this backend by name) as one
        of the namespace's arrays, its dtype kept (on the device of ``like``, one of its
        arrays, where devices matter)."""
        raise NotImplementedError

    def broadcast_to(self, array, shape: tuple):
        """One of the namespace's arrays broadcast to ``shape`` (a view where it can be)."""
        raise NotImplementedError

    def cast(self, array, dtype):
        """One of the namespace's arrays in the NumPy dtype ``dtype`` (``otypes``)."""
        raise NotImplementedError

    def to_numpy(self, value):
        """A result (one of the namespace's arrays) as a NumPy array, for a call whose
        arguments were NumPy's."""
        return np.asarray(value)

    def numpy_runner(self, function):
        """``function`` (a generated function as `runnable` made it, whose result is one
        array) as a call on NumPy arguments giving a writable NumPy array of its own (its
        `to_numpy`, nothing shared with the arguments), where the backend has a quicker one
        than the call and `to_numpy`; else None."""
        return None

    def warm_runner(self, function):
        """``function`` (as `runnable` made it) as a fast path calls it: on arguments of the
        same types on every call (the fast path checks them), a quicker call where the
        backend has one."""
        return function

    def example_of(self, array, batched: bool):
        """A NumPy example of one of the namespace's arrays: its dtype and (per-example,
        when ``batched``: without axis 0) shape."""
        raise NotImplementedError

    def refuse_in(self, reg) -> None:
        """Add to ``reg``, another backend's registry, the rules with which it refuses,
        located, this backend's library functions called on per-example values (JAX:
        `jax.lax` and `jax.numpy` functions, which only the JAX backend batches); none by
        default (`backends.refuse_others`)."""

    def owns_function(self, fn) -> bool:
        """Whether ``fn`` is the library's own (``torch.split`` is Python code): mapped by its
        rules or refused, never read as the user's code. Its module is the library's, or its
        code lies in the library's folder (a wrapper the library made: `torch.func.grad(f)`);
        the library is not imported to tell."""
        module = getattr(fn, "__module__", None) or ""
        if module == self.module_name or module.startswith(self.module_name + "."):
            return True
        library = sys.modules.get(self.module_name)
        code = getattr(fn, "__code__", None)
        folder = os.path.dirname(getattr(library, "__file__", None) or "")
        return bool(folder) and code is not None and code.co_filename.startswith(
            folder + os.sep)

    def in_place_method(self, fn) -> str | None:
        """The name of the method of the library's arrays that does what the library's
        function ``fn`` does in place to its first argument (``torch.clamp_min_(x, v)`` is
        ``x.clamp_min_(v)``), None where there is none. The library is not imported to
        tell."""
        return None

    def owns_instance(self, value) -> bool:
        """Whether ``value`` is a callable object of the library (a ``torch.nn.Module``):
        mapped by its rule (`frontend.rule_wrapper`), never read as the user's code. The
        library is not imported to tell."""
        return False

    def grad_transform(self, fn):
        """``(f, argnums, has_aux, with_value)`` where ``fn`` is the library's gradient
        transform of ``f`` (``torch.func.grad(f, argnums, has_aux)``, ``with_value`` False;
        ``grad_and_value``, True), which `vmap` computes per example (`vmap_grad`); else None.
        The library is not imported to tell."""
        return None

    def names_dtype(self, text) -> bool:
        """Whether ``text`` is one of the namespace's dtypes as ``str`` spells it
        (``"torch.float64"``; a namespace whose dtypes are NumPy's says no)."""
        return isinstance(text, str) and text.startswith(self.module_name + ".")

    # ------------------------------------------------- the analysis' view of examples
    # The analysis computes on NumPy examples; a namespace whose operators promote dtypes
    # differently says how its own would compute on them (NumPy: as they are).
    def on_examples(self, fn):
        """``fn`` (an operator) as the namespace computes it on examples."""
        return fn

    def from_examples(self, value):
        """What a function `on_examples` returned (one leaf of it), a NumPy example again."""
        return value

    def example_attribute(self, example, attr: str):
        """Attribute ``attr`` of an example of a value the same for every example (a method
        comes back as a callable on examples)."""
        return getattr(example, attr)

    def analysing(self):
        """A context the analysis runs in (how examples join, `abstract.EXAMPLE_SEMANTICS`)."""
        return contextlib.nullcontext()

    # ------------------------------------------------------ runtime (the front ends)
    def numpy_call(self, args, kwargs):
        """A context to run a call with this backend on NumPy arrays in (its reference is
        NumPy's: the library promoting as NumPy does), or None where none is needed."""
        return None

    def dtype_key(self, array) -> str:
        """A short, hashable name of an array's dtype (part of a specialization key)."""
        raise NotImplementedError

    def state_print(self):
        """What of the library's global state the generated code depends on (a JSON-able
        value, part of the memo's and the disk cache's keys), or None."""
        return None

    def moveaxis(self, array, source: int, destination: int):
        raise NotImplementedError

    def take(self, array, index: int, axis: int):
        """Item ``index`` along ``axis`` (one example of a batch)."""
        raise NotImplementedError

    def stack(self, items):
        """The items (one per example) stacked along a new axis 0."""
        raise NotImplementedError

    def concatenate(self, parts):
        """Its arrays (the outputs of chunks of one batch) joined along axis 0."""
        raise NotImplementedError

    def broadcast_batch(self, value, size: int, like=None):
        """``size`` copies of a value the same for every example, as a new array (on the
        device of ``like``, an argument of the call, where devices matter)."""
        raise NotImplementedError

    # -------------------------------------------------------- what the passes write
    def lanes_of(self, mask: str) -> str:
        """The indices of the true lanes of a 1-d boolean mask, ascending."""
        raise NotImplementedError

    def count(self, mask: str) -> str:
        """How many lanes of a mask are true."""
        raise NotImplementedError

    def size(self, x: str) -> str:
        """The number of elements of an array (of lane indices)."""
        raise NotImplementedError

    def empty(self, shape: str, dtype: str, like: str | None = None) -> str:
        """A new array (on the device of the array named ``like``, where devices matter)."""
        raise NotImplementedError

    def full(self, shape: str, value: str, dtype: str | None, like: str | None = None) -> str:
        """A new array of ``value`` (which may itself be an array of the namespace); of
        ``value``'s own dtype where ``dtype`` is None."""
        raise NotImplementedError

    def shape(self, x: str) -> str:
        """The shape of an array or scalar, as a tuple."""
        raise NotImplementedError

    def astype(self, x: str, dtype: str) -> str:
        """A copy of the array ``x`` in ``dtype`` (always a new array)."""
        raise NotImplementedError

    def result_type(self, *values: str) -> str:
        """The dtype a select (``where``) of the values gives."""
        raise NotImplementedError

    def repeat(self, x: str, n: str) -> str:
        """``n`` copies of the array ``x`` along a new first axis."""
        raise NotImplementedError

    def masked_write(self, y: str, v: str, mask: str) -> str:
        """A statement writing ``v`` (broadcast, cast as an item assignment casts) into the
        elements of the array ``y`` where ``mask`` holds, in place."""
        from ..errors import Unsupported
        raise Unsupported(f"a write into an array through a per-example mask on {self.name}",
                          suggestion="use where(mask, v, y)")

    def slice_mask(self, lower, upper, shared: bool = False) -> str:
        """The positions ``v[{lo}:{hi}]`` keeps of the vector ``{v}``, batch axis first
        (a template; a bound None: not written, else True where it is per example, False
        where not, "nonnegative" where it is an int >= 0 the same for every example;
        ``shared``: ``{v}`` is the same for every example, an array or a list)."""
        from ..errors import Unsupported
        raise Unsupported(f"a slice with per-example bounds on {self.name}",
                          suggestion="use where(index comparison, v, 0) and reduce that")

    def stack_pieces(self, pieces: list[str], batched: tuple) -> str:
        """A list display of values (``batched``: which are per example, at least one) as the
        batch of the per-example arrays it makes (``np.asarray([a, b])`` per example): the
        pieces stacked after the batch axis, those the same for every example broadcast."""
        from ..errors import Unsupported
        raise Unsupported(f"a list of per-example values as one array on {self.name}",
                          suggestion="stack the values yourself")

    def array_of(self, items: str) -> str:
        """An array of a list of per-example results."""
        raise NotImplementedError

    def array_of_lanes(self, items: str, lanes: str, dtype) -> str:
        """`array_of` the list of one scalar of ``dtype`` per lane of the batched name
        ``lanes``; with no lanes, an empty array of ``dtype`` where `array_of` would fail."""
        return self.array_of(items)

    def dtype_code(self, dtype) -> str:
        """A NumPy dtype (the analysis' examples are NumPy values) in this namespace's
        spelling, exactly."""
        raise NotImplementedError

    def lanes_index(self, x: str) -> str:
        """``0, 1, ..., len(x) - 1`` (on ``x``'s device), to pick one element per lane."""
        raise NotImplementedError

    def where(self, cond: str, a: str, b: str) -> str:
        """``a`` on the lanes where ``cond`` holds, else ``b``."""
        raise NotImplementedError

    def blend(self, cond: str, a: str, b: str) -> str | None:
        """`where` of two per-example numbers of one dtype (rank 0, the same shape), spelled
        as what computes it fastest on masks in no order, or None: `where` itself."""
        return None

    def blend_pass(self, cond: str, a: str, b: str) -> str | None:
        """`where` merging a carry of a compacted loop's pass, ``a`` (its new value) on the
        lanes of ``cond`` (the loop's mask) and ``b`` (its old one) elsewhere, both
        per-example numbers of the carry's dtype, spelled as what computes it fastest on a
        mask that changes from pass to pass, or None: `where` itself."""
        return None

    def in_place_step(self, target: str, op: str, operand: str) -> str | None:
        """``target <op> operand`` (``op``: ``+ - * /``) of ``target``, a new array of
        per-example arrays that nothing else holds, spelled as what computes it in
        ``target`` where the result has its shape and dtype (checked when it runs: per-example
        shapes are not part of a specialization) and is the operator itself otherwise, or
        None: the operator (`passes.temporaries`)."""
        return None

    def extremum(self, ufunc: str, c: str, a: str) -> str | None:
        """The namespace's ``ufunc`` (``"maximum"`` or ``"minimum"``) of a number ``c`` (the
        first operand: it keeps ``a`` on ties) and per-example floats ``a``, spelled as what
        computes it fastest, or None: the ufunc itself. What it spells takes ``out=`` as the
        ufunc does (`helper_ufuncs`)."""
        return None

    helper_ufuncs: frozenset = frozenset()
    """``(module, name)`` of the helpers generated code calls like the namespace's ufuncs of
    one output (a new array, or ``out=``; `passes.temporaries` writes into fresh arrays with
    them as with `makes_new_array`'s)."""

    helper_reductions: dict = {}
    """``(module, name)`` of the helpers generated code calls like the namespace's ``any`` or
    ``all`` of one array (`zero_lane`'s) -> which of the two: `passes.compact` reads them as
    it reads those (elementwise, a lane's truth in its scalar tail)."""

    fresh_helpers: frozenset = frozenset()
    """``(module, name)`` of the other helpers generated code calls whose result is a new array
    that nothing else holds (`passes.temporaries` may write into it), without ``out=``."""

    def logical_not(self, a: str) -> str:
        raise NotImplementedError

    def truth(self, x: str, kind: str) -> str:
        """A value of NumPy dtype kind ``kind`` as the condition of a `where` (Python's
        truth of each lane); the value itself where the namespace's `where` takes any."""
        return x

    def scalar(self, x: str, dtype) -> str:
        """The Python number ``x`` as the namespace's scalar of NumPy dtype ``dtype``, which
        divides by zero as arrays do (IEEE values, no exception)."""
        raise NotImplementedError

    def joined(self, a: str, b: str, a_dtype, b_dtype) -> tuple[str, str]:
        """The two sides of a per-example choice (``where``) of NumPy dtypes ``a_dtype`` and
        ``b_dtype`` (per example NumPy numbers of those types, which the loop's results
        join as ``np.result_type`` does), converted where the namespace joins them
        otherwise."""
        return a, b

    def strongly_typed(self, x: str, dtype) -> str | None:
        """The value ``x`` of a NumPy call on values the same for every example (``np.floor(7)``,
        a NumPy scalar or array of NumPy dtype ``dtype`` where the per-example code runs),
        as the namespace must hold it to promote as NumPy does: None where the namespace's
        call gives that dtype itself (JAX's functions of Python numbers give weakly typed
        values, which take the type of what they meet)."""
        return None

    def einsum(self, subscripts: str, operands: list[str], matrix_product: bool) -> str:
        """An einsum of the operands (``matrix_product``: both keep free axes, worth planning
        a BLAS path for)."""
        raise NotImplementedError

    def matmul(self, subscripts: str, operands: list[str]) -> str | None:
        """The two-operand einsum ``subscripts`` of numeric arrays as a matrix product
        (``a @ w.T``) where this backend computes that one faster; None: the einsum."""
        return None

    def dtype_named(self, dtype) -> str:
        """The namespace's scalar type named after the dtype (``np.int64`` for a
        ``longlong`` too)."""
        raise NotImplementedError

    def with_batch(self, batch: str, shape: str) -> str:
        """The tuple of the batch length and a per-example shape (an int, a tuple or an
        array of ints)."""
        raise NotImplementedError

    # `vmap` gives a result of lanes of different types of number the type the loop's
    # stack gives the lanes of each call (`passes.lane_kinds`, `settle_kinds`); else the join
    settles_lane_kinds = False

    def settle_kinds(self, value: str, kinds: str, table: str) -> str:
        """``value`` (a per-example number joined from lanes of different types) cast to the
        result type of the dtype names ``table`` lists at the codes ``kinds`` holds."""
        raise NotImplementedError

    def any_lane(self, mask: str) -> str:
        """Whether any lane of a 1-d boolean mask is true, as a condition of ``if``/``while``
        (a masked loop runs while one does, a ``raise`` happens if one would)."""
        raise NotImplementedError

    def zero_lane(self, value: str) -> str | None:
        """Whether any lane of a 1-d numeric array is zero (``0``, ``-0.0``; not NaN), as a
        condition of ``if`` (a division by zero raises if one would), where the backend has
        a cheaper spelling than `any_lane` of ``value == 0``; else None."""
        return None

    def first_lane(self, mask: str) -> str:
        """The index of the first true lane of a 1-d boolean mask with one (the example
        whose values make an exception's message)."""
        raise NotImplementedError

    # whether `warn_lanes` is spelled: otherwise a warning with a per-example message is
    # issued once, with the first example's message (`guard_indices`)
    warns_per_lane = False

    def warn_lanes(self, mask: str) -> str:
        """The indices of the true lanes of a 1-d boolean mask, in order, as something a
        Python ``for`` iterates (the examples whose warnings are issued)."""
        raise NotImplementedError

    def checked_index(self, index: str, size: int | str) -> str:
        """A per-example integer index into an axis of ``size`` items (a number, or code
        that reads it from the array: ``x.shape[-1]``) (``x[k]`` with a
        batched ``k``), as the backend checks it: per example an index out of bounds raises
        IndexError on the lanes that evaluate it. The default: the index itself (the
        namespace's own indexing raises)."""
        return index

    def gather(self, x: str, lanes: str) -> str:
        """The rows ``lanes`` (lane indices, or a 1-d boolean mask of the rows to keep) of
        the array ``x``, as a new array."""
        return f"{x}[{lanes}]"

    def gather_kept(self, x: str, keep: str) -> str:
        """The rows at the lane indices ``keep`` (an array of ints in increasing order, never
        a mask) of the array ``x``, as a new array: a compacted loop's arrays shrunk to its
        running lanes. The default: `gather`."""
        return self.gather(x, keep)

    def scatter(self, x: str, lanes: str, values: str) -> str:
        """A statement that writes ``values`` into the rows ``lanes`` of the array ``x``, in
        place (compaction: the gathered lanes put back)."""
        return f"{x}[{lanes}] = {values}"

    def put_back(self, x: str, lanes: str, values: str) -> str:
        """A statement that puts a compacted loop's lanes (``values``: an array of the lanes
        ``lanes``) back into the carried array ``x``; by default `scatter`, in place."""
        return self.scatter(x, lanes, values)

    def copy(self, x: str) -> str:
        """A copy of the array ``x`` (one a later write into ``x`` does not change)."""
        raise NotImplementedError

    def makes_new_array(self, function: str) -> bool:
        """Whether a call of the namespace's ``function`` (``alias.function(...)``, without
        ``out=``) always returns a new array that nothing else holds, which generated code
        may then update in place (`passes.temporaries`). The default: never assumed."""
        return False

    def scalar_power(self, a: str, b: str | None, dtype, once: bool) -> str | None:
        """``a ** b`` of a float array ``a`` and an exponent the same for every example, as
        the per-example operator on the backend's scalars computes it where the array loop
        takes another path (``b`` None: the literal 0.5), a ``dtype`` array; ``once``: ``a``
        is written once (it may not be pure); None: the operator as it is."""
        return None

    def python_complex(self, operator: str) -> str | None:
        """The function computing ``a * b`` (``operator`` ``"*"``), ``a / b`` (``"/"``),
        ``a + b`` (``"+"``) or ``a - b`` (``"-"``) of per-example Python numbers of which one
        is complex as CPython does (no fused products, its division's steps: the last bits;
        sums part by part), called with ``(a, b)``; None: the operator as it is."""
        return None

    def lookup(self, table: str, key: str, default: str | None = None) -> str:
        """``table[key]`` of a dict of numbers (``table``, the same for every example) by
        per-example keys (``key``), raising Python's KeyError where one is missing;
        ``table.get(key, default)`` where ``default`` is given (by default `pymath.lookup`,
        which runs op by op on arrays it can convert)."""
        if default is not None:
            return f"pymath.lookup({table}, {key}, {default})"
        from ..errors import Unsupported
        raise Unsupported("a dict looked up by a per-example key",
                          suggestion="use a tensor indexed by an integer")

    def constant_array(self, items: str, dtype, like: str | None = None) -> str:
        """An array of a constant list or tuple of Python numbers (indexed by per-example
        integers), in ``dtype`` (the NumPy dtype the numbers make, as Python holds them),
        on the device of the array ``like`` where devices matter."""
        raise NotImplementedError
