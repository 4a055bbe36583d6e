"""How generated JAX code runs: `Compiled`, the function under ``jax.jit`` with x64 enabled.

**x64.** JAX computes in 32 bits unless 64-bit types are enabled, and the per-example code a
batch must match computes in the input's dtype (float64 for Python floats and float64 arrays).
Every call runs in ``jax.enable_x64(True)`` (entered where 64-bit types are off), a context
(thread-local, restored after; the process-wide default is left alone): tracing and compiling
happen inside it too (``jit`` keys its cache on the setting), so the jitted code holds
float64/int64 where the analysis said so. Float32 inputs stay float32: enabling x64 changes
only what 64-bit values may be.

**Specializations.** ``jax.jit`` compiles once per shape and dtype of the traced arguments
and per value of the static ones, as its cache does. Arrays (JAX, NumPy, NumPy scalars) and
Python floats and complex numbers (weakly typed, as ``jit`` traces them: a new value is no
new compile) are traced; other Python values (ints, strings, None, flags) are static, as the
generated code may test them in Python (``if n > 0:`` on an unbatched ``n`` stays a Python
``if``); a Python float the code tests so makes the specialization's floats static. Where a
value the code tests in Python turns out traced (an unbatched NumPy scalar or array),
tracing fails and the next level is tried: NumPy scalars static too, then op by op (no
``jit``, still JAX's operations; correct, slower), remembered for later calls.

**Exceptions** (``vectorize``'s Python semantics, a user's ``raise``): the generated code
checks ``if jnp.any(<lanes that raise>): raise ...`` (after a ``lax`` loop whose body has
checks: ``if error == 1: raise ...``, `loops`), which cannot run under ``jit``. The jitted
twin of the code (`jit_twin`, never shown: `.source()` shows the code with its ``raise``)
has each such check as ``checkify.check``: it computes on the device whether some live lane
fails and gives the flag back with the results. When one is set, the code runs again op by
op (``jax.disable_jit``, loops too), where the ``raise`` happens exactly as written (its
message from the first failing lane); `vectorize` then replays numpy.vectorize as it does for
NumPy code. Nothing raises inside ``jit``, and no failing lane is ever silently kept.

**NumPy results** (`to_numpy`: NumPy arguments in, NumPy arrays out) are writable arrays of
their own. JAX gives NumPy only a read-only view of a result's buffer, so a small result is
copied; a large one (`VIEW_MIN_BYTES`) that a jitted call has just made (`mark_fresh`) is
handed out as a writable NumPy array over XLA's buffer itself, no copy: that buffer is the
call's own (XLA makes a new one for every result of every call and writes it only in that
call; nothing else holds the ``jax.Array``), and the array holds it through the buffer
protocol (an external reference: XLA frees it only when the NumPy array and its views are
gone, even if the ``jax.Array`` is deleted). `results_are_own` checks once per process that
this JAX gives ``jit``'s results buffers of their own (none forwarded from an argument or a
constant, none shared between two results); where it does not, every result is copied.
"""

from __future__ import annotations

import ast
import ctypes
import threading
import weakref

import numpy as np

_NDARRAY = np.ndarray
_CHECKIFY = "__vectorize_checkify__"
_IN_BOUNDS = "in_bounds"       # (`writes.IN_BOUNDS`)
_CHECKED_CALLS = frozenset({_IN_BOUNDS, "dict_lookup"})     # (and `lookups.DICT_LOOKUP`)
_JNP_ANY = ("jnp", "any")


_JAX = []     # the jax module, once imported (`jax_module`)
_X64 = None     # ``jax.enable_x64`` (its ``.value``: whether 64-bit types are on here)
_X64_SWAP = None    # its ``swap_local``, where entering it needs nothing more (`_x64_swap`)


def jax_module():
    global _X64, _X64_SWAP
    if not _JAX:
        import jax
        _X64 = jax.enable_x64
        _X64_SWAP = _x64_swap(_X64)
        _JAX.append(jax)
    return _JAX[0]


def _x64_swap(state):
    """``state.swap_local`` where ``with state(True):`` is that and ``set_local`` of the
    value it gave back (a JAX whose setting has no thread-local hook), else None.

    ``with jax.enable_x64(True):`` builds a context manager object per call, about 2 µs of a
    warm call of a few (64-bit types off, JAX's default); setting this thread's value
    directly costs a fifth of that. Checked once: the value set is seen, and set back."""
    swap, set_local = getattr(state, "swap_local", None), getattr(state, "set_local", None)
    if not callable(swap) or not callable(set_local) or \
            getattr(state, "_update_thread_local_hook", True) is not None:
        return None
    try:
        before = state.value
        prev = swap(True)
        try:
            seen = state.value
        finally:
            set_local(prev)
        return swap if seen is True and state.value == before else None
    except Exception:   # noqa: BLE001 -- any doubt: the context manager
        return None


def _in_x64(jitted, args):
    """``jitted(*args)`` with 64-bit types entered (a warm call where they are off)."""
    swap = _X64_SWAP
    if swap is None:
        with _X64(True):
            return jitted(*args)
    prev = swap(True)
    try:
        return jitted(*args)
    finally:
        _X64.set_local(prev)


def as_array(value):
    """A value as a JAX array, 64-bit values kept (under x64)."""
    jax = jax_module()
    with jax.enable_x64(True):
        if type(value) is np.ndarray and value.dtype.kind in _PUT_KINDS and \
                value.dtype.isnative:
            # a copy of its own on the device, as ``jnp.asarray`` gives, without the jitted
            # copy ``jnp.asarray`` runs (an XLA compile for every new shape); the copy is
            # NumPy's, as ``device_put`` may hand XLA the array's own memory
            return jax.device_put(np.array(value))
        return jax.numpy.asarray(value)


_PUT_KINDS = frozenset("biufc")


# -------------------------------------------------------------------- NumPy results
VIEW_MIN_BYTES = 1 << 15
"""From this size a fresh result is handed out without a copy (below it, a copy costs
less than making the view)."""

_FRESH = threading.local()
"""``.refs``: weak references to the results of this thread's last jitted call on NumPy
arguments (`mark_fresh`), the only results `to_numpy` hands out without a copy."""

_OWN: list = []     # `results_are_own`'s answer, once known


def mark_fresh(out) -> None:
    """Remember ``out`` (the results of a jitted call on NumPy arguments: one ``jax.Array`` or
    a tuple of them) as results no one else holds, until they are handed out (`to_numpy`) or
    this thread's next such call."""
    try:
        if type(out) is tuple:
            _FRESH.refs = tuple(weakref.ref(o) for o in out)
        else:
            _FRESH.refs = (weakref.ref(out),)
    except TypeError:       # (not weakly referable: not an array; nothing to remember)
        _FRESH.refs = ()


def _take_fresh(value) -> bool:
    """Whether ``value`` is one of the last jitted call's results not yet handed out (it is
    then no longer: a second conversion of the same object copies)."""
    refs = getattr(_FRESH, "refs", ())
    for i, ref in enumerate(refs):
        if ref() is value:
            _FRESH.refs = refs[:i] + refs[i + 1:]
            return True
    return False


def results_are_own() -> bool:
    """Whether this JAX gives each result of a jitted call a buffer of its own, readable
    from the host through the buffer protocol, at the address ``unsafe_buffer_pointer``
    gives: a jitted function returning its arguments (a NumPy array JAX takes without a
    copy, a ``jax.Array``), a ``jax.Array`` and a NumPy array it closes over, and one value
    twice, checked once per process. False: `to_numpy` copies every result."""
    if not _OWN:
        _OWN.append(_probe_own())
    return _OWN[0]


def _probe_own() -> bool:
    jax = jax_module()
    try:
        with jax.enable_x64(True):
            raw = np.zeros(64 + 8)
            start = (-raw.ctypes.data % 64) // 8    # 64-byte aligned: JAX may alias it
            host = raw[start:start + 8]
            host[:] = np.arange(8.0)
            # (`device_put`, not ``jnp`` operations: each of those would be one more XLA
            # compile, a tenth of a second of the first call)
            given = jax.device_put(np.arange(8.0) + 1.0)
            kept = jax.device_put(np.arange(8.0) * 3.0)
            kept_numpy = np.arange(8.0) * 5.0

            def probe(a, b):
                c = a * 2.0
                return a, b, kept, kept_numpy, c, c

            outs = jax.jit(probe)(host, given)
            addresses = [host.ctypes.data, given.unsafe_buffer_pointer(),
                         kept.unsafe_buffer_pointer()]
            for out in outs:
                if not isinstance(out, jax.Array) or out is given or out is kept:
                    return False
                held = memoryview(out)
                seen = np.frombuffer(held, np.uint8).__array_interface__["data"][0]
                if seen != out.unsafe_buffer_pointer() or not held.c_contiguous:
                    return False
                addresses.append(seen)
            return len(set(addresses)) == len(addresses)
    except Exception:   # noqa: BLE001 -- any failure: copy every result
        return False


_BYTES = ctypes.c_char
_VIEW_TYPES: dict = {}
"""``ctypes.c_char * nbytes`` per result size seen (`_fresh_to_numpy`): making the type again
on every call cost a microsecond of a warm call's few (a batch's size repeats from call to
call); at most `_VIEW_TYPES_KEPT`, the oldest dropped first."""
_VIEW_TYPES_KEPT = 64


def to_numpy(value):
    """A result as a writable NumPy array of its own (module docstring, "NumPy results"):
    XLA's buffer itself where ``value`` is a fresh result (`mark_fresh`) of at least
    `VIEW_MIN_BYTES` on the host, else a copy."""
    if _take_fresh(value):
        return _fresh_to_numpy(value)
    return np.array(value)


def _fresh_to_numpy(value):
    """`to_numpy` of a result no one else holds (one a jitted call has just made)."""
    try:
        held = memoryview(value)    # waits for the values; holds the buffer
    except (BufferError, TypeError):    # not in host memory (a GPU's): copied
        return np.array(value)
    if not held.c_contiguous:
        return np.array(value)
    size = held.nbytes
    # (the size first: a process whose results are all small never runs the probe, a
    # compile of its own)
    if size < VIEW_MIN_BYTES or not (_OWN[0] if _OWN else results_are_own()):
        # a copy of the buffer's bytes (``np.array`` of the ``jax.Array`` itself goes through
        # JAX's ``__array__``, a microsecond more)
        array = np.frombuffer(held, value.dtype)
        return (array if held.ndim == 1 else array.reshape(held.shape)).copy()
    kind = _VIEW_TYPES.get(size)
    if kind is None:
        if len(_VIEW_TYPES) >= _VIEW_TYPES_KEPT:
            del _VIEW_TYPES[next(iter(_VIEW_TYPES))]
        kind = _VIEW_TYPES[size] = _BYTES * size
    memory = kind.from_address(value.unsafe_buffer_pointer())
    memory.held = held
    array = np.frombuffer(memory, value.dtype)
    return array if held.ndim == 1 else array.reshape(held.shape)


def _is_any_lane(node) -> bool:
    """Whether an ``if`` test reads ``jnp.any(...)`` (the engine's test of lanes)."""
    for part in ast.walk(node):
        if isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) and \
                part.func.attr == _JNP_ANY[1] and isinstance(part.func.value, ast.Name) and \
                part.func.value.id == _JNP_ANY[0]:
            return True
    return False


def _loop_results(tree) -> set:
    """The names a ``lax`` loop's call assigns (``_, error, x = lax.while_loop(...)``)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                isinstance(node.value.func, ast.Attribute) and \
                node.value.func.attr in ("while_loop", "fori_loop") and \
                isinstance(node.value.func.value, ast.Name) and node.value.func.value.id == "lax":
            for target in node.targets:
                out |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return out


def _is_carried_check(test, carried: set) -> bool:
    """``error == 3``, where ``error`` is carried by a ``lax`` loop: the number of the check
    that failed in it (`loops._Lowering._carry_checks`)."""
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and \
        test.left.id in carried and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq) \
        and isinstance(test.comparators[0], ast.Constant)


class _Checks(ast.NodeTransformer):
    """``if <test reading jnp.any>: ... raise ...`` (and ``if error == 3: raise ...`` after a
    ``lax`` loop that carries its checks) → ``checkify.check(not test, ...)``."""

    def __init__(self, carried=frozenset()):
        self.count = 0
        self.carried = carried

    def visit_If(self, node):
        self.generic_visit(node)
        if node.orelse or not node.body or not isinstance(node.body[-1], ast.Raise) \
                or not (_is_any_lane(node.test) or _is_carried_check(node.test, self.carried)):
            return node
        self.count += 1
        check = ast.Expr(ast.Call(
            func=ast.Attribute(ast.Name(_CHECKIFY, ast.Load()), "check", ast.Load()),
            args=[ast.Call(func=ast.Attribute(ast.Name("jnp", ast.Load()), "logical_not",
                                              ast.Load()), args=[node.test], keywords=[]),
                  ast.Constant(f"check {self.count} fired")], keywords=[]))
        return ast.copy_location(check, node)


def jit_twin(function, source: str):
    """The generated module's main function with its ``raise`` checks functionalized
    (`_Checks`), compiled from ``source`` in the same globals; (twin, number of checks)."""
    from jax.experimental import checkify
    tree = ast.parse(source)
    checks = _Checks(_loop_results(tree))
    tree = ast.fix_missing_locations(checks.visit(tree))
    # per-example indexes checked in bounds (`writes.in_bounds`) and keys looked up
    # (`lookups.dict_lookup`), each a `checkify.check` where it is traced
    indexes = sum(isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                  and n.func.id in _CHECKED_CALLS for n in ast.walk(tree))
    if not checks.count:
        return function, indexes
    namespace = dict(function.__globals__)
    namespace[_CHECKIFY] = checkify
    exec(compile(tree, function.__code__.co_filename, "exec"), namespace)
    for name, value in list(namespace.items()):
        original = function.__globals__.get(name)
        if value is not original and hasattr(original, "__code__") and hasattr(value,
                                                                               "__code__"):
            value.__defaults__ = original.__defaults__
            value.__kwdefaults__ = original.__kwdefaults__
    return namespace[function.__name__], checks.count + indexes


_FLOATS = (float, complex)


def _traced(value, numpy_scalars: bool, floats: bool = False) -> bool:
    """Whether an argument is passed to ``jit`` traced (else static); ``floats``: Python
    floats and complex numbers traced too (weakly typed scalars, as ``jit`` traces them)."""
    if floats and type(value) in _FLOATS:
        return True
    if isinstance(value, np.generic):
        return numpy_scalars
    if isinstance(value, np.ndarray):
        return True
    if isinstance(value, (list, tuple, dict)):
        # a pytree holding arrays is traced whole (its Python numbers become weakly typed
        # scalars); one of Python values only is static
        items = list(value.values()) if isinstance(value, dict) else value
        return any(_traced(v, numpy_scalars) for v in items)
    jax = jax_module()
    return isinstance(value, jax.Array)


_SIMPLE_TYPES = frozenset({np.ndarray, float, int, complex, bool, str, type(None)})


def _typed(value) -> bool:
    """Whether the type of an argument alone says whether it is traced or static (at a
    given level): arrays, NumPy and Python scalars, strings and None; not containers (their
    items decide) nor other objects (which may be unhashable)."""
    kind = type(value)
    if kind in _SIMPLE_TYPES:
        return True
    if isinstance(value, np.generic):
        return True
    return isinstance(value, jax_module().Array) and not isinstance(
        value, jax_module().core.Tracer)


_TRACE_ERRORS: tuple = ()


def _trace_errors() -> tuple:
    global _TRACE_ERRORS
    if not _TRACE_ERRORS:
        errors = jax_module().errors
        _TRACE_ERRORS = (errors.ConcretizationTypeError, errors.TracerArrayConversionError,
                         errors.TracerIntegerConversionError, errors.UnexpectedTracerError)
    return _TRACE_ERRORS


def _numpy_scalars(args, kwargs) -> bool:
    return any(isinstance(v, np.generic) for v in (*args, *kwargs.values()))


def _python_floats(args, kwargs) -> bool:
    return any(type(v) in _FLOATS for v in (*args, *kwargs.values()))


def _jax_failed(exc: BaseException) -> str | None:
    """Where ``exc`` (raised op by op) is JAX's failure, not the examples': the line of
    generated code it came from ("" where none); None for an exception of the code as
    written (a ``raise`` check, a user's helper, a ``math`` function of Python's).

    JAX's own error types (``ConcretizationTypeError``, ``TracerBoolConversionError``...), and
    any exception whose innermost frame is in ``jax``'s or ``jaxlib``'s code (a ``TypeError``
    of ``jnp`` on an operand it cannot take, an array converted by ``int()``)."""
    import os
    import traceback
    jax = jax_module()
    frames = traceback.extract_tb(exc.__traceback__)
    generated = [f for f in frames if f.filename.startswith("<vectorize:")]
    line = (generated[-1].line or "") if generated else ""
    if isinstance(exc, (jax.errors.JAXTypeError, jax.errors.JAXIndexError,
                        jax.errors.UnexpectedTracerError)):
        return line
    roots = tuple(os.path.dirname(m.__file__) + os.sep for m in _jax_packages())
    if frames and frames[-1].filename.startswith(roots):
        return line
    return None


def _jax_packages() -> list:
    import sys
    return [m for name in ("jax", "jaxlib") if (m := sys.modules.get(name)) is not None
            and getattr(m, "__file__", None)]


class Compiled:
    """A generated function as the front ends call it: jitted, with x64 (module docstring).
    ``python`` is the function itself (what runs op by op)."""

    LEVELS = ("jit", "jit, NumPy scalars static", "op by op")

    def __init__(self, function, source: str):
        self.python = function
        self.source = source
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self.__wrapped__ = function
        self.__doc__ = function.__doc__
        self.level = 0
        self._twin = None
        self.checks = 0
        self._jitted: dict = {}
        # per level below op by op: argument types -> the jitted function (`_typed`)
        self._by_types: tuple = ({}, {})
        # Python floats (and complex numbers) traced at the first level, as `jit` traces
        # them: a new value is no new compile; static from the first trace that fails with
        # one (the code tests it in Python: ``if b > 0:`` with an unbatched ``b``)
        self.floats = True
        self._lock = threading.Lock()

    def __repr__(self):
        return f"<jax.jit of generated {self.__name__}>"

    def twin(self):
        if self._twin is None:
            from jax.experimental import checkify
            twin, self.checks = jit_twin(self.python, self.source)
            self._twin = checkify.checkify(twin) if self.checks else twin
        return self._twin

    def _jit_for(self, args, kwargs, numpy_scalars: bool):
        jax = jax_module()
        floats = numpy_scalars and self.floats
        static = tuple(i for i, a in enumerate(args) if not _traced(a, numpy_scalars, floats))
        static_names = tuple(sorted(k for k, v in kwargs.items()
                                    if not _traced(v, numpy_scalars, floats)))
        for i in static:
            hash(args[i])       # TypeError: cannot be static
        for k in static_names:
            hash(kwargs[k])
        key = (numpy_scalars, floats, static, static_names)
        jitted = self._jitted.get(key)
        if jitted is None:
            with self._lock:
                jitted = self._jitted.get(key)
                if jitted is None:
                    jitted = self._jitted[key] = jax.jit(
                        self.twin(), static_argnums=static, static_argnames=static_names)
        if not kwargs and all(map(_typed, args)):
            # which arguments are static follows from their types alone: later calls with
            # arguments of these types find the jitted function without working it out
            self._by_types[0 if numpy_scalars else 1][tuple(map(type, args))] = jitted
        return jitted

    def __call__(self, *args, **kwargs):
        if not kwargs and not self.level:
            # a warm call: arguments of types jitted before (`_jit_for`); the jitted
            # function itself, x64 entered only where it is off
            types = tuple(map(type, args))
            jitted = self._by_types[0].get(types)
            if jitted is not None:
                try:
                    out = jitted(*args) if _X64.value else _in_x64(jitted, args)
                except Exception:   # noqa: BLE001, S110 -- a new shape failed to trace:
                    pass            # the levels below decide, as for a first call
                else:
                    if self.checks:
                        error, out = out
                        if error.get() is not None:     # as `_call`: raises as written
                            return self.op_by_op(*args)
                    if _NDARRAY in types:     # NumPy in: NumPy out (`to_numpy`)
                        mark_fresh(out)
                    return out
        return self._call(args, kwargs)

    def runner(self, numpy_out: bool):
        """The call of a fast path (``vmap``'s, ``vectorize``'s), whose arguments have the
        same types on every call: the jitted function for those types itself, once a call
        has made it (`_jit_for`), with 64-bit types entered where they are off; a NumPy
        array of its own out where ``numpy_out`` (as `numpy_call`). Any other call (the
        first, one after the levels changed, one whose new shape failed to trace) is
        `numpy_call`'s or `__call__`'s, after which the jitted function is looked up again.
        No argument is checked here: ``jit`` keys its cache on their shapes and dtypes, and
        a value of another type makes it trace again, or fail and fall to the full call."""
        full = self.numpy_call if numpy_out else self.__call__
        found = [None]      # the jitted function for the arguments' types

        def run(*args):
            jitted = found[0]
            if jitted is not None and not self.level:
                try:
                    out = jitted(*args) if _X64.value else _in_x64(jitted, args)
                except Exception:   # noqa: BLE001, S110 -- as `__call__`: the full call
                    pass
                else:
                    if self.checks:
                        error, out = out
                        if error.get() is not None:     # raises as written (`_call`)
                            out = self.op_by_op(*args)
                            return to_numpy(out) if numpy_out else out
                    return _fresh_to_numpy(out) if numpy_out else out
            out = full(*args)
            found[0] = None if self.level else self._by_types[0].get(tuple(map(type, args)))
            return out
        run.__wrapped__ = self
        return run

    def numpy_call(self, *args):
        """The call on NumPy arguments as a writable NumPy array of its own (`to_numpy`),
        where the result is one array. A warm call (arguments of types jitted before; its
        checks, where the code has any, passed) is the jitted function (64-bit types
        entered where they are off) and its result's buffer handed out (`_fresh_to_numpy`:
        it is this call's own, nothing to remember in `mark_fresh`); any other call is
        `_call`'s."""
        if not self.level:
            jitted = self._by_types[0].get(tuple(map(type, args)))
            if jitted is not None:
                try:
                    out = jitted(*args) if _X64.value else _in_x64(jitted, args)
                except Exception:   # noqa: BLE001 -- a new shape failed to trace: as a
                    pass            # first call, below
                else:
                    if self.checks:
                        error, out = out
                        if error.get() is not None:     # as `_call`: raises as written
                            return to_numpy(self.op_by_op(*args))
                    return _fresh_to_numpy(out)
        return to_numpy(self._call(args, {}))

    def _call(self, args, kwargs):
        """A call at the current level, which falls to the next one where tracing fails
        (module docstring, "Specializations")."""
        jax = _JAX[0] if _JAX else jax_module()
        with jax.enable_x64(True):
            while self.level < 2:
                try:
                    jitted = None if kwargs else self._by_types[self.level].get(
                        tuple(map(type, args)))
                    if jitted is None:
                        jitted = self._jit_for(args, kwargs, numpy_scalars=self.level == 0)
                    out = jitted(*args, **kwargs)
                except Exception as exc:    # noqa: BLE001 -- tracing or compiling failed
                    if self.level == 0 and self.floats and _python_floats(args, kwargs):
                        # the code needs a Python float as a number (a Python `if` on
                        # it): static from now on, as every Python value
                        self.floats = False
                        self._by_types[0].clear()
                        continue
                    if isinstance(exc, TypeError) and (isinstance(exc, _trace_errors())
                                                       or "hash" in str(exc)) or (
                            self.level == 0 and _numpy_scalars(args, kwargs)):
                        # a value the code tests in Python (or hands to a function that
                        # takes Python numbers only: the digits of `jnp.round`) was traced
                        self.level += 1
                        continue
                    return self._untraceable(args, kwargs)
                if self.checks:
                    error, out = out
                    if error.get() is not None:
                        # raises as written: the first failing example's exception (or, if
                        # JAX fails, JAX's: `vectorize` replays numpy.vectorize either way)
                        return self.op_by_op(*args, **kwargs)
                if any(type(a) is np.ndarray for a in (*args, *kwargs.values())):
                    mark_fresh(out)     # NumPy in: NumPy out (`to_numpy`)
                return out
            return self._untraceable(args, kwargs)

    def _untraceable(self, args, kwargs):
        """Op by op, where ``jit`` could not trace or compile the code: the results (the
        level is then remembered), the exception of the code as written (the examples'), or
        `BackendFailure` where JAX itself fails op by op too (`_jax_failed`)."""
        try:
            out = self.op_by_op(*args, **kwargs)
        except Exception as exc:    # noqa: BLE001 -- sorted below
            failed = _jax_failed(exc)
            if failed is None:
                raise
            from ...errors import BackendFailure
            raise BackendFailure("jax", exc, failed) from exc
        self.level = 2
        return out

    def op_by_op(self, *args, **kwargs):
        """The generated function without ``jit`` (loops of ``lax`` too), under x64."""
        jax = jax_module()
        with jax.enable_x64(True), jax.disable_jit():
            args = [jax.numpy.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
            return self.python(*args, **kwargs)
