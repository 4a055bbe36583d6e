"""Real scalar functions of hsluv (the HSLuv and HPLuv colour spaces: conversions between
sRGB, CIE XYZ, CIELUV, LCh, HSLuv and HPLuv), unchanged, with the domains a user passes.

Source: hsluv/hsluv-python, hsluv.py (PyPI ``hsluv==5.0.5``), MIT License, Copyright (c)
2015 Alexei Boronine. The functions are imported from the installed package, not copied:
their source is what ``vectorize`` reads (a colour as a 3-tuple per example, indexed
``_hx_tuple[0]`` and ``float()``-converted; ``sum`` of a generator over ``zip`` of a module
matrix row and the colour; ``while`` loops over ``_g < 3`` that append dicts to a list;
``min`` of a generator over that list, filtered by ``if length >= 0``; ``math.pow``,
``atan2``, ``degrees``; early returns of int tuples ``(0, 0, 0)``; helpers chained in
returns; ``hsluv_to_rgb``: a closure from a decorator that rounds each item with a
``functools.partial(round, ndigits=10)``).
Domains from the docstrings and the code's thresholds: sRGB channels and XYZ in [0, 1],
lightness L in [0, 100], hue in [0, 360], saturation in [0, 100], LUV's u and v in about
[-100, 100], with the edges where the branches switch (0, the sRGB and L* knees
0.0031308, 0.04045, epsilon = 0.0088564516, L = 8, L near 0 and 100).
"""

import hsluv
from harness import Case, Dom, Rows

UNIT = Dom(0.0, 1.0, edges=(0.0, 1.0, 0.0031308, 0.04045, 0.5))
LINEAR = Dom(-0.05, 1.0, edges=(0.0, 0.0031308, 0.04045, 1.0))
Y = Dom(0.0, 1.0, edges=(0.0, 0.0088564516, 1.0))
L = Dom(0.0, 100.0, edges=(0.0, 8.0, 100.0, 50.0))
L_POS = Dom(1e-3, 100.0, edges=(8.0, 100.0, 1e-8, 99.9999999))
HUE = Dom(0.0, 360.0, edges=(0.0, 360.0, 90.0, 180.0, 270.0))
SAT = Dom(0.0, 100.0, edges=(0.0, 100.0))
C = Dom(0.0, 150.0, edges=(0.0, 1e-9))
UV = Dom(-100.0, 100.0, edges=(0.0,))

RGB = Rows((UNIT, UNIT, UNIT))
XYZ = Rows((Y, Y, Y))
LUV = Rows((L, UV, UV))
LCH = Rows((L_POS, C, HUE))
HSL = Rows((HUE, SAT, L))
TRIPLE = "(3)->(),(),()"


def _case(f, *args, name="", signature=None):
    return Case(f"hsluv.{name or f.__name__}", f, args, signature=signature)


def _row(f, rows, name=""):
    return _case(f, rows, name=name, signature=TRIPLE)


CASES = [
    _case(hsluv._from_linear, LINEAR),
    _case(hsluv._to_linear, LINEAR),
    _case(hsluv._y_to_l, Y),
    _case(hsluv._l_to_y, L),
    _case(hsluv._max_safe_chroma_for_l, L_POS),
    _case(hsluv._max_chroma_for_lh, L_POS, HUE),
    _case(hsluv._dot_product, Rows((UNIT, UNIT, UNIT)), Rows((UV, UV, UV)),
          signature="(3),(3)->()"),
    _row(hsluv.xyz_to_rgb, XYZ),
    _row(hsluv.rgb_to_xyz, RGB),
    _row(hsluv.xyz_to_luv, XYZ),
    _row(hsluv.luv_to_xyz, LUV),
    _row(hsluv.luv_to_lch, LUV),
    _row(hsluv.lch_to_luv, LCH),
    _row(hsluv.hsluv_to_lch, HSL),
    _row(hsluv.lch_to_hsluv, LCH),
    _row(hsluv.hpluv_to_lch, HSL),
    _row(hsluv.lch_to_hpluv, LCH),
    _row(hsluv.lch_to_rgb, LCH),
    _row(hsluv.rgb_to_lch, RGB),
    _row(hsluv._hsluv_to_rgb, HSL),
    _row(hsluv.rgb_to_hsluv, RGB),
    _row(hsluv._hpluv_to_rgb, HSL),
    _row(hsluv.rgb_to_hpluv, RGB),
    _row(hsluv.hsluv_to_rgb, HSL, name="hsluv_to_rgb"),   # (a `wraps` closure)
    _row(hsluv.hpluv_to_rgb, HSL, name="hpluv_to_rgb"),
]
