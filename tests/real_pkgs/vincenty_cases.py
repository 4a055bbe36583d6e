"""Real scalar functions of vincenty (Vincenty's inverse formula on the WGS 84 ellipsoid),
unchanged, with the domains a user passes.

Source: maurycyp/vincenty, vincenty/__init__.py (PyPI ``vincenty==0.1.4``), The Unlicense
(public domain), by Maurycy Pietrzak. The function is imported from the installed package,
not copied: its source is what ``vectorize`` reads: a ``for iteration in range(200)`` loop
that ``break``s on convergence, with a ``for``/``else`` that returns None where it does not
converge, an early ``return 0.0`` for coincident points (before and inside the loop), a
``try``/``except ZeroDivisionError`` around a division, and ``round(s, 6)``. It takes
(lat, lon) pairs: a user vectorizes it with ``signature="(2),(2)->()"`` (a point per row).
Domains from the docstring: latitudes -90..90, longitudes -180..180, in degrees; points on
the equator (the ZeroDivisionError path) and coincident points.
"""

from harness import Case, Dom, Rows
from vincenty import vincenty_inverse

LAT = Dom(-85.0, 85.0, edges=(0.0, 42.3541165, -33.9))
LON = Dom(-180.0, 180.0, edges=(0.0, -71.0693514, 151.2))
NEAR_LAT = Dom(-60.0, 60.0, edges=(0.0,))
NEAR_LON = Dom(-60.0, 60.0, edges=(0.0,))

CASES = [
    Case("vincenty.vincenty_inverse", vincenty_inverse,
         (Rows((NEAR_LAT, NEAR_LON)), Rows((NEAR_LAT, NEAR_LON))), signature="(2),(2)->()"),
    Case("vincenty.vincenty_inverse[miles]", vincenty_inverse,
         (Rows((LAT, LON)), Rows((NEAR_LAT, NEAR_LON)), True), signature="(2),(2),()->()"),
]
