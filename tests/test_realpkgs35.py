"""Shapes of the real-package corpus found by realpkgs35 (aerocalc3, great-circle-calculator,
thermofeel, pygeomag), against ``numpy.vectorize`` and the per-example loop:

- helpers of two modules that read a global of the same name bound to different values in
  each (aerocalc3's ``P0``: 29.9213 in HG in ``std_atm``, 101325.0 Pa in ``airspeed``): the
  generated code is one module, so one helper read the other's value (silently wrong);
- ``isinstance(x, float)`` of a per-example number used as a value (not an ``if`` test): the
  generated code ran it on the batch's array (False) where every example answers True
  (silently wrong);
- ``hasattr(obj, "__geo_interface__")`` / ``isinstance(obj, (tuple, list))`` of a tuple
  built from per-example values (great-circle-calculator's ``_handle_point``): refused, now
  answered for the container (the same for every example)."""

import importlib
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from vectorize import vectorize, vmap
from vectorize.errors import VectorizeError

X = np.array([0.5, 1.0, 2.0, 3.5, -1.25])
Y = np.array([2.0, 0.25, 1.5, -3.0, 4.0])


def _modules(tmp_path, name):
    """Two modules that each bind ``P0`` (and ``K``, a module alias) their own way, and a
    third whose function calls a helper of each."""
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "atm.py").write_text(textwrap.dedent("""
        import math as K

        P0 = 29.9213

        def ratio(h):
            return P0 * K.exp(-h / 8.0)
    """))
    (pkg / "speed.py").write_text(textwrap.dedent("""
        import numpy as K
        from . import atm

        P0 = 101325.0

        def dp2speed(dp):
            return K.sqrt(dp / P0) + K.float64(2.0)

        def both(dp, h):
            p = atm.ratio(h)
            return dp2speed(dp * p)

        def both_wide(dp, h):
            return atm.ratio(h) + P0 + dp
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(f"{name}.speed")
    finally:
        sys.path.remove(str(tmp_path))


def test_globals_of_the_same_name_in_two_modules(tmp_path):
    speed = _modules(tmp_path, "realpkgs35_globals_a")
    dp = np.abs(X) * 1000.0
    for f in (speed.both, speed.both_wide):
        want = np.vectorize(f)(dp, Y)
        got = vectorize(f, fallback="error")(dp, Y)
        np.testing.assert_allclose(got, want, rtol=1e-13)
        assert got.dtype == want.dtype
        loop = np.stack([f(a, b) for a, b in zip(dp, Y)])
        np.testing.assert_allclose(vmap(f)(dp, Y), loop, rtol=1e-13)


def test_globals_of_the_same_name_read_their_own_value_in_the_code(tmp_path):
    speed = _modules(tmp_path, "realpkgs35_globals_b")
    source = vectorize(speed.both_wide, fallback="error").source(np.abs(X), Y)
    assert "P0_speed" in source and "P0 * " in source


def test_globals_of_the_same_name_from_the_disk_cache(tmp_path):
    """Another process loads the generated code from the disk cache: the renamed global is
    bound by its new name there too."""
    speed = _modules(tmp_path, "realpkgs35_globals_c")
    dp = np.abs(X) * 1000.0
    want = np.vectorize(speed.both_wide)(dp, Y)
    cache = tmp_path / "cache"
    first = vectorize(speed.both_wide, fallback="error", cache=True, cache_dir=str(cache))
    np.testing.assert_allclose(first(dp, Y), want, rtol=1e-13)
    assert any(cache.rglob("*")), "nothing was stored"
    script = textwrap.dedent(f"""
        import sys
        import warnings
        import numpy as np
        sys.path.insert(0, {str(tmp_path)!r})
        from realpkgs35_globals_c import speed
        from vectorize import vectorize
        f = vectorize(speed.both_wide, fallback="error", cache=True, cache_dir={str(cache)!r})
        from vectorize import codegen, diskcache
        printed, loaded = [], []
        print_module, execute = codegen.print_module, codegen.execute
        codegen.print_module = lambda *a, **k: printed.append(1) or print_module(*a, **k)
        codegen.execute = lambda *a, **k: loaded.append(execute(*a, **k)) or loaded[-1]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            print(repr(f(np.array({dp.tolist()!r}), np.array({Y.tolist()!r})).tolist()))
            # (the loaded code itself: a NameError in it would be replayed per example)
            print(repr(loaded[-1](np.array({dp.tolist()!r}), np.array({Y.tolist()!r})).tolist()))
        print(diskcache.stats["hits"], len(printed))
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    *_, values, direct, hits = out.stdout.strip().splitlines()
    assert hits == "1 0", out.stdout      # loaded from the disk, not made again
    np.testing.assert_allclose(np.array(eval(values)), want, rtol=1e-13)
    np.testing.assert_allclose(np.array(eval(direct)), want, rtol=1e-13)


def _isinstance_value(a):
    k = isinstance(a, float)
    return a * 2 + k


def _hasattr_value(a):
    return a + hasattr(a, "real") - 2 * hasattr(a, "no_such_attribute")


@pytest.mark.parametrize("f", [_isinstance_value, _hasattr_value])
def test_type_test_of_a_number_as_a_value(f):
    want = np.vectorize(f)(X)
    got = vectorize(f, fallback="error")(X)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(vmap(f)(X), np.stack([f(x) for x in X]))


def _handle_point(obj):
    if hasattr(obj, "__geo_interface__"):
        x, y = obj.__geo_interface__["coordinates"][:2]
    elif isinstance(obj, (tuple, list)) and len(obj) >= 2:
        x, y = obj[0], obj[1]
    else:
        raise TypeError(f"Cannot interpret {type(obj)} as a point")
    return x, y


def _point_distance(lon, lat):
    x, y = _handle_point((lon, lat))
    return (x * x + y * y) ** 0.5


def _is_list(a, b):
    return float(isinstance([a, b], tuple)) + 2.0 * hasattr((a, b), "count") + a


def test_type_tests_of_a_tuple_of_per_example_values():
    for f in (_point_distance, _is_list):
        want = np.vectorize(f)(X, Y)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = vectorize(f, fallback="error")(X, Y)
        np.testing.assert_allclose(got, want, rtol=1e-15)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(vmap(f)(X, Y), np.stack([f(a, b) for a, b in zip(X, Y)]),
                                   rtol=1e-15)


def _tested_in_the_call(a):
    return a + isinstance(a * 2, float)


def test_type_test_of_a_value_computed_in_the_call_is_refused():
    with pytest.raises(VectorizeError, match=r"test_realpkgs35.py:\d+:\d+: .*isinstance"):
        vectorize(_tested_in_the_call, fallback="error")(X)


def _check_point(point):
    lon, lat = float(point[0]), float(point[1])
    if -90 <= lat <= 90 and -180 <= lon <= 180:
        return lon, lat
    elif -90 <= lon <= 90 and -180 <= lat <= 180:
        _msg = (
            f"Point {point!s} is probably reversed!\n"
            f"the longitude ({lon}) is in [-90, 90] "
            "and the latitude in [-180, 180]."
        )
        raise ValueError(_msg)
    else:
        raise ValueError(f"\nPoint {point!s} cannot be interpreted.\n")


def _checked(lon, lat):
    return _check_point((lon, lat))


def _outcome(f, *args):
    try:
        out = f(*args)
    except Exception as exc:  # noqa: BLE001 - compared
        return type(exc), str(exc)
    return out


@pytest.mark.parametrize("lon, lat", [
    ([10.0, 100.0, -5.0], [5.0, 30.0, 0.0]),          # every point valid
    ([10.0, 200.0, 20.0], [5.0, 10.0, 120.0]),        # an invalid one, then a reversed one
    ([20.0, 10.0], [120.0, 5.0]),                      # the first example raises
    ([10.0, 20.0], [5.0, 120.0]),                      # a later one does
])
def test_tuple_of_per_example_numbers_formatted_into_a_raised_message(lon, lat):
    """great-circle-calculator's `_error_check_point`: the message prints the point tuple
    (numpy.vectorize's first example holds NumPy scalars: their reprs), built in implicitly
    concatenated f-strings, an `if`/`elif`/`else` whose two last branches raise and whose
    first returns a tuple."""
    lon, lat = np.array(lon), np.array(lat)
    want = _outcome(np.vectorize(_checked), lon, lat)
    got = _outcome(vectorize(_checked, fallback="error"), lon, lat)
    if isinstance(want, tuple) and isinstance(want[0], type):
        assert got == want
    else:
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
            assert g.dtype == w.dtype


def _concatenated(x):
    label = f"x={x} " "units" f" ({x * 2:.2f})"
    return label


def test_implicitly_concatenated_f_strings_of_per_example_values():
    want = np.vectorize(_concatenated)(X)
    got = vectorize(_concatenated, fallback="error")(X)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def _tuple_or_raise(x):
    if x > 0:
        return x, 2 * x
    elif x > -1:
        raise ValueError("a")
    else:
        raise ValueError("b")


@pytest.mark.parametrize("xs", [[1.0, 2.0], [1.0, -0.5], [1.0, -2.0], [-2.0, -0.5]])
def test_tuple_returned_where_the_other_branches_of_an_elif_chain_raise(xs):
    x = np.array(xs)
    want = _outcome(np.vectorize(_tuple_or_raise), x)
    got = _outcome(vectorize(_tuple_or_raise, fallback="error"), x)
    if isinstance(want[0], type):
        assert got == want
    else:
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    if not isinstance(want[0], type):
        for g, w in zip(vmap(_tuple_or_raise)(x), want):
            np.testing.assert_array_equal(g, w)


def _density0(s, t):
    """seawater's `dens0` shape: every argument through np.asanyarray first (0-d arrays per
    example), a polynomial with coefficients in a tuple."""
    s, t = list(map(np.asanyarray, (s, t)))
    b = (8.24493e-1, -4.0899e-3, 7.6438e-5)
    return 999.842594 + (b[0] + (b[1] + b[2] * t) * t) * s + np.asanyarray(s) ** 1.5


def test_asanyarray_of_per_example_values():
    s, t = np.abs(X) * 10.0, Y * 5.0
    want = np.vectorize(_density0)(s, t)
    got = vectorize(_density0, fallback="error")(s, t)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert got.dtype == want.dtype
    loop = np.stack([_density0(a, b) for a, b in zip(s, t)])
    np.testing.assert_allclose(vmap(_density0)(s, t), loop, rtol=1e-13)
