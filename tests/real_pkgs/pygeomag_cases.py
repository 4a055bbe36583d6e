"""Real scalar functions of pygeomag (a pure-Python port of NOAA's World Magnetic Model:
declination, inclination and intensity of the geomagnetic field), unchanged, with the domains
a user passes.

Source: boxpet/pygeomag (PyPI ``pygeomag==1.1.0``), MIT License, Copyright (c) Justin
Myers. The functions are imported from the installed package, not copied: their source is
what ``vectorize`` reads. ``GeoMag.calculate`` is the legacy C code written on one example:
it loads the coefficients once into the instance (lists of lists), builds per-call tables
with list comprehensions, fills them with the spherical-harmonic recursions in a ``for`` over
the degree and a ``while`` over the order, writes the Legendre values into an instance list
by computed index, raises a ValueError for a time outside the model's 5-year life span and
returns a `GeoMagResult` whose ``calculate`` raises `BlackoutZoneException` (with an
f-string message) near the magnetic poles where asked; a user takes the numbers out with
an attribute (``.d``, ``.i``, ``.f``) through a wrapper, as the cases here do.
Domains from the docstrings: latitudes -90..90, longitudes -180..180, altitudes -1..850 km,
decimal years 2025.0..2030.0 (WMM2025).
"""

from harness import Case, Dom
from pygeomag import GeoMag
from pygeomag.geomag import GeoMagResult, GeoMagUncertaintyResult

_GM = GeoMag()          # (the package's default coefficients: WMM2025)
LAT = Dom(-90.0, 90.0, edges=(0.0, 90.0, -90.0, 55.0, -55.0, 47.6205))
LON = Dom(-180.0, 180.0, edges=(0.0, -0.0, 180.0, -122.3493))
ALT = Dom(-1.0, 850.0, edges=(0.0,))
YEAR = Dom(2025.0, 2030.0, edges=(2025.0, 2030.0, 2027.5))
BAD_YEAR = Dom(2024.0, 2031.0, edges=(2024.99, 2030.01))
H_NT = Dom(100.0, 40000.0, log=True, edges=(2000.0, 6000.0))


def declination(lat, lon, alt, year):
    return _GM.calculate(lat, lon, alt, year).d


def inclination(lat, lon, alt, year):
    return _GM.calculate(glat=lat, glon=lon, alt=alt, time=year).i


def total_intensity(lat, lon, alt, year):
    return _GM.calculate(lat, lon, alt, year).ti


def grid_variation(lat, lon):
    gv = _GM.calculate(lat, lon, 0.0, 2026.0).gv
    return -999.0 if gv is None else gv


def declination_raising(lat, lon):
    return _GM.calculate(lat, lon, 0.0, 2026.0, raise_in_warning_zone=True).d


def horizontal_and_vertical(lat, lon, alt):
    r = _GM.calculate(lat, lon, alt, 2026.5)
    return r.h, r.z


def declination_uncertainty(h, year):
    r = GeoMagResult(year, 0.0, 0.0, 0.0)
    r.h = h
    return GeoMagUncertaintyResult(r).d


def _case(f, *args, name=""):
    return Case(f"pygeomag.{name or f.__name__}", f, args)


CASES = [
    _case(declination, LAT, LON, ALT, YEAR),
    _case(declination, LAT, LON, ALT, BAD_YEAR, name="declination[outside life span]"),
    _case(inclination, LAT, LON, ALT, YEAR),
    _case(total_intensity, LAT, LON, ALT, YEAR),
    _case(grid_variation, LAT, LON),
    _case(declination_raising, LAT, LON),
    _case(horizontal_and_vertical, LAT, LON, ALT),
    _case(declination_uncertainty, H_NT, Dom(2014.0, 2031.0, edges=(2015.0, 2020.0, 2025.0))),
]
