"""Real scalar functions of great-circle-calculator (distance, bearings, midpoint,
intermediate and destination points on a sphere, compass points), unchanged, with the
domains a user passes.

Source: seangrogan/great_circle_calculator (PyPI ``great-circle-calculator==2.1.0``), MIT
License, Copyright (c) 2026 Sean Grogan. The functions are imported from the installed
package, not copied: their source is what ``vectorize`` reads. They take a point as a
``(lon, lat)`` tuple (a NumPy row is not one: ``_handle_point`` raises TypeError for it), so
a user vectorizes them over coordinate arrays through a small wrapper that builds the
tuples, as the ``[xy]`` cases here do. Written on one example: ``_error_check_point`` checks
ranges with chained comparisons, unpacks, and raises a ValueError whose f-string message
prints the point tuple (``{point!s}``) for a point that is probably reversed or out of
range; ``_clamp_domain`` clamps an ``asin``/``acos`` argument a hair outside [-1, 1] with a
warning; ``intermediate_point`` returns early for coincident points; ``_resolve_radius``
raises for a non-positive radius; unit names resolve through ``str.strip().lower()`` and a
dict; ``CompassComplex._get_dir_name`` loops over a list of names and returns a string.
Domains from the docstrings: longitudes -180..180, latitudes -90..90 (outside: the
ValueError), fractions 0..1, courses 0..360 degrees, distances 0..20,000 km.
"""

from great_circle_calculator import great_circle_calculator as gcc
from great_circle_calculator._constants import _clamp_domain, convert_to_meters
from great_circle_calculator.compass import CompassComplex
from harness import Case, Dom

NAN = float("nan")
LON = Dom(-180.0, 180.0, edges=(0.0, 180.0, -180.0, -0.0))
LAT = Dom(-90.0, 90.0, edges=(0.0, 90.0, -90.0, 45.0))
# (a start at a pole: the longitude reached is atan2 of two numbers that cancel to rounding
# noise, ~1e-17, so a last-bit difference of NumPy's sin/cos/arcsin from libm's picks another
# one: no longitude is meaningful there)
LAT_OFF_POLE = Dom(-89.9, 89.9, edges=(0.0, 45.0, -45.0))
BAD_LON = Dom(-200.0, 200.0, edges=(0.0, 180.0, 180.5, 100.0))
BAD_LAT = Dom(-190.0, 190.0, edges=(0.0, 90.0, 90.5, 120.0))
FRACTION = Dom(-0.1, 1.1, edges=(0.0, 0.5, 1.0))
COURSE = Dom(0.0, 360.0, edges=(0.0, 90.0, 180.0, 270.0, 360.0))
DIST = Dom(0.0, 2e7, edges=(0.0, 1000.0))
RADIUS = Dom(-1000.0, 7e6, edges=(0.0, 6371000.0, 1737400.0))
HEADING = Dom(-720.0, 720.0, edges=(0.0, 360.0, 5.625, 354.375, -15.0))
NEAR_ONE = Dom(-1.05, 1.05, edges=(1.0, -1.0, 1.005, -1.005, 0.0))


def distance_xy(lon1, lat1, lon2, lat2):
    return gcc.distance_between_points((lon1, lat1), (lon2, lat2))


def distance_km_cosines_xy(lon1, lat1, lon2, lat2):
    return gcc.distance_between_points((lon1, lat1), (lon2, lat2), unit="km", haversine=False)


def distance_radius_xy(lon1, lat1, lon2, lat2, radius):
    return gcc.distance_between_points((lon1, lat1), (lon2, lat2), planet_radius=radius)


def distance_latlon_xy(lat1, lon1, lat2, lon2):
    return gcc.distance_between_points((lat1, lon1), (lat2, lon2), unit="nm", lat_lon=True)


def bearing_at_p1_xy(lon1, lat1, lon2, lat2):
    return gcc.bearing_at_p1((lon1, lat1), (lon2, lat2))


def bearing_at_p2_xy(lon1, lat1, lon2, lat2):
    return gcc.bearing_at_p2((lon1, lat1), (lon2, lat2))


def midpoint_xy(lon1, lat1, lon2, lat2):
    return gcc.midpoint((lon1, lat1), (lon2, lat2))


def intermediate_point_xy(lon1, lat1, lon2, lat2, fraction):
    return gcc.intermediate_point((lon1, lat1), (lon2, lat2), fraction)


def destination_xy(lon, lat, course, distance):
    return gcc.point_given_start_and_bearing((lon, lat), course, distance)


def destination_miles_xy(lat, lon, course, distance):
    return gcc.point_given_start_and_bearing((lat, lon), course, distance, unit="mi",
                                             lat_lon=True)


def check_point_xy(lon, lat):
    return gcc._error_check_point((lon, lat))


_COMPASS = CompassComplex()


# (the destination's longitude is wrapped by ``(lon + 540) % 360 - 180``: its absolute
# rounding, ~1e-13 degrees, is large relative to a longitude near 0, where a last-bit
# difference of NumPy's sin/cos/arctan2 from libm's shows)
WRAP_REASON = ("the longitude wrap (lon + 540) % 360 - 180 cancels near 0: NumPy's "
               "sin/cos/arctan2 differ from libm's in the last bit")


def _case(f, *args, name="", rtol=1e-12, reason=""):
    return Case(f"great_circle.{name or f.__name__}", f, args, rtol=rtol, rtol_reason=reason)


CASES = [
    _case(gcc._central_angle, LAT, LON, LAT, LON),
    _case(gcc._resolve_radius, "km", RADIUS, gcc.EARTH, name="_resolve_radius"),
    _case(gcc._degrees_to_radians, COURSE),
    _case(gcc._radians_to_degrees, Dom(-7.0, 7.0, edges=(0.0,))),
    _case(_clamp_domain, NEAR_ONE),
    _case(convert_to_meters, DIST, "nautical_miles", name="convert_to_meters[nm]"),
    _case(distance_xy, LON, LAT, LON, LAT),
    _case(distance_xy, BAD_LON, BAD_LAT, LON, LAT, name="distance_xy[out of range]"),
    _case(distance_km_cosines_xy, LON, LAT, LON, LAT),
    _case(distance_radius_xy, LON, LAT, LON, LAT, RADIUS),
    _case(distance_latlon_xy, LAT, LON, LAT, LON),
    _case(bearing_at_p1_xy, LON, LAT, LON, LAT),
    _case(bearing_at_p2_xy, LON, LAT, LON, LAT),
    _case(midpoint_xy, LON, LAT, LON, LAT, rtol=1e-9, reason=WRAP_REASON),
    _case(intermediate_point_xy, LON, LAT, LON, LAT, FRACTION),
    _case(intermediate_point_xy, LON, LAT, LON, LAT, 0.25,
          name="intermediate_point_xy[fixed fraction]"),
    _case(destination_xy, LON, LAT_OFF_POLE, COURSE, DIST, rtol=1e-9, reason=WRAP_REASON),
    _case(destination_miles_xy, LAT_OFF_POLE, LON, COURSE, Dom(0.0, 12000.0), rtol=1e-9,
          reason=WRAP_REASON),
    _case(check_point_xy, BAD_LON, BAD_LAT),
    _case(_COMPASS.get_abbr, HEADING, name="CompassComplex.get_abbr"),
    _case(_COMPASS.get_point, HEADING, name="CompassComplex.get_point"),
]
