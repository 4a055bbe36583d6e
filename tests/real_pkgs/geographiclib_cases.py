"""Real scalar functions of geographiclib (Karney's geodesic routines: the exact angle
arithmetic of ``Math`` and the series of ``Geodesic``), unchanged, with the domains a user
passes.

Source: geographiclib/geographiclib-python, geographiclib/geomath.py and
geographiclib/geodesic.py (PyPI ``geographiclib==2.1``), MIT License, Copyright (c) Charles
Karney (2011-2022). The functions are imported from the installed package, not copied: their
source is what ``vectorize`` reads. They are static methods of classes (``Math.sincosd``,
``Geodesic._A1m1f``) and one bound method of the WGS84 geodesic (``Geodesic.WGS84._A3f``),
written with ``math`` for Python floats.
Domains: angles in degrees of any size (exact reduction: -1e3..1e3, multiples of 90 and -0.0
among the edges), latitudes -90..90 (out-of-range ones give NaN), the series parameter eps
of the geodesic 0..0.01 (the flattening's order), the astroid's arguments -10..10.
"""

from geographiclib.geodesic import Geodesic
from geographiclib.geomath import Math
from harness import Case, Dom

NAN, INF = float("nan"), float("inf")
ANGLE = Dom(-1e3, 1e3, edges=(0.0, -0.0, 90.0, -90.0, 180.0, -180.0, 360.0, 45.0, 720.0,
                              NAN, INF))
LAT = Dom(-100.0, 100.0, edges=(90.0, -90.0, 0.0, NAN))
X = Dom(-1e3, 1e3, edges=(0.0, -0.0, 1.0, NAN, INF))
EPS = Dom(0.0, 0.01, edges=(0.0,))
POLY = [1.0, -2.0, 3.0, 0.5]           # a cubic's coefficients (Horner, as the series use)


def _case(owner, f, *args):
    return Case(f"geographiclib.{owner}.{f.__name__}", f, args)


CASES = [
    _case("Math", Math.sq, X),
    _case("Math", Math.cbrt, X),
    _case("Math", Math.norm, X, X),
    _case("Math", Math.sum, X, X),
    _case("Math", Math.polyval, 3, POLY, 0, X),
    _case("Math", Math.AngRound, ANGLE),
    _case("Math", Math.remainder, ANGLE, Dom(1.0, 720.0, edges=(360.0, 90.0))),
    _case("Math", Math.AngNormalize, ANGLE),
    _case("Math", Math.LatFix, LAT),
    _case("Math", Math.AngDiff, ANGLE, ANGLE),
    _case("Math", Math.sincosd, ANGLE),
    _case("Math", Math.sincosde, ANGLE, Dom(-1.0, 1.0, edges=(0.0,))),
    _case("Math", Math.atan2d, X, X),
    _case("Geodesic", Geodesic._Astroid, Dom(-10.0, 10.0, edges=(0.0,)),
          Dom(-10.0, 10.0, edges=(0.0,))),
    _case("Geodesic", Geodesic._A1m1f, EPS),
    _case("Geodesic", Geodesic._A2m1f, EPS),
    Case("geographiclib.Geodesic.WGS84._A3f", Geodesic.WGS84._A3f, (EPS,)),
]
