"""Real scalar functions of the standard library's colorsys (conversions between RGB, YIQ,
HLS and HSV), unchanged, with the domains a user passes.

Source: CPython, Lib/colorsys.py, PSF License. The functions are imported from the running
Python, not copied: their source is what ``vectorize`` reads (``max``/``min`` of three,
``if``/``elif`` chains that return early, ``int(h * 6.0)`` and ``i % 6`` to pick a sextant,
``x % 1.0``, clamps, a helper ``_v`` called with its result in a return tuple).
Domains from the docstrings: coordinates in [0, 1] (the YIQ ones in about [-0.6, 0.6]), with
the edges where the branches switch (grey: r == g == b, h = 1/6, 1/2, 1, saturation 0).
"""

import colorsys

from harness import Case, Dom

UNIT = Dom(0.0, 1.0, edges=(0.0, 1.0, 0.5, 1 / 6, 2 / 3))
HUE = Dom(0.0, 1.0, edges=(0.0, 1.0, 1 / 6, 0.5, 5 / 6, 0.9999999999999999))
SAT = Dom(0.0, 1.0, edges=(0.0, 1.0))
IQ = Dom(-0.6, 0.6, edges=(0.0,))
GREYISH = Dom(0.4, 0.6, integer=False, edges=(0.5,))


def _case(f, *args, name=""):
    return Case(f"colorsys.{name or f.__name__}", f, args)


CASES = [
    _case(colorsys.rgb_to_yiq, UNIT, UNIT, UNIT),
    _case(colorsys.yiq_to_rgb, UNIT, IQ, IQ),
    _case(colorsys.rgb_to_hls, UNIT, UNIT, UNIT),
    _case(colorsys.rgb_to_hls, GREYISH, Dom(0.5, 0.5), GREYISH, name="rgb_to_hls[grey]"),
    _case(colorsys.hls_to_rgb, HUE, UNIT, SAT),
    _case(colorsys.rgb_to_hsv, UNIT, UNIT, UNIT),
    _case(colorsys.rgb_to_hsv, GREYISH, Dom(0.5, 0.5), GREYISH, name="rgb_to_hsv[grey]"),
    _case(colorsys.hsv_to_rgb, HUE, SAT, UNIT),
    _case(colorsys._v, UNIT, UNIT, Dom(-1.0, 2.0, edges=(0.0, 1 / 6, 0.5, 2 / 3, 1.0))),
]
