"""Real functions of seawater (the EOS-80 equation of state of seawater: density, potential
temperature, sound speed, salinity from conductivity, depth from pressure), unchanged, with
the domains a user passes.

Source: pyoceans/python-seawater (PyPI ``seawater==3.3.5``), MIT License, Copyright (c) 2013
Filipe Fernandes (a translation of CSIRO's SEAWATER toolbox, Copyright (c) Phil Morgan). The
functions are imported from the installed package, not copied: their source is what
``vectorize`` reads. They are written for arrays and run on one example too: each starts
``s, t, p = list(map(np.asanyarray, (s, t, p)))`` (0-d arrays per example), evaluates
polynomials with coefficients in tuples (``b[0] + (b[1] + ...) * T68``), converts ITS-90 to
IPTS-68 through a helper, integrates potential temperature with a fixed Runge-Kutta
sequence of helper calls (``ptmp``), and ``cndr`` inverts the salinity equation with a
``while True`` Newton loop over ``zip`` of raveled arrays. A user who wraps them in
``numpy.vectorize`` (a station at a time) gets 0-d arrays back per example, stored as the
float64 numbers numpy.vectorize makes of them.
``pres`` at an infinite depth is a known divergence (the report lists it): its ``(...) **
0.5`` of -inf is +inf for one example's NumPy scalar (libm's pow) and NaN for NumPy's array
power (its square-root path).
Domains from the docstrings: salinity 0..42 psu, temperature -2..40 deg C (ITS-90),
pressure 0..10000 db, latitude -90..90, depth 0..10000 m, conductivity ratio 0.1..1.5.
"""

import warnings

from harness import Case, Dom

with warnings.catch_warnings():     # ("The seawater library is deprecated!", at import)
    warnings.simplefilter("ignore", UserWarning)
    from seawater import eos80 as E
    from seawater import library as L

S = Dom(0.0, 42.0, edges=(35.0, 0.0, 34.5))
T = Dom(-2.0, 40.0, edges=(0.0, 10.0, 25.0))
P = Dom(0.0, 10000.0, edges=(0.0, 1000.0, 4000.0))
PR = Dom(0.0, 1000.0, edges=(0.0,))
LAT = Dom(-90.0, 90.0, edges=(0.0, 30.0, -45.0, 90.0))
DEPTH = Dom(0.0, 10000.0, edges=(0.0, 5000.0))
R = Dom(0.1, 1.5, edges=(1.0,))


def _case(f, *args, name=""):
    mod = f.__module__.rsplit(".", 1)[-1]
    return Case(f"seawater.{mod}.{name or f.__name__}", f, args)


CASES = [
    _case(E.adtg, S, T, P),
    _case(E.alpha, S, T, P),
    _case(E.beta, S, T, P),
    _case(E.aonb, S, T, P),
    _case(E.cp, S, T, P),
    _case(E.dens0, S, T),
    _case(E.dens, S, T, P),
    _case(E.dpth, P, LAT),
    _case(E.fp, S, P),
    _case(E.g, LAT),
    _case(E.g, LAT, DEPTH, name="g[z]"),
    _case(E.pden, S, T, P, PR),
    _case(E.pres, DEPTH, LAT),
    _case(E.ptmp, S, T, P),
    _case(E.ptmp, S, T, P, PR, name="ptmp[pr]"),
    _case(E.salt, R, T, P),
    _case(E.svel, S, T, P),
    _case(E.temp, S, T, P),
    _case(L.cndr, S, T, P),
    _case(L.salrt, T),
    _case(L.salrp, R, T, P),
    _case(L.sals, R, T),
    _case(L.seck, S, T, P),
    _case(L.smow, T),
    _case(L.T68conv, T),
    _case(L.T90conv, T),
]
