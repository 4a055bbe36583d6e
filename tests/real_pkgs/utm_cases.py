"""Real scalar functions of utm (WGS84 latitude/longitude to UTM and back, zone numbers and
letters), unchanged, with the domains a user passes.

Source: Turbo87/utm, utm/conversion.py (PyPI ``utm==0.9.0``), MIT License, Copyright (c)
2012-2024 Tobias Bieniek. The functions are imported from the installed package, not copied:
their source is what ``vectorize`` reads. With NumPy installed the module computes with
``numpy as mathlib`` and checks ranges with ``mathlib.min(x)``/``mathlib.max(x)`` (a batch's
minimum when the user passes arrays, the value itself per point); zone letters are strings.
Domains from the docstrings: latitudes -80..84 (out of range ones raise OutOfRangeError),
longitudes -180..180, eastings 1e5..1e6 m, northings 0..1e7 m, zones 1..60.
"""

import utm.conversion as conv
from harness import Case, Dom

LAT = Dom(-80.0, 84.0, edges=(0.0, 56.5, 72.0, 84.0, -80.0, 85.0, -81.0))
LON = Dom(-180.0, 180.0, edges=(3.5, 9.0, 21.0, 33.0, 180.0, -180.0))
ZONE = Dom(1, 60, integer=True, edges=(31, 32, 0, 61))
EASTING = Dom(1e5, 999999.0, edges=(500000.0, 99999.0))
NORTHING = Dom(0.0, 1e7, edges=(0.0, 5e6))


def _case(f, *args):
    return Case(f"utm.conversion.{f.__name__}", f, args)


CASES = [
    _case(conv.latitude_to_zone_letter, LAT),
    _case(conv.latlon_to_zone_number, LAT, LON),
    _case(conv.zone_number_to_central_longitude, ZONE),
    _case(conv.mod_angle, Dom(-10.0, 10.0, edges=(0.0, 3.141592653589793))),
    _case(conv.mixed_signs, Dom(-1.0, 1.0, edges=(0.0,))),
    _case(conv.in_bounds, LAT, -80.0, 84.0),
    _case(conv.check_valid_zone_number, ZONE),
    _case(conv.from_latlon, LAT, LON),
    _case(conv.to_latlon, EASTING, NORTHING, ZONE, "U"),
    Case("utm.conversion.to_latlon[northern]", conv.to_latlon,
         (EASTING, NORTHING, ZONE, None, True)),
]
