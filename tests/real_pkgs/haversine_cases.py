"""Real scalar functions of haversine (great-circle distances), unchanged, with the domains a
user passes.

Source: mapado/haversine, haversine/haversine.py (PyPI ``haversine==2.9.0``), MIT License,
Copyright (c) 2017-2024 Balthazar Rouberol and contributors. The functions are imported from
the installed package, not copied: their source is what ``vectorize`` reads. Its kernels are
closures a factory builds over the functions of ``math`` (``_create_haversine_kernel(math)``)
and numba compiles them when numba is installed (`vectorize` reads the Python function numba
compiled); ``_normalize`` wraps with ``%`` and an ``if``; ``_ensure_lat_lon`` raises a
ValueError with an f-string message; ``haversine`` and ``inverse_haversine`` take (lat, lon)
pairs: a user vectorizes them with ``signature="(2),(2)->()"`` (a point per row).
Domains from the docstrings: latitudes -90..90, longitudes -180..180 (out of range: the
ValueError, or normalised ones), distances on the unit sphere 0..pi, directions in radians.
"""

from importlib import import_module

from harness import Case, Dom, Rows

hv = import_module("haversine.haversine")   # (the package binds `haversine` to the function)

NAN = float("nan")
LAT = Dom(-90.0, 90.0, edges=(0.0, -0.0, 90.0, -90.0, 45.7597))
LON = Dom(-180.0, 180.0, edges=(0.0, 180.0, -180.0, 4.8422))
WIDE = Dom(-720.0, 720.0, edges=(0.0, 90.0, 270.0, -90.0, 180.0, -180.0, 360.0))
BAD_LAT = Dom(-100.0, 100.0, edges=(0.0, 90.0, -90.0, 90.5, NAN))
BAD_LON = Dom(-200.0, 200.0, edges=(0.0, 180.0, 180.5, NAN))


def _case(f, *args, name=""):
    return Case(f"haversine.{name or f.__name__}", f, args)


CASES = [
    _case(hv._normalize, WIDE, WIDE),
    _case(hv._ensure_lat_lon, BAD_LAT, BAD_LON),
    _case(hv._haversine_kernel, LAT, LON, LAT, LON),
    _case(hv._inverse_haversine_kernel, LAT, LON, Dom(-6.3, 6.3, edges=(0.0,)),
          Dom(0.0, 3.1416, edges=(0.0,))),
    Case("haversine.haversine", hv.haversine, (Rows((LAT, LON)), Rows((LAT, LON))),
         signature="(2),(2)->()"),
    Case("haversine.haversine[out of range]", hv.haversine,
         (Rows((BAD_LAT, BAD_LON)), Rows((LAT, LON))), signature="(2),(2)->()"),
    Case("haversine.haversine[normalize]", hv.haversine,
         (Rows((WIDE, WIDE)), Rows((LAT, LON)), hv.Unit.KILOMETERS, True),
         signature="(2),(2),(),()->()"),
    Case("haversine.inverse_haversine", hv.inverse_haversine,
         (Rows((LAT, LON)), Dom(0.0, 20000.0, edges=(0.0,)), Dom(-6.3, 6.3, edges=(0.0,))),
         signature="(2),(),()->(2)"),
]
