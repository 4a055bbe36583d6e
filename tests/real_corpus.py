"""A corpus of scalar functions in the styles of real scientific code, checked against
``numpy.vectorize`` itself.

Each function is written for ONE example, the way authors of fluid-mechanics, steam-table,
psychrometric, thermal-comfort, orbit, geodesy, solar, finance, epidemiology and game code
write the functions they then wrap in ``numpy.vectorize`` or ``numba.vectorize``: ``math.*``,
``if``/``elif`` chains, ``while``/``for`` loops with ``break``, early returns, helpers,
constant tables, tuples, ``divmod``, ``round``, ``raise ValueError`` on bad input,
``try``/``except``, nested helpers, ``*args``. None is copied from a third-party package;
the coefficients are made up where they stand for a fitted table.

`CORPUS` maps each function's name to a `Case`: the function, its construct *tags*, an input
strategy ``inputs(rng, n, bad)`` and the large batch size it is checked at. The strategy makes
``n`` examples of the function's domain (zeros, negatives, NaN and inf where the function
takes them without raising); with ``bad=True`` it also puts a few examples where the function
raises (``ValueError`` of its own guards, ``ZeroDivisionError``, ``math`` domain errors,
``OverflowError``), at least one when ``n > 0``.

`check_case` runs one case against ``numpy.vectorize`` (Python scalars, so Python semantics)
at N = 0, 1, 5 and three calls of fresh data at the large N, and classifies it:

- ``ok``: ``vectorize(f, fallback="error")`` returned equal values, dtype and shape at every
  call, or raised the same exception type where ``numpy.vectorize`` raised;
- ``refused``: ``fallback="error"`` raised a ``VectorizeError`` (a located refusal), and
  ``vectorize(f, fallback="warn")`` then matched ``numpy.vectorize`` exactly;
- ``wrong``: a different value, dtype, shape or exception type (or a value where
  ``numpy.vectorize`` raised): a silently wrong answer;
- ``crash``: an exception other than ``VectorizeError`` where ``numpy.vectorize`` returned.

Values: integers, booleans and strings exactly; floats to `RTOL` relative (NaN equal to NaN,
signed zeros equal), because the engine computes ``math.exp`` and the like with NumPy's
functions, which can differ from the C library's in the last bit (``docs/semantics.md``); a
case with a wider tolerance says why in its ``rtol_reason``. At N = 0 ``numpy.vectorize``
needs ``otypes``, so the reference there is ``numpy.vectorize(f, otypes=...)`` with the dtypes
of its N = 5 result (the fallback may instead raise ``numpy.vectorize``'s own ``ValueError``).

Run ``python tests/real_corpus.py --report`` for the counts per construct tag.
"""

from __future__ import annotations

import math
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np

RTOL = 1e-12
LARGE = 20_000       # >= 2 * vectorize.chunks.AUTO_MIN_LANES: the batch may run in chunks
MEDIUM = 20_000      # for functions whose scalar loop costs more than a few microseconds
SMALL = 5_000        # for scalar loops of hundreds of iterations per example
REPEATS = 3


@dataclass
class Case:
    func: object
    inputs: object
    tags: tuple
    large: int = LARGE
    rtol: float = RTOL
    rtol_reason: str = ""
    excluded: frozenset = field(default_factory=frozenset)


CORPUS: dict[str, Case] = {}


def case(*tags, inputs, large=None, rtol=RTOL, rtol_reason="", excluded=()):
    """Register a corpus function. The large batch is 2e4 (`LARGE`, `MEDIUM`), so that the
    whole file's scalar reference loops stay within a minute. The runtime runs three calls of
    2e4 as it runs three of 1e5 (whole calls: `vectorize.chunks` tries other ways only after
    many calls), at a fifth of numpy.vectorize's time; ``--report --large=N`` runs another
    size."""
    if large is None:
        large = LARGE if "elementwise" in tags else MEDIUM

    def register(f):
        CORPUS[f.__name__] = Case(f, inputs, tags, large, rtol, rtol_reason,
                                  frozenset(excluded))
        return f
    return register


# --------------------------------------------------------------------------- input helpers


def U(rng, n, lo, hi):
    return rng.uniform(lo, hi, n)


def I(rng, n, lo, hi):  # noqa: E743 - integers in [lo, hi]
    return rng.integers(lo, hi + 1, n)


def sprinkle(rng, arr, values, rate=0.02):
    """Put a few of ``values`` (edge values the function accepts) into ``arr``."""
    n = len(arr)
    if n:
        k = rng.binomial(n, rate)
        idx = rng.integers(0, n, k)
        arr[idx] = rng.choice(np.asarray(values, dtype=arr.dtype), k)
    return arr


def spoil(rng, arr, values, bad):
    """With ``bad``, put a few of ``values`` (where the function raises) into ``arr``: at
    least one, about one in a thousand."""
    n = len(arr)
    if bad and n:
        k = max(1, n // 1000)
        idx = rng.integers(0, n, k)
        arr[idx] = rng.choice(np.asarray(values, dtype=arr.dtype), k)
    return arr


NAN, INF = math.nan, math.inf

# =========================================================================== fluid mechanics

G = 9.80665


@case("if-elif", "raise", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0, 5), [0.0]), U(rng, n, 0.01, 1),
    spoil(rng, U(rng, n, 1e-6, 1e-5), [0.0, -1e-6], bad)))
def reynolds_regime(v, d, nu):
    if nu <= 0:
        raise ValueError("kinematic viscosity must be positive")
    re = v * d / nu
    if re < 2300:
        return 0
    elif re < 4000:
        return 1
    else:
        return 2


@case("for-break-convergence", "raise", "early-return", large=MEDIUM, inputs=lambda rng, n, bad: (
    spoil(rng, 10 ** U(rng, n, 2, 8), [0.0, -10.0], bad), U(rng, n, 0, 0.05)))
def colebrook_friction(re, rel_rough):
    if re <= 0:
        raise ValueError(f"Reynolds number must be positive, got {re}")
    if re < 2300:
        return 64.0 / re
    f = 0.02
    for _ in range(60):
        rhs = -2.0 * math.log10(rel_rough / 3.7 + 2.51 / (re * math.sqrt(f)))
        new = 1.0 / (rhs * rhs)
        if abs(new - f) < 1e-14:
            f = new
            break
        f = new
    return f


@case("elementwise", "math-domain", inputs=lambda rng, n, bad: (
    spoil(rng, 10 ** U(rng, n, 3.5, 8), [0.0], bad), U(rng, n, 0, 0.05)))
def swamee_jain(re, rel_rough):
    return 0.25 / math.log10(rel_rough / 3.7 + 5.74 / re ** 0.9) ** 2


@case("elementwise", inputs=lambda rng, n, bad: (
    spoil(rng, 10 ** U(rng, n, 3.5, 8), [0.0], bad), U(rng, n, 0, 0.05)))
def haaland(re, rel_rough):
    inv = -1.8 * math.log10((rel_rough / 3.7) ** 1.11 + 6.9 / re)
    return 1.0 / (inv * inv)


@case("raise", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, 0.01, 0.08), U(rng, n, 0, 1000),
    spoil(rng, U(rng, n, 0.01, 2), [0.0, -0.5], bad), U(rng, n, -3, 3)))
def darcy_head_loss(f, length, diameter, velocity):
    if diameter <= 0:
        raise ValueError("diameter must be positive")
    return f * length / diameter * velocity * abs(velocity) / (2 * G)


@case("unguarded-division", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0, 5), [0.0], bad), spoil(rng, U(rng, n, 0, 3), [0.0], bad)))
def hydraulic_radius_rect(width, depth):
    area = width * depth
    wetted = width + 2 * depth
    return area / wetted


@case("if-elif", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, 10 ** U(rng, n, -2, 6), [0.0, -1.0], bad),))
def sphere_drag_coefficient(re):
    if re <= 0:
        raise ValueError("Reynolds number must be positive")
    if re < 0.1:
        return 24.0 / re
    elif re < 1000:
        return 24.0 / re * (1 + 0.15 * re ** 0.687)
    elif re < 2e5:
        return 0.44
    return 0.1


@case("math-domain", "elementwise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0.01, 0.05), [0.0], bad), U(rng, n, 0, 3),
    spoil(rng, U(rng, n, 0, 0.01), [-1e-3], bad)))
def manning_velocity(n_manning, hyd_radius, slope):
    return 1.0 / n_manning * hyd_radius ** (2.0 / 3.0) * math.sqrt(slope)


@case("if-elif", "unary-sign", inputs=lambda rng, n, bad: (
    U(rng, n, 0.5, 0.7), U(rng, n, 0, 0.1), sprinkle(rng, U(rng, n, -5e4, 5e4), [0.0]),
    spoil(rng, U(rng, n, 800, 1200), [0.0], bad)))
def orifice_flow(cd, area, dp, rho):
    q = cd * area * math.sqrt(2.0 * abs(dp) / rho)
    if dp < 0:
        return -q
    return q


@case("early-return", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -0.2, 1.0), [0.0, -0.0, NAN]), U(rng, n, 0.1, 5)))
def weir_flow(head, width):
    if head <= 0:
        return 0.0
    return 1.84 * width * head ** 1.5


@case("string-result", "if-elif", inputs=lambda rng, n, bad: (10 ** U(rng, n, 1, 6),))
def flow_regime_name(re):
    if re < 2300:
        return "laminar"
    elif re < 4000:
        return "transitional"
    return "turbulent"


@case("while-convergence", "raise", large=MEDIUM, inputs=lambda rng, n, bad: (
    spoil(rng, 10 ** U(rng, n, 3.7, 8), [-5.0], bad), U(rng, n, 1e-6, 0.05)))
def friction_newton(re, rel_rough):
    if re < 0:
        raise ValueError("negative Reynolds number")
    x = 8.0                       # x = 1 / sqrt(f)
    it = 0
    while True:
        arg = rel_rough / 3.7 + 2.51 * x / re
        g = x + 2.0 * math.log10(arg)
        dg = 1.0 + 2.0 * 2.51 / (re * arg * math.log(10.0))
        dx = g / dg
        x -= dx
        it += 1
        if abs(dx) < 1e-13 or it >= 50:
            break
    return 1.0 / (x * x)


# =========================================================================== steam tables

# made-up fit coefficients, in the shape of an IAPWS-style table
B23 = (348.05, -1.1671, 0.0010192, 572.54, 13.918)
SAT_LOW = (8.07131, 1730.63, 233.426)
SAT_HIGH = (8.14019, 1810.94, 244.485)


def _check_pt(p, t):
    if not (0.000611 <= p <= 100.0):
        raise ValueError(f"pressure {p} MPa out of range")
    if not (0.0 <= t <= 2000.0):
        raise ValueError("temperature %.2f C out of range" % t)  # noqa: UP031 - as written


def _b23_pressure(t_k):
    return B23[0] + B23[1] * t_k + B23[2] * t_k * t_k


def _saturation_pressure(t_c):
    coef = SAT_LOW if t_c < 100.0 else SAT_HIGH
    mmhg = 10.0 ** (coef[0] - coef[1] / (coef[2] + t_c))
    return mmhg * 133.322e-6


@case("table-lookup", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 1, 370), [0.0, 400.0, NAN], bad),))
def saturation_pressure_mpa(t_c):
    if not 1.0 <= t_c <= 374.0:
        raise ValueError("temperature outside the saturation line")
    if t_c < 100.0:
        a, b, c = SAT_LOW
    else:
        a, b, c = SAT_HIGH
    return 10.0 ** (a - b / (c + t_c)) * 133.322e-6


@case("raise-in-helper", "if-elif", "helper", "fstring-raise", inputs=lambda rng, n, bad: (
    spoil(rng, 10 ** U(rng, n, -3, 2), [200.0, -1.0], bad),
    spoil(rng, U(rng, n, 0, 1500), [-10.0, 2500.0], bad)))
def steam_region(p, t):
    _check_pt(p, t)
    t_k = t + 273.15
    if t > 800.0:
        return 5
    if t <= 350.0:
        if p >= _saturation_pressure(t):
            return 1
        return 2
    if p > _b23_pressure(t_k):
        return 3
    return 2


@case("math-domain", "table-lookup", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 16.6, 100), [5.0], bad),))
def b23_temperature(p):
    n3, n4, n5 = B23[2], B23[3], B23[4]
    return n4 + math.sqrt((p - n5) / n3)


WATER_RHO = (-2.8e-8, 1.05e-5, -0.00603, 0.0167, 999.84)


@case("for-over-table", "horner", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0, 100), [0.0, NAN, INF]),))
def water_density(t_c):
    acc = 0.0
    for c in WATER_RHO:
        acc = acc * t_c + c
    return acc


@case("raise", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, 1e4, 1e6), spoil(rng, U(rng, n, 200, 2000), [0.0, -3.0], bad),
    U(rng, n, 0.002, 0.2)))
def ideal_gas_density(p, t_k, molar_mass):
    if t_k <= 0:
        raise ValueError("absolute temperature must be positive")
    return p * molar_mass / (8.314462618 * t_k)


CP_AIR = ((300.0, 1.005, 0.0, 0.0), (600.0, 0.95, 1.9e-4, 0.0),
          (1500.0, 0.9, 3.0e-4, -6e-8), (3000.0, 1.15, 0.0, 0.0))


@case("for-break-table", "bound-on-some-paths", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 200, 3000), [3500.0], bad),))
def cp_air(t_k):
    for t_max, a, b, c in CP_AIR:  # noqa: B007 - read after the loop
        if t_k <= t_max:
            break
    else:
        raise ValueError("temperature above the table")
    return a + b * t_k + c * t_k * t_k


@case("helper", "if-elif", "raise-in-helper", inputs=lambda rng, n, bad: (
    spoil(rng, 10 ** U(rng, n, -3, 2), [150.0], bad), U(rng, n, 0, 1500)))
def steam_enthalpy_approx(p, t):
    region = steam_region(p, t)
    if region == 1:
        return 4.18 * t + 0.001 * p
    elif region == 2:
        return 2500.0 + 1.9 * t - 3.0 * p
    elif region == 3:
        return 1800.0 + 1.2 * t - 2.0 * p
    return 3000.0 + 2.1 * (t - 800.0)


@case("raise", "elementwise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 273, 640), [647.096, 700.0], bad), U(rng, n, 647.1, 650)))
def latent_heat_watson(t, t_crit):
    if t >= t_crit:
        raise ValueError("above the critical temperature")
    return 2257.0 * ((1 - t / t_crit) / (1 - 373.15 / t_crit)) ** 0.38


@case("raise", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, 250, 400), spoil(rng, U(rng, n, 400, 1500), [300.0], bad)))
def carnot_efficiency(t_cold, t_hot):
    if t_hot <= t_cold:
        raise ValueError("hot reservoir must be hotter")
    return 1.0 - t_cold / t_hot


@case("elementwise", "overflow", inputs=lambda rng, n, bad: (
    U(rng, n, 1e3, 1e5), U(rng, n, 250, 400), U(rng, n, 250, 400),
    spoil(rng, U(rng, n, 1e4, 5e4), [1e9], bad)))
def clausius_clapeyron(p1, t1, t2, latent):
    return p1 * math.exp(latent / 8.314 * (1.0 / t1 - 1.0 / t2))


# =========================================================================== psychrometrics


@case("if-elif", "early-return", inputs=lambda rng, n, bad: (
    U(rng, n, 60, 115), U(rng, n, 0, 100)))
def heat_index_f(t, rh):
    simple = 0.5 * (t + 61.0 + (t - 68.0) * 1.2 + rh * 0.094)
    if (simple + t) / 2 < 80:
        return simple
    hi = (-42.379 + 2.049 * t + 10.143 * rh - 0.2248 * t * rh - 6.84e-3 * t * t
          - 5.48e-2 * rh * rh + 1.23e-3 * t * t * rh + 8.5e-4 * t * rh * rh
          - 1.99e-6 * t * t * rh * rh)
    if rh < 13 and 80 <= t <= 112:
        hi -= (13 - rh) / 4 * math.sqrt((17 - abs(t - 95.0)) / 17)
    elif rh > 85 and 80 <= t <= 87:
        hi += (rh - 85) / 10 * (87 - t) / 5
    return hi


@case("early-return", "elementwise", rtol=1e-9,
      rtol_reason="terms of size 10 cancel near 0 C: a last-bit difference of `v ** 0.16` "
                  "(NumPy's array power against the C library's pow) grows to ~1e-12 relative",
      inputs=lambda rng, n, bad: (
          U(rng, n, -40, 20), sprinkle(rng, U(rng, n, 0, 80), [0.0, 4.8])))
def wind_chill(t, v):
    if t > 10 or v < 4.8:
        return t
    vp = v ** 0.16
    return 13.12 + 0.6215 * t - 11.37 * vp + 0.3965 * t * vp


@case("math-domain", "raise", inputs=lambda rng, n, bad: (
    U(rng, n, -30, 45), spoil(rng, U(rng, n, 1, 100), [0.0, 120.0], bad)))
def dew_point_magnus(t, rh):
    if rh > 100:
        raise ValueError("relative humidity above 100 %")
    gamma = math.log(rh / 100.0) + 17.62 * t / (243.12 + t)
    return 243.12 * gamma / (17.62 - gamma)


@case("elementwise", inputs=lambda rng, n, bad: (U(rng, n, -20, 50), U(rng, n, 5, 99)))
def wet_bulb_stull(t, rh):
    return (t * math.atan(0.151977 * math.sqrt(rh + 8.313659))
            + math.atan(t + rh) - math.atan(rh - 1.676331)
            + 0.00391838 * rh ** 1.5 * math.atan(0.023101 * rh) - 4.686035)


@case("raise", "elementwise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0, 7000), [101325.0, 2e5], bad), U(rng, n, 8e4, 1.1e5)))
def humidity_ratio(p_vapor, p_total):
    if p_vapor >= p_total:
        raise ValueError("vapour pressure reaches the total pressure")
    return 0.621945 * p_vapor / (p_total - p_vapor)


def _svp(t):
    return 6.112 * math.exp(17.62 * t / (243.12 + t))


@case("helper", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, -20, 45), U(rng, n, -30, 20)))
def relative_humidity_from_dew(t, td):
    return 100.0 * _svp(td) / _svp(t)


SVP_COEF = ((6.1115, 22.452, 272.55), (6.1121, 17.502, 240.97))


@case("table-index", "if-elif", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -50, 50), [0.0, -0.0]),))
def saturation_vapor_pressure(t):
    k = 0 if t < 0 else 1
    a, b, c = SVP_COEF[k]
    return a * math.exp(b * t / (c + t))


@case("elementwise", inputs=lambda rng, n, bad: (U(rng, n, -20, 50), U(rng, n, 0, 0.03)))
def moist_air_enthalpy(t, w):
    return 1.006 * t + w * (2501.0 + 1.86 * t)


@case("tuple-return", "helper", "math-domain", inputs=lambda rng, n, bad: (
    U(rng, n, -20, 45), spoil(rng, U(rng, n, 1, 100), [0.0], bad)))
def psychro_state(t, rh):
    pw = rh / 100.0 * _svp(t)
    w = 0.621945 * pw / (1013.25 - pw)
    gamma = math.log(rh / 100.0) + 17.62 * t / (243.12 + t)
    return 243.12 * gamma / (17.62 - gamma), w


@case("bool-result", "chained-compare", inputs=lambda rng, n, bad: (
    U(rng, n, 15, 35), U(rng, n, 0, 100)))
def in_comfort_zone(t, rh):
    return 20.0 <= t <= 26.0 and 30.0 <= rh <= 60.0


# =========================================================================== thermal comfort


@case("while-convergence", "nested-def", "raise", large=MEDIUM, inputs=lambda rng, n, bad: (
    U(rng, n, 15, 32), U(rng, n, 15, 35), U(rng, n, 0, 1.5), U(rng, n, 20, 80),
    spoil(rng, U(rng, n, 0.8, 3), [0.0, -1.0], bad), U(rng, n, 0, 2)))
def pmv_simplified(ta, tr, vel, rh, met, clo):
    if met <= 0:
        raise ValueError("metabolic rate must be positive")

    def conv(tcl):
        return max(2.38 * abs(tcl - ta) ** 0.25, 12.1 * math.sqrt(vel))

    pa = rh * 10 * math.exp(16.6536 - 4030.183 / (ta + 235))
    icl = 0.155 * clo
    m = met * 58.15
    fcl = 1.0 + 1.29 * icl if icl <= 0.078 else 1.05 + 0.645 * icl
    tcl = ta + (35.5 - ta) / (3.5 * icl + 0.1)
    n = 0
    while n < 150:
        hc = conv(tcl)
        new = (35.7 - 0.028 * m - icl * (3.96e-8 * fcl * ((tcl + 273) ** 4 - (tr + 273) ** 4)
                                         + fcl * hc * (tcl - ta)))
        if abs(new - tcl) < 1e-9:
            tcl = new
            break
        tcl = 0.5 * (tcl + new)
        n += 1
    hc = conv(tcl)
    loss = (3.05e-3 * (5733 - 6.99 * m - pa) + 0.42 * (m - 58.15) + 1.7e-5 * m * (5867 - pa)
            + 0.0014 * m * (34 - ta) + 3.96e-8 * fcl * ((tcl + 273) ** 4 - (tr + 273) ** 4)
            + fcl * hc * (tcl - ta))
    return (0.303 * math.exp(-0.036 * m) + 0.028) * (m - loss)


@case("elementwise", inputs=lambda rng, n, bad: (U(rng, n, -3, 3),))
def ppd_from_pmv(pmv):
    return 100.0 - 95.0 * math.exp(-0.03353 * pmv ** 4 - 0.2179 * pmv ** 2)


@case("if-elif", inputs=lambda rng, n, bad: (
    U(rng, n, 10, 35), U(rng, n, 10, 45), sprinkle(rng, U(rng, n, 0, 2), [0.2, 0.0])))
def operative_temperature(ta, tr, vel):
    if vel < 0.2:
        return 0.5 * (ta + tr)
    elif vel < 0.6:
        return 0.6 * ta + 0.4 * tr
    return 0.7 * ta + 0.3 * tr


@case("string-result", "if-elif", inputs=lambda rng, n, bad: (U(rng, n, -50, 55),))
def utci_stress_category(utci):
    if utci > 46:
        return "extreme heat stress"
    elif utci > 38:
        return "very strong heat stress"
    elif utci > 32:
        return "strong heat stress"
    elif utci > 26:
        return "moderate heat stress"
    elif utci > 9:
        return "no thermal stress"
    elif utci > 0:
        return "slight cold stress"
    elif utci > -13:
        return "moderate cold stress"
    return "strong cold stress"


@case("*args", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 0.5), U(rng, n, 0, 0.5), U(rng, n, 0, 1)))
def clothing_insulation(*layers):
    total = 0.0
    for clo in layers:
        total += clo
    return 0.835 * total + 0.161


@case("lambda", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, 18, 32), U(rng, n, 0.5, 2.0)))
def sweat_rate(t_skin, met):
    excess = lambda t: max(t - 34.0, 0.0)  # noqa: E731 - as real code writes it
    return 0.42 * (met * 58.15 - 58.15) + 42.0 * excess(t_skin)


# =========================================================================== orbits


def _check_eccentricity(e):
    if e < 0 or e >= 1:
        raise ValueError(f"elliptic orbits only: e = {e}")


@case("raise-in-helper", "while-convergence", "fstring-raise", large=MEDIUM,
      inputs=lambda rng, n, bad: (
          sprinkle(rng, U(rng, n, -10, 10), [0.0, -0.0, math.pi]),
          spoil(rng, U(rng, n, 0, 0.99), [1.0, 1.5, -0.1], bad)))
def kepler_eccentric_anomaly(mean_anomaly, e):
    _check_eccentricity(e)
    m = math.fmod(mean_anomaly, 2 * math.pi)
    ecc = m if e < 0.8 else math.pi
    for _ in range(100):
        step = (ecc - e * math.sin(ecc) - m) / (1 - e * math.cos(ecc))
        ecc -= step
        if abs(step) < 1e-14:
            break
    return ecc


@case("raise-in-helper", "helper", "while-convergence", large=MEDIUM,
      inputs=lambda rng, n, bad: (
          U(rng, n, 0, 2 * math.pi), spoil(rng, U(rng, n, 0, 0.95), [1.2], bad)))
def true_anomaly(mean_anomaly, e):
    ecc = kepler_eccentric_anomaly(mean_anomaly, e)
    return 2.0 * math.atan2(math.sqrt(1 + e) * math.sin(ecc / 2),
                            math.sqrt(1 - e) * math.cos(ecc / 2))


@case("round-divmod", "tuple-return", "int-conversion", inputs=lambda rng, n, bad: (
    np.round(I(rng, n, 0, 99) * 1000 + U(rng, n, 1, 366), 8),))
def tle_epoch_split(epoch):
    yy = int(epoch // 1000)
    year = 2000 + yy if yy < 57 else 1900 + yy
    day_of_year = epoch - yy * 1000
    day = int(day_of_year)
    seconds = round((day_of_year - day) * 86400.0, 3)
    hours, rem = divmod(seconds, 3600)
    minutes, secs = divmod(rem, 60)
    return year, day, int(hours), int(minutes), secs


@case("round-divmod", "elementwise", inputs=lambda rng, n, bad: (U(rng, n, 0, 1),))
def fraction_of_day_seconds(frac):
    return round(frac * 86400.0, 3)


@case("integer-arithmetic", "if-elif", inputs=lambda rng, n, bad: (
    I(rng, n, 1600, 2400), I(rng, n, 1, 12), I(rng, n, 1, 28)))
def julian_day_number(year, month, day):
    if month <= 2:
        year -= 1
        month += 12
    a = year // 100
    b = 2 - a + a // 4
    return int(365.25 * (year + 4716)) + int(30.6001 * (month + 1)) + day + b - 1524


@case("round-divmod", "tuple-return", "int-conversion", "if-elif", inputs=lambda rng, n, bad: (
    U(rng, n, 2.3e6, 2.5e6),))
def calendar_from_jd(jd):
    z, f = divmod(jd + 0.5, 1.0)
    z = int(z)
    if z < 2299161:
        a = z
    else:
        alpha = int((z - 1867216.25) / 36524.25)
        a = z + 1 + alpha - alpha // 4
    b = a + 1524
    c = int((b - 122.1) / 365.25)
    d = int(365.25 * c)
    e = int((b - d) / 30.6001)
    day = b - d - int(30.6001 * e) + f
    month = e - 1 if e < 14 else e - 13
    year = c - 4716 if month > 2 else c - 4715
    return year, month, day


@case("modulo", "elementwise", inputs=lambda rng, n, bad: (U(rng, n, 2.4e6, 2.5e6),))
def gmst_hours(jd):
    t = (jd - 2451545.0) / 36525.0
    g = 18.697374558 + 24.06570982441908 * (jd - 2451545.0) + 0.000026 * t * t
    return g % 24.0


@case("raise", "elementwise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 6.6e6, 5e7), [0.0, -7e6], bad),))
def orbital_period_s(a):
    if a <= 0:
        raise ValueError("semi-major axis must be positive")
    return 2 * math.pi * math.sqrt(a ** 3 / 3.986004418e14)


@case("math-domain", "elementwise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 7e6, 1.2e7), [5e7], bad), U(rng, n, 1.2e7, 2e7)))
def vis_viva_speed(r, a):
    return math.sqrt(3.986004418e14 * (2.0 / r - 1.0 / a))


@case("tuple-return", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, 6.6e6, 5e7), U(rng, n, 6.6e6, 5e7)))
def hohmann_delta_v(r1, r2):
    mu = 3.986004418e14
    a = 0.5 * (r1 + r2)
    dv1 = math.sqrt(mu / r1) * (math.sqrt(r2 / a) - 1)
    dv2 = math.sqrt(mu / r2) * (1 - math.sqrt(r1 / a))
    return abs(dv1), abs(dv2)


@case("while-convergence", "raise", large=MEDIUM, inputs=lambda rng, n, bad: (
    U(rng, n, -20, 20), spoil(rng, U(rng, n, 1.01, 5), [1.0, 0.5], bad)))
def hyperbolic_anomaly(mean_anomaly, e):
    if e <= 1:
        raise ValueError("hyperbolic orbits only")
    h = math.asinh(mean_anomaly / e)
    k = 0
    while k < 60:
        step = (e * math.sinh(h) - h - mean_anomaly) / (e * math.cosh(h) - 1)
        h -= step
        k += 1
        if abs(step) < 1e-13:
            break
    return h


@case("modulo", "if-elif", inputs=lambda rng, n, bad: (U(rng, n, -1e5, 1e5),))
def wrap_degrees(angle):
    a = math.fmod(angle, 360.0)
    if a < 0:
        a += 360.0
    return a


MOON_PHASES = ("new", "waxing crescent", "first quarter", "waxing gibbous", "full",
               "waning gibbous", "last quarter", "waning crescent")


@case("table-index", "string-result", "int-conversion", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 1e4),))
def moon_phase_name(days_since_new):
    phase = (days_since_new % 29.530588853) / 29.530588853
    return MOON_PHASES[int(phase * 8 + 0.5) % 8]


@case("elementwise", inputs=lambda rng, n, bad: (U(rng, n, 1, 366),))
def equation_of_time_min(day_of_year):
    b = 2 * math.pi * (day_of_year - 81) / 364.0
    return 9.87 * math.sin(2 * b) - 7.53 * math.cos(b) - 1.5 * math.sin(b)


@case("early-return", "inf-result", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0, 100), [90.0, 0.0]),))
def airmass_kasten(zenith_deg):
    if zenith_deg >= 90:
        return math.inf
    return 1.0 / (math.cos(math.radians(zenith_deg))
                  + 0.50572 * (96.07995 - zenith_deg) ** -1.6364)


# =========================================================================== geodesy

EARTH_R = 6371008.8
WGS84_A = 6378137.0
WGS84_F = 1 / 298.257223563
WGS84_B = WGS84_A * (1 - WGS84_F)


def _latlon(rng, n):
    return U(rng, n, -90, 90), U(rng, n, -180, 180)


@case("elementwise", inputs=lambda rng, n, bad: (*_latlon(rng, n), *_latlon(rng, n)))
def haversine_m(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp = p2 - p1
    dl = math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_R * math.asin(min(1.0, math.sqrt(a)))


def _vincenty_inputs(rng, n, bad):
    lat1, lon1 = _latlon(rng, n)
    lat2, lon2 = U(rng, n, -80, 80), U(rng, n, -170, 170)
    if n:
        k = rng.integers(0, n, max(1, n // 200))
        lat2[k], lon2[k] = lat1[k], lon1[k]     # coincident points: early return
    return lat1, lon1, lat2, lon2


@case("for-break-convergence", "early-return-in-loop", "nan-result", large=SMALL, rtol=1e-9,
      rtol_reason="an iteration to 1e-12 whose trip count a last-bit difference of math.sin "
                  "and np.sin can change", inputs=_vincenty_inputs)
def vincenty_distance(lat1, lon1, lat2, lon2):
    u1 = math.atan((1 - WGS84_F) * math.tan(math.radians(lat1)))
    u2 = math.atan((1 - WGS84_F) * math.tan(math.radians(lat2)))
    big_l = math.radians(lon2 - lon1)
    lam = big_l
    su1, cu1, su2, cu2 = math.sin(u1), math.cos(u1), math.sin(u2), math.cos(u2)
    converged = False
    for _ in range(200):
        sl, cl = math.sin(lam), math.cos(lam)
        sin_sigma = math.sqrt((cu2 * sl) ** 2 + (cu1 * su2 - su1 * cu2 * cl) ** 2)
        if sin_sigma == 0:
            return 0.0
        cos_sigma = su1 * su2 + cu1 * cu2 * cl
        sigma = math.atan2(sin_sigma, cos_sigma)
        sin_alpha = cu1 * cu2 * sl / sin_sigma
        cos2_alpha = 1 - sin_alpha ** 2
        cos_2sm = cos_sigma - 2 * su1 * su2 / cos2_alpha if cos2_alpha != 0 else 0.0
        c = WGS84_F / 16 * cos2_alpha * (4 + WGS84_F * (4 - 3 * cos2_alpha))
        prev = lam
        lam = big_l + (1 - c) * WGS84_F * sin_alpha * (
            sigma + c * sin_sigma * (cos_2sm + c * cos_sigma * (-1 + 2 * cos_2sm ** 2)))
        if abs(lam - prev) < 1e-12:
            converged = True
            break
    if not converged:
        return math.nan
    u_sq = cos2_alpha * (WGS84_A ** 2 - WGS84_B ** 2) / WGS84_B ** 2
    a = 1 + u_sq / 16384 * (4096 + u_sq * (-768 + u_sq * (320 - 175 * u_sq)))
    b = u_sq / 1024 * (256 + u_sq * (-128 + u_sq * (74 - 47 * u_sq)))
    d_sigma = b * sin_sigma * (cos_2sm + b / 4 * (cos_sigma * (-1 + 2 * cos_2sm ** 2)
                                                 - b / 6 * cos_2sm * (-3 + 4 * sin_sigma ** 2)
                                                 * (-3 + 4 * cos_2sm ** 2)))
    return WGS84_B * a * (sigma - d_sigma)


@case("modulo", "elementwise", inputs=lambda rng, n, bad: (*_latlon(rng, n), *_latlon(rng, n)))
def initial_bearing_deg(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dl = math.radians(lon2 - lon1)
    x = math.sin(dl) * math.cos(p2)
    y = math.cos(p1) * math.sin(p2) - math.sin(p1) * math.cos(p2) * math.cos(dl)
    return (math.degrees(math.atan2(x, y)) + 360.0) % 360.0


@case("round-divmod", "tuple-return", "int-conversion", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -180, 180), [0.0, -0.0, 1 / 3]),))
def degrees_to_dms(deg):
    sign = -1 if deg < 0 else 1
    total = round(abs(deg) * 3600.0, 2)
    d, rem = divmod(total, 3600)
    m, s = divmod(rem, 60)
    return sign * int(d), int(m), s


@case("int-conversion", "if-elif", "raise", "math-floor", inputs=lambda rng, n, bad: (
    U(rng, n, -180, 179.9), spoil(rng, U(rng, n, -80, 84), [85.0, -81.0], bad)))
def utm_zone(lon, lat):
    if not -80.0 <= lat <= 84.0:
        raise ValueError("outside the UTM latitude band")
    zone = int(math.floor((lon + 180.0) / 6.0)) + 1
    if 56.0 <= lat < 64.0 and 3.0 <= lon < 12.0:
        zone = 32
    elif 72.0 <= lat:
        if 0.0 <= lon < 9.0:
            zone = 31
        elif 9.0 <= lon < 21.0:
            zone = 33
        elif 21.0 <= lon < 33.0:
            zone = 35
        elif 33.0 <= lon < 42.0:
            zone = 37
    return zone


LAT_BANDS = "CDEFGHJKLMNPQRSTUVWXX"


@case("table-index", "string-result", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, -80, 84), [-85.0, 90.0], bad),))
def mgrs_latitude_band(lat):
    if lat < -80 or lat > 84:
        raise ValueError("no latitude band")
    return LAT_BANDS[int((lat + 80) // 8)]


@case("tuple-return", "elementwise", inputs=lambda rng, n, bad: (
    *_latlon(rng, n), U(rng, n, -100, 9000)))
def geodetic_to_ecef(lat, lon, h):
    e2 = WGS84_F * (2 - WGS84_F)
    p, lam = math.radians(lat), math.radians(lon)
    n_rad = WGS84_A / math.sqrt(1 - e2 * math.sin(p) ** 2)
    return ((n_rad + h) * math.cos(p) * math.cos(lam),
            (n_rad + h) * math.cos(p) * math.sin(lam),
            (n_rad * (1 - e2) + h) * math.sin(p))


@case("fixed-range-loop", "elementwise", large=MEDIUM, inputs=lambda rng, n, bad: (
    U(rng, n, -6.4e6, 6.4e6), U(rng, n, -6.4e6, 6.4e6), U(rng, n, -6.3e6, 6.3e6)))
def ecef_latitude(x, y, z):
    e2 = WGS84_F * (2 - WGS84_F)
    p = math.hypot(x, y)
    lat = math.atan2(z, p * (1 - e2))
    for _ in range(5):
        n_rad = WGS84_A / math.sqrt(1 - e2 * math.sin(lat) ** 2)
        h = p / math.cos(lat) - n_rad
        lat = math.atan2(z, p * (1 - e2 * n_rad / (n_rad + h)))
    return math.degrees(lat)


@case("tuple-return", "elementwise", inputs=lambda rng, n, bad: (
    *_latlon(rng, n), U(rng, n, 0, 360), U(rng, n, 0, 2e6)))
def destination_point(lat, lon, bearing, dist):
    d = dist / EARTH_R
    p1, l1, th = math.radians(lat), math.radians(lon), math.radians(bearing)
    p2 = math.asin(math.sin(p1) * math.cos(d) + math.cos(p1) * math.sin(d) * math.cos(th))
    l2 = l1 + math.atan2(math.sin(th) * math.sin(d) * math.cos(p1),
                         math.cos(d) - math.sin(p1) * math.sin(p2))
    return math.degrees(p2), (math.degrees(l2) + 540.0) % 360.0 - 180.0


@case("try-except", "math-domain", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -1.2, 1.2), [1.0, -1.0, 0.0]),))
def safe_acos_deg(c):
    try:
        return math.degrees(math.acos(c))
    except ValueError:
        return 0.0 if c > 0 else 180.0


# =========================================================================== solar


def _declination(doy):
    return 23.44 * math.sin(math.radians(360.0 / 365.0 * (doy - 81)))


@case("elementwise", "helper", inputs=lambda rng, n, bad: (U(rng, n, 1, 366),))
def solar_declination(doy):
    return _declination(doy)


@case("helper", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, -90, 90), I(rng, n, 1, 366), U(rng, n, 0, 24)))
def solar_elevation_deg(lat, doy, hour):
    dec = math.radians(_declination(doy))
    ha = math.radians(15.0 * (hour - 12.0))
    p = math.radians(lat)
    s = math.sin(p) * math.sin(dec) + math.cos(p) * math.cos(dec) * math.cos(ha)
    return math.degrees(math.asin(s))


@case("if-elif", "early-return", "helper", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -89, 89), [0.0, 80.0, -80.0]), U(rng, n, 1, 366)))
def sunrise_hour_angle(lat, doy):
    cos_h = -math.tan(math.radians(lat)) * math.tan(math.radians(_declination(doy)))
    if cos_h > 1:
        return 0.0
    elif cos_h < -1:
        return 180.0
    return math.degrees(math.acos(cos_h))


@case("helper", "nested-call", inputs=lambda rng, n, bad: (
    U(rng, n, -89, 89), U(rng, n, 1, 366)))
def day_length_hours(lat, doy):
    return 2.0 * sunrise_hour_angle(lat, doy) / 15.0


@case("early-return", "elementwise", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0, 120), [90.0]),))
def clear_sky_ghi(zenith):
    if zenith >= 90.0:
        return 0.0
    cz = math.cos(math.radians(zenith))
    return 1098.0 * cz * math.exp(-0.057 / cz)


@case("if-elif", "modulo", inputs=lambda rng, n, bad: (
    U(rng, n, -89, 89), U(rng, n, -23, 23), U(rng, n, -180, 180)))
def solar_azimuth_deg(lat, dec, hour_angle):
    p, d, h = math.radians(lat), math.radians(dec), math.radians(hour_angle)
    az = math.degrees(math.atan2(math.sin(h), math.cos(h) * math.sin(p)
                                 - math.tan(d) * math.cos(p)))
    if az < 0:
        az += 360.0
    az = (az + 180.0) % 360.0
    return az


@case("if-elif", "clip", inputs=lambda rng, n, bad: (U(rng, n, -0.1, 1.2),))
def clearness_diffuse_fraction(kt):
    if kt <= 0.22:
        return 1.0 - 0.09 * kt
    elif kt <= 0.8:
        return 0.9511 - 0.1604 * kt + 4.388 * kt ** 2 - 16.638 * kt ** 3 + 12.336 * kt ** 4
    return 0.165


# =========================================================================== finance


def _norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@case("helper", "erf", "raise", "early-return", rtol=1e-9,
      rtol_reason="s N(d1) - k exp(-rt) N(d2) cancels for deep out-of-the-money options: a "
                  "last-bit difference of exp/log/erf grows to ~1e-12 relative",
      inputs=lambda rng, n, bad: (
    U(rng, n, 50, 150), U(rng, n, 50, 150), sprinkle(rng, U(rng, n, 0, 3), [0.0]),
    U(rng, n, 0, 0.1), spoil(rng, U(rng, n, 0.05, 0.8), [0.0, -0.2], bad)))
def black_scholes_call(s, k, t, r, sigma):
    if sigma <= 0:
        raise ValueError("volatility must be positive")
    if t == 0:
        return max(s - k, 0.0)
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    return s * _norm_cdf(d1) - k * math.exp(-r * t) * _norm_cdf(d2)


@case("helper", "erf", "elementwise", rtol=1e-9,
      rtol_reason="k exp(-rt) N(-d2) - s N(-d1) cancels for deep out-of-the-money options",
      inputs=lambda rng, n, bad: (
    U(rng, n, 50, 150), U(rng, n, 50, 150), U(rng, n, 0.01, 3), U(rng, n, 0, 0.1),
    U(rng, n, 0.05, 0.8)))
def black_scholes_put(s, k, t, r, sigma):
    d1 = (math.log(s / k) + (r + 0.5 * sigma * sigma) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    return k * math.exp(-r * t) * _norm_cdf(-d2) - s * _norm_cdf(-d1)


@case("for-break-convergence", "helper", "early-return", large=SMALL, rtol=1e-9,
      rtol_reason="bisection stops at 1e-10 on prices computed with erf/exp, whose last bits "
                  "NumPy's functions may not share",
      inputs=lambda rng, n, bad: (
          U(rng, n, 1, 30), U(rng, n, 80, 120), U(rng, n, 80, 120), U(rng, n, 0.1, 2)))
def implied_vol_bisection(price, s, k, t):
    lo, hi = 1e-4, 5.0
    if black_scholes_call(s, k, t, 0.0, hi) < price:
        return math.nan
    mid = 0.5 * (lo + hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        val = black_scholes_call(s, k, t, 0.0, mid)
        if abs(val - price) < 1e-10:
            break
        if val > price:
            hi = mid
        else:
            lo = mid
    return mid


@case("per-example-range", "accumulate", large=MEDIUM, inputs=lambda rng, n, bad: (
    U(rng, n, 100, 1000), U(rng, n, 0, 0.1), spoil(rng, U(rng, n, -0.05, 0.15), [-1.0], bad),
    I(rng, n, 0, 40)))
def bond_price(face, coupon_rate, ytm, periods):
    price = 0.0
    coupon = face * coupon_rate
    for k in range(1, periods + 1):
        price += coupon / (1 + ytm) ** k
    return price + face / (1 + ytm) ** periods


@case("if-elif", "raise", "early-return", rtol=1e-9,
      rtol_reason="1 - (1 + r) ** -n cancels for tiny rates: a last-bit difference of the "
                  "power grows by 1 / (n r)",
      inputs=lambda rng, n, bad: (
    U(rng, n, 1e3, 1e6), sprinkle(rng, U(rng, n, 0, 0.2), [0.0]),
    spoil(rng, I(rng, n, 1, 40), [0, -3], bad)))
def amortization_payment(principal, annual_rate, years):
    if years <= 0:
        raise ValueError("term must be at least one year")
    n = years * 12
    if annual_rate == 0:
        return principal / n
    r = annual_rate / 12
    return principal * r / (1 - (1 + r) ** -n)


@case("per-example-range", "accumulate", "int-args", large=MEDIUM, inputs=lambda rng, n, bad: (
    U(rng, n, 1e3, 1e6), U(rng, n, 0.001, 0.2), I(rng, n, 12, 360), I(rng, n, 0, 11)))
def remaining_balance(principal, annual_rate, n_months, paid):
    r = annual_rate / 12
    pay = principal * r / (1 - (1 + r) ** -n_months)
    bal = principal
    for _ in range(paid):
        bal = bal * (1 + r) - pay
    return bal


@case("elementwise", "raise", inputs=lambda rng, n, bad: (
    U(rng, n, 1, 1e5), U(rng, n, -0.05, 0.2), U(rng, n, 0, 50),
    spoil(rng, I(rng, n, 1, 365), [0], bad)))
def compound_amount(p, rate, years, per_year):
    if per_year < 1:
        raise ValueError("compounding frequency must be at least 1")
    return p * (1 + rate / per_year) ** (per_year * years)


@case("*args", "enumerate", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, -0.5, 0.5), [-1.0], bad), U(rng, n, -1e4, 0), U(rng, n, 0, 5e3),
    U(rng, n, 0, 5e3), U(rng, n, 0, 5e3)))
def npv(rate, *cash_flows):
    total = 0.0
    for t, c in enumerate(cash_flows):
        total += c / (1 + rate) ** t
    return total


@case("while-convergence", "raise", "nan-result", large=MEDIUM, rtol=1e-9,
      rtol_reason="Newton to 1e-12 on a polynomial whose last bits can differ",
      inputs=lambda rng, n, bad: (
          U(rng, n, -1e4, -100), U(rng, n, 0, 5e3), U(rng, n, 0, 5e3), U(rng, n, 100, 5e3)))
def irr_newton(c0, c1, c2, c3):
    r = 0.1
    it = 0
    while it < 100:
        v = 1 + r
        f = c0 + c1 / v + c2 / v ** 2 + c3 / v ** 3
        df = -c1 / v ** 2 - 2 * c2 / v ** 3 - 3 * c3 / v ** 4
        if df == 0:
            raise ValueError("flat NPV")
        step = f / df
        r -= step
        if r <= -1:
            return math.nan
        if abs(step) < 1e-12:
            return r
        it += 1
    return math.nan


TAX_BRACKETS = ((11000.0, 0.10), (44725.0, 0.12), (95375.0, 0.22), (182100.0, 0.24),
                (231250.0, 0.32), (578125.0, 0.35), (math.inf, 0.37))


@case("for-over-table", "for-break-table", "accumulate", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0, 1e6), [0.0, 11000.0]),))
def income_tax_due(income):
    tax = 0.0
    lower = 0.0
    for upper, rate in TAX_BRACKETS:
        if income <= lower:
            break
        tax += (min(income, upper) - lower) * rate
        lower = upper
    return tax


@case("while-loop", "raise", "int-result", large=MEDIUM, inputs=lambda rng, n, bad: (
    U(rng, n, 100, 2e4), U(rng, n, 0, 0.3), spoil(rng, U(rng, n, 300, 1000), [1.0], bad)))
def months_to_payoff(balance, annual_rate, payment):
    r = annual_rate / 12
    if payment <= balance * r:
        raise ValueError("payment does not cover the interest")
    months = 0
    while balance > 0 and months < 1000:
        balance = balance * (1 + r) - payment
        months += 1
    return months


@case("per-example-range", "accumulate", "early-return", large=MEDIUM,
      inputs=lambda rng, n, bad: (
          U(rng, n, 0.001, 0.15), U(rng, n, 0, 0.1), I(rng, n, 0, 30)))
def macaulay_duration(ytm, coupon_rate, periods):
    if periods == 0:
        return 0.0
    num = 0.0
    den = 0.0
    for k in range(1, periods + 1):
        cf = coupon_rate * 100 + (100 if k == periods else 0)
        pv = cf / (1 + ytm) ** k
        num += k * pv
        den += pv
    return num / den


@case("string-result", "if-elif", inputs=lambda rng, n, bad: (U(rng, n, 300, 850),))
def credit_rating(score):
    if score >= 800:
        return "exceptional"
    if score >= 740:
        return "very good"
    if score >= 670:
        return "good"
    if score >= 580:
        return "fair"
    return "poor"


# =========================================================================== statistics


@case("fixed-range-loop", "tuple-swap", "int-args", large=SMALL, inputs=lambda rng, n, bad: (
    U(rng, n, 0.05, 0.6), U(rng, n, 0.02, 0.3)))
def sir_final_susceptible(beta, gamma):
    s, i, r = 0.999, 0.001, 0.0
    dt = 0.5
    for _ in range(200):
        new_inf = beta * s * i * dt
        new_rec = gamma * i * dt
        s, i, r = s - new_inf, i + new_inf - new_rec, r + new_rec
    return s


@case("if-elif", "overflow-guard", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -800, 800), [0.0, -0.0, INF, -INF, NAN]),))
def logistic_stable(x):
    if x >= 0:
        z = math.exp(-x)
        return 1.0 / (1.0 + z)
    z = math.exp(x)
    return z / (1.0 + z)


@case("elementwise", "overflow", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, -700, 700), [-800.0], bad),))
def logistic_naive(x):
    return 1.0 / (1.0 + math.exp(-x))


@case("comb", "int-args", "math-domain", inputs=lambda rng, n, bad: (
    spoil(rng, I(rng, n, 0, 30), [-1], bad), I(rng, n, 30, 60), U(rng, n, 0, 1)))
def binomial_pmf(k, n, p):
    return math.comb(n, k) * p ** k * (1 - p) ** (n - k)


@case("lgamma", "raise", "early-return", inputs=lambda rng, n, bad: (
    I(rng, n, 0, 200), spoil(rng, I(rng, n, 200, 400), [-5], bad),
    sprinkle(rng, U(rng, n, 0, 1), [0.0, 1.0])))
def binomial_pmf_lgamma(k, n, p):
    if n < 0:
        raise ValueError("n must be non-negative")
    if p == 0.0:
        return 1.0 if k == 0 else 0.0
    if p == 1.0:
        return 1.0 if k == n else 0.0
    log_c = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    return math.exp(log_c + k * math.log(p) + (n - k) * math.log1p(-p))


@case("per-example-range", "accumulate", large=MEDIUM, inputs=lambda rng, n, bad: (
    I(rng, n, 0, 40), U(rng, n, 0.1, 30)))
def poisson_cdf(k, lam):
    term = math.exp(-lam)
    total = term
    for i in range(1, k + 1):
        term *= lam / i
        total += term
    return total


NQ_A = (-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690,
        -30.66479806614716, 2.506628277459239)
NQ_B = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
        -13.28068155288572)
NQ_C = (-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
        4.374664141464968, 2.938163982698783)
NQ_D = (0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416)


@case("if-elif", "raise", "table-lookup", "rational-approx", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 1e-9, 1 - 1e-9), [0.0, 1.0, -0.5], bad),))
def normal_quantile(p):
    if p <= 0 or p >= 1:
        raise ValueError("p must lie in (0, 1)")
    a, b, c, d = NQ_A, NQ_B, NQ_C, NQ_D
    if p < 0.02425:
        q = math.sqrt(-2 * math.log(p))
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    elif p > 1 - 0.02425:
        q = math.sqrt(-2 * math.log(1 - p))
        return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / \
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
    q = p - 0.5
    r = q * q
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q / \
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)


@case("elementwise", "unguarded-division", inputs=lambda rng, n, bad: (
    U(rng, n, -0.2, 0.5), spoil(rng, U(rng, n, 1, 15), [0.0], bad)))
def r0_from_growth_rate(r, generation_time):
    return math.exp(r * generation_time) if generation_time > 30 else 1 + r * generation_time \
        + (r * generation_time) ** 2 / (2 * generation_time / generation_time)


@case("while-loop", "tuple-swap", "int-result", large=MEDIUM, inputs=lambda rng, n, bad: (
    U(rng, n, 0.2, 1.0), U(rng, n, 0.1, 0.5), U(rng, n, 0.05, 0.3)))
def seir_peak_day(beta, sigma, gamma):
    s, e, i = 0.99, 0.0, 0.01
    day = 0
    prev = i
    while day < 365:
        s, e, i = (s - beta * s * i, e + beta * s * i - sigma * e,
                   i + sigma * e - gamma * i)
        if i < prev:
            break
        prev = i
        day += 1
    return day


@case("string-result", "if-elif", "raise", inputs=lambda rng, n, bad: (
    U(rng, n, 30, 150), spoil(rng, U(rng, n, 1.4, 2.1), [0.0, -1.7], bad)))
def bmi_category(weight_kg, height_m):
    if height_m <= 0:
        raise ValueError("height must be positive")
    bmi = weight_kg / height_m ** 2
    if bmi < 18.5:
        return "underweight"
    elif bmi < 25:
        return "normal"
    elif bmi < 30:
        return "overweight"
    return "obese"


def _successes_trials(rng, n, bad):
    trials = I(rng, n, 1, 100)
    successes = (U(rng, n, 0, 1) * (trials + 1)).astype(np.int64)
    return np.minimum(successes, trials), spoil(rng, trials, [0], bad)


@case("unguarded-division", "elementwise", inputs=_successes_trials)
def wilson_lower_bound(k, n):
    z = 1.959963984540054
    phat = k / n
    denom = 1 + z * z / n
    centre = phat + z * z / (2 * n)
    margin = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n))
    return (centre - margin) / denom


@case("unguarded-division", "int-args", inputs=lambda rng, n, bad: (
    I(rng, n, 0, 100), spoil(rng, I(rng, n, 1, 100), [0], bad), I(rng, n, 1, 100),
    I(rng, n, 0, 100)))
def odds_ratio(a, b, c, d):
    return (a * d) / (b * c)


@case("early-return", "elementwise", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0, 10), [1.0, 0.0]),))
def herd_immunity_threshold(r0):
    if r0 <= 1:
        return 0.0
    return 1.0 - 1.0 / r0


@case("tuple-return", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0.1, 20), [0.0, -1.0], bad), U(rng, n, 0.1, 20)))
def beta_mean_variance(a, b):
    if a <= 0 or b <= 0:
        raise ValueError("shape parameters must be positive")
    s = a + b
    return a / s, a * b / (s * s * (s + 1))


@case("erfc", "elementwise", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -8, 8), [0.0, INF, -INF, NAN]),))
def two_sided_p_value(z):
    return math.erfc(abs(z) / math.sqrt(2.0))


@case("gamma", "math-domain", "overflow", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0.1, 50), [0.0, -2.0, 200.0], bad),))
def gamma_function(x):
    return math.gamma(x)


@case("sum-of-list", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 10), U(rng, n, 0, 10), U(rng, n, 0, 10), U(rng, n, 0, 10), U(rng, n, 0, 10)))
def mean_of_five_readings(a, b, c, d, e):
    return sum([a, b, c, d, e]) / 5


@case("list-literal", "max-of-list", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 10), U(rng, n, 0, 10), U(rng, n, 0, 10)))
def max_reading_range(a, b, c):
    vals = [a, b, c]
    return max(vals) - min(vals)


@case("shared-array", "per-example-loop", excluded=(1,), inputs=lambda rng, n, bad: (
    U(rng, n, -1, 1), np.array([1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625])))
def moment_series(x, coeffs):
    acc = 0.0
    for i in range(len(coeffs)):
        acc += coeffs[i]
        coeffs = coeffs * x
    return acc


@case("try-except", "unguarded-division", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0, 100), [0.0]), sprinkle(rng, U(rng, n, 0, 100), [0.0])))
def incidence_rate_ratio(cases_a, cases_b):
    try:
        return cases_a / cases_b
    except ZeroDivisionError:
        return math.nan


@case("assert", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0, 1), [1.5, -0.1], bad),))
def entropy_bernoulli(p):
    assert 0.0 <= p <= 1.0, "probability out of range"
    if p == 0.0 or p == 1.0:
        return 0.0
    return -(p * math.log2(p) + (1 - p) * math.log2(1 - p))


@case("list-comprehension", "fixed-range-loop", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 1),))
def geometric_weights_sum(q):
    weights = [q ** k for k in range(6)]
    return sum(weights)


@case("import-in-body", "elementwise", inputs=lambda rng, n, bad: (U(rng, n, -5, 5),))
def softplus(x):
    from math import exp, log1p
    return max(x, 0.0) + log1p(exp(-abs(x)))


@case("recursion", "int-args", inputs=lambda rng, n, bad: (
    spoil(rng, I(rng, n, 0, 15), [-1], bad),))
def factorial_recursive(n):
    if n < 0:
        raise ValueError("negative factorial")
    if n <= 1:
        return 1
    return n * factorial_recursive(n - 1)


@case("kwargs-default", "elementwise", inputs=lambda rng, n, bad: (U(rng, n, -3, 3),))
def gaussian_pdf(x, mu=0.0, sigma=1.0):
    return math.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))


@case("walrus", "if-elif", inputs=lambda rng, n, bad: (U(rng, n, -5, 5), U(rng, n, -5, 5)))
def radial_score(x, y):
    if (r := math.hypot(x, y)) > 3:
        return 0.0
    return 1.0 - r / 3.0


@case("isinstance", "elementwise", inputs=lambda rng, n, bad: (U(rng, n, 0, 100),))
def percent_to_fraction(value):
    if isinstance(value, int):
        return value / 100
    return value * 0.01


@case("loop-else", "int-result", "per-example-range", inputs=lambda rng, n, bad: (
    I(rng, n, 2, 500),))
def is_prime(n):
    if n < 2:
        return False
    for d in range(2, int(math.isqrt(n)) + 1):
        if n % d == 0:
            break
    else:
        return True
    return False


@case("int-overflow", "int-args", inputs=lambda rng, n, bad: (
    spoil(rng, I(rng, n, -1000, 1000), [3_000_000], bad),))
def fourth_power_count(n):
    return n ** 4 - n ** 2


@case("int-args", "unguarded-division", "modulo", inputs=lambda rng, n, bad: (
    I(rng, n, -1000, 1000), spoil(rng, I(rng, n, 1, 50), [0], bad)))
def floor_div_mod(a, b):
    q, r = divmod(a, b)
    return q * 1000 + r


# =========================================================================== games


@case("per-example-range", "comb", "int-args", "int-result", large=MEDIUM,
      inputs=lambda rng, n, bad: (I(rng, n, 1, 36), I(rng, n, 1, 6)))
def dice_sum_ways(total, n_dice):
    ways = 0
    for k in range(0, (total - n_dice) // 6 + 1):
        ways += (-1) ** k * math.comb(n_dice, k) * math.comb(total - 6 * k - 1, n_dice - 1)
    return ways


@case("elementwise", inputs=lambda rng, n, bad: (U(rng, n, 800, 2800), U(rng, n, 800, 2800)))
def elo_expected_score(ra, rb):
    return 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0))


@case("helper", "if-elif", "raise", inputs=lambda rng, n, bad: (
    U(rng, n, 800, 2800), U(rng, n, 800, 2800),
    spoil(rng, rng.choice([0.0, 0.5, 1.0], n), [2.0, -1.0], bad)))
def elo_update(ra, rb, score):
    if score not in (0.0, 0.5, 1.0):
        raise ValueError(f"score must be 0, 0.5 or 1, got {score}")
    k = 40 if ra < 1400 else (20 if ra < 2400 else 10)
    return ra + k * (score - elo_expected_score(ra, rb))


CRAPS_POINT_WIN = {4: 1 / 3, 5: 2 / 5, 6: 5 / 11, 8: 5 / 11, 9: 2 / 5, 10: 1 / 3}


@case("dict-lookup", "int-args", inputs=lambda rng, n, bad: (I(rng, n, 2, 12),))
def craps_point_win_probability(point):
    return CRAPS_POINT_WIN.get(point, 0.0)


RANK_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
              "jack", "queen", "king", "ace")


@case("table-index", "string-result", "int-args", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, I(rng, n, 2, 14), [1, 15], bad),))
def card_rank_name(rank):
    if not 2 <= rank <= 14:
        raise ValueError("rank out of range")
    return RANK_NAMES[rank - 2]


@case("comb", "int-args", "unguarded-division", inputs=lambda rng, n, bad: (
    I(rng, n, 40, 70), spoil(rng, I(rng, n, 1, 7), [80], bad)))
def lottery_odds(n_balls, picks):
    return 1 / math.comb(n_balls, picks)


@case("if-elif", "int-args", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, I(rng, n, 0, 3), [7], bad), U(rng, n, 1, 100)))
def roulette_payout(bet_kind, stake):
    if bet_kind == 0:        # straight
        return 35 * stake
    elif bet_kind == 1:      # split
        return 17 * stake
    elif bet_kind == 2:      # dozen
        return 2 * stake
    elif bet_kind == 3:      # red/black
        return 1 * stake
    raise ValueError("unknown bet")


@case("fixed-range-loop", "comb", "int-args", inputs=lambda rng, n, bad: (I(rng, n, 0, 5),))
def yahtzee_at_least(k):
    p = 1 / 6
    total = 0.0
    for j in range(6):
        if j >= k:
            total += math.comb(5, j) * p ** j * (1 - p) ** (5 - j)
    return total


@case("while-loop", "int-result", "per-example-loop", large=MEDIUM, inputs=lambda rng, n, bad: (
    I(rng, n, 1, 5000),))
def collatz_steps(n):
    steps = 0
    while n != 1 and steps < 1000:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@case("nested-def", "closure", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 1), U(rng, n, 0, 1)))
def kelly_fraction(p, odds_minus_one):
    def edge(b):
        return p * (b + 1) - 1
    b = odds_minus_one + 0.5
    f = edge(b) / b
    return f if f > 0 else 0.0


@case("bool-result", "int-args", "modulo", inputs=lambda rng, n, bad: (I(rng, n, 1582, 2400),))
def is_leap_year(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


@case("int-args", "if-elif", "table-lookup", inputs=lambda rng, n, bad: (
    I(rng, n, 1900, 2100), I(rng, n, 1, 12)))
def days_in_month(year, month):
    if month == 2:
        return 29 if is_leap_year(year) else 28
    return (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]


@case("round-divmod", "int-conversion", "tuple-return", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0, 1e6), [0.0, 3599.9995, 59.9996]),))
def seconds_to_hms(seconds):
    s = round(seconds, 3)
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    return int(h), int(m), round(s, 3)


@case("round-divmod", "elementwise", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -100, 100), [0.0005, 2.6985, -0.0015, 1.0005]),))
def round_to_millis(x):
    return round(x, 3)


@case("round-divmod", "int-conversion", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -1e6, 1e6), [0.5, 1.5, 2.5, -0.5]),
    ))
def bankers_round(x):
    return round(x)


@case("math-domain", "elementwise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0.01, 100), [0.0, -1.0], bad),))
def decibels(power_ratio):
    return 10.0 * math.log10(power_ratio)


@case("remainder", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, -1000, 1000),))
def angle_difference_rad(a):
    return math.remainder(a, 2 * math.pi)


@case("complex", "tuple-return", inputs=lambda rng, n, bad: (
    U(rng, n, -5, 5), U(rng, n, -5, 5)))
def impedance_magnitude_phase(r, x):
    z = complex(r, x)
    return abs(z), math.atan2(z.imag, z.real)


@case("while-true", "int-result", large=MEDIUM, inputs=lambda rng, n, bad: (
    U(rng, n, 1.01, 1e6),))
def doublings_to_exceed(x):
    k = 0
    v = 1.0
    while True:
        if v >= x:
            return k
        v *= 2.0
        k += 1


@case("warnings", "if-elif", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 100),))
def clamp_percent(p):
    if p > 100.0:
        warnings.warn("percentage above 100 clipped", stacklevel=2)
        return 100.0
    return p


@case("warnings", "if-elif", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0.2, 1.0), [1.1, 1.3], rate=0.1),))
def capped_efficiency(eta):
    if eta > 1.0:
        warnings.warn(f"efficiency {eta:.2f} above 1 capped", stacklevel=2)
        eta = 1.0
    return eta


@case("f-string", "string-result", inputs=lambda rng, n, bad: (I(rng, n, 1, 12),))
def month_label(m):
    return f"M{m:02d}"


@case("match", "int-args", inputs=lambda rng, n, bad: (I(rng, n, 0, 4), U(rng, n, 0, 10)))
def shape_area(kind, size):
    match kind:
        case 0:
            return size * size
        case 1:
            return math.pi * size * size / 4
        case 2:
            return math.sqrt(3) / 4 * size * size
        case _:
            return 0.0


@case("any-all", "bool-result", inputs=lambda rng, n, bad: (
    U(rng, n, -1, 1), U(rng, n, -1, 1), U(rng, n, -1, 1)))
def all_positive(a, b, c):
    return all(v > 0 for v in (a, b, c))


@case("float-floordiv", "modulo", inputs=lambda rng, n, bad: (
    U(rng, n, -100, 100), spoil(rng, rng.choice([-7.5, -2.0, 3.0, 0.25], n), [0.0], bad)))
def float_floor_mod(a, b):
    return a // b + a % b


@case("nan-input", "early-return", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, -10, 10), [NAN, INF, -INF], rate=0.1),))
def finite_or_zero(x):
    if math.isnan(x) or math.isinf(x):
        return 0.0
    return x


@case("int-conversion", "math-floor", "overflow", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, -1e6, 1e6), [NAN, INF], bad),))
def floor_to_int(x):
    return math.floor(x)


@case("int-conversion", "elementwise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, -1e3, 1e3), [NAN], bad),))
def truncate_to_int(x):
    return int(x)


@case("numpy-of-list", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, 10, 30), U(rng, n, 10, 30), U(rng, n, 10, 30)))
def mean_station_temperature(t1, t2, t3):
    return np.mean([t1, t2, t3])


@case("numpy-of-list", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, -3, 3), U(rng, n, -3, 3), U(rng, n, -3, 3)))
def wind_speed_3d(u, v, w):
    return float(np.linalg.norm([u, v, w]))


@case("np-roots", "cubic-eos", large=SMALL, inputs=lambda rng, n, bad: (
    U(rng, n, 0.01, 0.5), U(rng, n, 0.001, 0.05)))
def cubic_eos_z(a_dim, b_dim):
    coeffs = [1.0, -(1.0 - b_dim), a_dim - 3 * b_dim ** 2 - 2 * b_dim,
              -(a_dim * b_dim - b_dim ** 2 - b_dim ** 3)]
    roots = np.roots(coeffs)
    real = roots[np.abs(roots.imag) < 1e-10].real
    return float(real.max())


@case("bound-on-some-paths", "if-elif", "int-result", inputs=lambda rng, n, bad: (
    sprinkle(rng, U(rng, n, 0, 40), [0.3, 1.6, 0.0]),))
def breeze_class(speed):
    if speed < 0.3:
        code = 0
    elif speed < 1.6:
        code = 1
    elif speed >= 1.6:
        code = 2
    return code


# =========================================================================== more constructs
# (issue 20: each construct below was refused before; written in the styles above)


@case("*args", "elementwise", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 40), U(rng, n, 0, 40), U(rng, n, 0, 40)))
def parallel_resistance(*resistors):
    inverse = 0.0
    for r in resistors:
        if r == 0:
            return 0.0
        inverse += 1.0 / r
    return 1.0 / inverse


@case("*args", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0.1, 1), [0.0], bad), U(rng, n, 0, 1), U(rng, n, 0, 1)))
def mixture_density(total, *fractions):
    if not fractions:
        raise ValueError("no components")
    return sum(fractions) / total / len(fractions)


@case("closure", "nested-def", "helper", inputs=lambda rng, n, bad: (
    U(rng, n, 0.1, 30), U(rng, n, 0.5, 1.5)))
def wind_chill_like(v, scale):
    base = 13.12 * scale

    def term(power):
        factor = v ** power
        corrected = factor * scale
        return base * corrected / (1 + corrected)

    return term(0.16) - term(0.5) + base


@case("closure", "nested-def", "math-domain", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0.01, 1), [-0.5], bad), U(rng, n, 1, 5)))
def log_ratio_spread(p, k):
    def logit(q):
        odds = q / (1 - q * 0.5)
        return math.log(odds) * k

    return logit(p) - logit(p / 2)


class Surface:
    ASPHALT = 0
    GRAVEL = 1
    ICE = 2


@case("match", "int-args", "if-elif", inputs=lambda rng, n, bad: (
    I(rng, n, 0, 3), U(rng, n, 0, 40)))
def braking_distance(surface, speed):
    match surface:
        case Surface.ASPHALT:
            mu = 0.7
        case Surface.GRAVEL:
            mu = 0.45
        case Surface.ICE if speed > 10:
            mu = 0.05
        case Surface.ICE:
            mu = 0.1
        case _:
            mu = 0.3
    return speed * speed / (2 * mu * G)


@case("match", "int-args", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, I(rng, n, 1, 4), [7], bad), U(rng, n, 0, 100)))
def quarter_rate(quarter, amount):
    match quarter:
        case 1 | 2:
            return amount * 0.02
        case 3:
            return amount * 0.025
        case 4:
            return amount * 0.03
    raise ValueError(f"bad quarter {quarter}")


@case("any-all", "bool-result", "for-over-table", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 1), U(rng, n, 0, 1)))
def inside_unit_triangle(x, y):
    return all(a * x + b * y <= c for a, b, c in TRIANGLE_EDGES)


TRIANGLE_EDGES = ((-1.0, 0.0, 0.0), (0.0, -1.0, 0.0), (1.0, 1.0, 1.0))


@case("any-all", "generator", "fixed-range-loop", inputs=lambda rng, n, bad: (
    U(rng, n, -1, 1),))
def chebyshev_sum(x):
    return sum(c * math.cos(k * math.acos(x)) for k, c in enumerate(CHEB_COEF)) + max(
        abs(x) ** k for k in range(1, 4))


CHEB_COEF = (1.0, 0.5, 0.25, 0.125)


@case("in", "int-args", "if-elif", inputs=lambda rng, n, bad: (I(rng, n, 1, 12),))
def month_length(m):
    if m in (4, 6, 9, 11):
        return 30
    if m == 2:
        return 28
    return 31


@case("in", "table-lookup", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, rng.choice(np.array([1.0, 2.5, 5.0, 10.0]), n), [3.0], bad),
    U(rng, n, 0, 10)))
def standard_resistor_check(nominal, load):
    if nominal not in E3_SERIES:
        raise ValueError("not a standard value")
    return load / nominal


E3_SERIES = (1.0, 2.5, 5.0, 10.0)


@case("loop-else", "for-break-table", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, U(rng, n, 0, 45), [60.0], bad),))
def beaufort_number(speed):
    for number, upper in enumerate(BEAUFORT_UPPER):  # noqa: B007 - read after the loop
        if speed < upper:
            break
    else:
        raise ValueError("speed above the scale")
    return number


BEAUFORT_UPPER = (0.5, 1.6, 3.4, 5.5, 8.0, 10.8, 13.9, 17.2, 20.8, 24.5, 28.5, 32.7, 50.0)


@case("table-index", "string-result", "int-conversion", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 360),))
def compass_point(bearing):
    return "NESW"[int((bearing + 45) // 90) % 4]


@case("string-result", "if-elif", inputs=lambda rng, n, bad: (U(rng, n, -5, 40),))
def water_phase(t):
    if t < 0:
        return "ice"
    if t < 100:
        return "liquid"
    return "steam"


@case("bound-on-some-paths", "for-break-table", inputs=lambda rng, n, bad: (
    U(rng, n, 0, 49),))
def beaufort_label_code(speed):
    for upper, code in BEAUFORT_CODES:
        if speed < upper:
            label = code
            break
    return label


BEAUFORT_CODES = ((1.6, 0), (10.8, 1), (24.5, 2), (50.0, 3))


@case("comb", "int-args", "int-result", inputs=lambda rng, n, bad: (
    spoil(rng, I(rng, n, 0, 20), [-2], bad), I(rng, n, 0, 8)))
def arrangements(n, k):
    return math.perm(n, k) + math.comb(n, k) * math.factorial(min(k, 5))


@case("comb", "int-args", "bool-result", inputs=lambda rng, n, bad: (
    spoil(rng, I(rng, n, 0, 10 ** 6), [-4], bad),))
def is_square(n):
    r = math.isqrt(n)
    return r * r == n


@case("dict-lookup", "int-args", inputs=lambda rng, n, bad: (I(rng, n, 0, 6), U(rng, n, 0, 1)))
def grade_points(grade, weight):
    return GRADE_POINTS.get(grade, 0.0) * weight


GRADE_POINTS = {1: 4.0, 2: 3.0, 3: 2.0, 4: 1.0}


@case("dict-lookup", "string-result", "raise", inputs=lambda rng, n, bad: (
    spoil(rng, I(rng, n, 1, 4), [9], bad),))
def soil_class_name(code):
    return SOIL_CLASSES[code]


SOIL_CLASSES = {1: "sand", 2: "loam", 3: "silt loam", 4: "clay"}


# =========================================================================== the check


class _Mismatch(Exception):
    pass


def _arrays(case_, rng, n, bad):
    args = case_.inputs(rng, n, bad)
    return tuple(args)


def _compare(got, ref, rtol, what):
    if isinstance(ref, tuple):
        if not isinstance(got, tuple) or len(got) != len(ref):
            raise _Mismatch(f"{what}: a tuple of {len(ref)} expected, got {type(got).__name__}")
        for k, (g, r) in enumerate(zip(got, ref)):
            _compare(g, r, rtol, f"{what} output {k}")
        return
    if isinstance(got, tuple):
        raise _Mismatch(f"{what}: a tuple where numpy.vectorize gives one array")
    got, ref = np.asarray(got), np.asarray(ref)
    if got.shape != ref.shape:
        raise _Mismatch(f"{what}: shape {got.shape} != {ref.shape}")
    same = got.dtype == ref.dtype or (got.dtype.kind == ref.dtype.kind == "U")
    if not same:
        raise _Mismatch(f"{what}: dtype {got.dtype} != {ref.dtype}")
    if ref.dtype.kind in "fc":
        with np.errstate(all="ignore"):
            eq = (got == ref) | (np.isnan(got) & np.isnan(ref))
            if rtol:
                eq |= np.abs(got - ref) <= rtol * np.abs(ref)
        if ref.dtype.kind == "f":
            zero = (got == 0) & (ref == 0)
            eq &= ~zero | (np.signbit(got) == np.signbit(ref))
    elif ref.dtype.kind == "O":
        # an object array (some examples return None): NaN items equal NaN items
        eq = np.array([g == r or (_is_nan(g) and _is_nan(r))
                       for g, r in zip(got.reshape(-1), ref.reshape(-1))], bool)
    else:
        eq = got == ref
    eq = np.asarray(eq)
    if not eq.all():
        idx = np.flatnonzero(~eq.reshape(-1))
        first = idx[0]
        raise _Mismatch(f"{what}: {len(idx)} lanes differ, first lane {first}: "
                        f"ours {got.reshape(-1)[first]!r} vs numpy.vectorize "
                        f"{ref.reshape(-1)[first]!r}")


_LAST_WARNINGS: list = []


def _is_nan(x) -> bool:
    return isinstance(x, (float, np.floating)) and bool(np.isnan(x))


def _call(f, args):
    """(result, None) or (None, exception); the user's own warnings (not NumPy's
    RuntimeWarnings, not vectorize's fallback notices) are left in `_LAST_WARNINGS`."""
    from vectorize.frontend import VectorizeFallbackWarning

    _LAST_WARNINGS.clear()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with np.errstate(all="ignore"):
                return f(*args), None
    except Exception as exc:  # noqa: BLE001 - compared by type
        return None, exc
    finally:
        _LAST_WARNINGS.extend(
            (w.category.__name__, str(w.message)) for w in caught
            if not issubclass(w.category, (RuntimeWarning, DeprecationWarning,
                                           VectorizeFallbackWarning)))


def _warned():
    return set(_LAST_WARNINGS)


def _lane_inputs(args, excluded, lane):
    # Python scalars, as numpy.vectorize hands them out
    return tuple(a if i in excluded else a[lane].item() for i, a in enumerate(args))


def _otypes(ref):
    outs = ref if isinstance(ref, tuple) else (ref,)
    return [np.asarray(o).dtype.char for o in outs]


def check_case(name, seed=0, mode="error", sizes=(0, 1, 5), repeats=REPEATS, large=None,
               variants=(False, True)):
    """Check one case in one mode ("error": the translation; "warn": the fallback), on clean
    inputs (``variants`` holds False) and on inputs with raising examples (True).

    Returns ("ok", "") or ("refused", message) or ("wrong", detail) or ("crash", detail)."""
    from vectorize import vectorize
    from vectorize.errors import VectorizeError

    c = CORPUS[name]
    rng = np.random.default_rng(seed)
    excluded = set(c.excluded)
    ref_f = np.vectorize(c.func, excluded=excluded) if excluded else np.vectorize(c.func)
    ours = vectorize(c.func, fallback=mode, excluded=excluded or None)
    large = large or c.large
    plan = [(n, bad) for n in sizes for bad in variants if not (n == 0 and bad)]
    plan += [(large, bad) for bad in variants for _ in range(repeats)]
    # N = 0 needs otypes from a returning reference call
    probe = _arrays(c, np.random.default_rng(seed + 1), 5, False)
    probe_ref, probe_exc = _call(ref_f, probe)
    otypes = None if probe_exc is not None else _otypes(probe_ref)
    for n, bad in plan:
        args = _arrays(c, rng, n, bad)
        what = f"{name} N={n}{' with raising inputs' if bad else ''}"
        if n == 0:
            if otypes is None:
                continue
            ref_0 = np.vectorize(c.func, otypes=otypes, excluded=excluded)
            ref, ref_exc = _call(ref_0, args)
        else:
            ref, ref_exc = _call(ref_f, args)
        ref_warned = _warned()
        got, exc = _call(ours, args)
        got_warned = _warned()
        if isinstance(exc, VectorizeError):
            return "refused", str(exc)
        if ref_exc is not None:
            if exc is None:
                lane = _first_raising_lane(c.func, args, excluded)
                return "wrong", (f"{what}: numpy.vectorize raises {type(ref_exc).__name__}: "
                                 f"{ref_exc} ({_where(lane)}), ours returns a value"
                                 f"{_lane_value(got, lane)}")
            if type(exc) is not type(ref_exc):
                return "wrong", (f"{what}: numpy.vectorize raises {type(ref_exc).__name__}: "
                                 f"{ref_exc}; ours {type(exc).__name__}: {exc}")
            continue
        if exc is not None:
            if n == 0 and mode == "warn" and isinstance(exc, ValueError):
                continue       # the fallback is numpy.vectorize, which needs otypes at N = 0
            return "crash", f"{what}: {type(exc).__name__}: {exc}"
        try:
            _compare(got, ref, c.rtol, what)
        except _Mismatch as m:
            lane = _lane_from(str(m))
            shown = "" if lane is None else \
                f" (inputs {_lane_inputs(args, excluded, lane)!r})"
            return "wrong", str(m) + shown
        if got_warned != ref_warned:
            return "wrong", (f"{what}: warnings {sorted(got_warned)} where numpy.vectorize "
                             f"gives {sorted(ref_warned)}")
    return "ok", ""


def _first_raising_lane(f, args, excluded):
    n = len(args[next(i for i in range(len(args)) if i not in excluded)])
    for lane in range(n):
        _, exc = _call(f, _lane_inputs(args, excluded, lane))
        if exc is not None:
            return lane
    return None


def _where(lane):
    if lane is None:
        return "no example raises on its own: numpy.vectorize raises storing the results"
    return f"lane {lane}"


def _lane_value(got, lane):
    if lane is None:
        return ""
    try:
        outs = got if isinstance(got, tuple) else (got,)
        return " " + ", ".join(repr(np.asarray(o).reshape(-1)[lane]) for o in outs) + \
            " there"
    except Exception:  # noqa: BLE001 - only for the message
        return ""


def _lane_from(message):
    marker = "first lane "
    if marker not in message:
        return None
    return int(message.split(marker)[1].split(":")[0])


def classify(name, seed=0, large=None, variants=(False, True)):
    """("ok" | "refused" | "wrong" | "crash", detail), the fallback checked where refused."""
    status, detail = check_case(name, seed, "error", large=large, variants=variants)
    if status != "refused":
        return status, detail
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fb_status, fb_detail = check_case(name, seed, "warn", large=large, variants=variants)
    if fb_status != "ok":
        return fb_status, "fallback='warn': " + fb_detail
    return "refused", detail


def has_raising_inputs(name):
    """Whether the case's strategy puts raising examples in (else its "raising" draw is just
    another clean one)."""
    c = CORPUS[name]
    clean = c.inputs(np.random.default_rng(0), 200, False)
    spoiled = c.inputs(np.random.default_rng(0), 200, True)
    return any(not np.array_equal(a, b, equal_nan=True) for a, b in zip(clean, spoiled)
               if np.asarray(a).dtype.kind in "fiub")


def refusal_reason(message):
    """The refusal's first line without its location."""
    first = message.splitlines()[0]
    parts = first.split(": ", 1)
    return parts[1] if len(parts) == 2 and ":" in parts[0] else first


def report(large=None, names=None):
    from collections import Counter, defaultdict

    results = {}
    for name in names or CORPUS:
        results[name] = classify(name, large=large)
    totals = Counter(s for s, _ in results.values())
    print(f"{len(results)} functions: " + ", ".join(
        f"{k} {totals.get(k, 0)}" for k in ("ok", "refused", "wrong", "crash")))
    by_tag = defaultdict(Counter)
    for name, (status, _) in results.items():
        for tag in CORPUS[name].tags:
            by_tag[tag][status] += 1
    print("\nper construct tag (ok / refused / wrong / crash):")
    for tag in sorted(by_tag):
        c = by_tag[tag]
        print(f"  {tag:24s} {c['ok']:3d} {c['refused']:3d} {c['wrong']:3d} {c['crash']:3d}")
    reasons = Counter(refusal_reason(d) for s, d in results.values() if s == "refused")
    print("\nrefused, by reason:")
    for reason, k in reasons.most_common():
        print(f"  {k:3d}  {reason}")
    for status in ("wrong", "crash"):
        listed = [(n, d) for n, (s, d) in results.items() if s == status]
        if listed:
            print(f"\n{status}:")
            for name, detail in listed:
                print(f"  {name}: {detail}")
    print("\nrefused functions:")
    for name, (status, detail) in results.items():
        if status == "refused":
            print(f"  {name}: {refusal_reason(detail)}")
    return results


if __name__ == "__main__":
    if "--report" in sys.argv:
        large = None
        for arg in sys.argv:
            if arg.startswith("--large="):
                large = int(arg.split("=")[1])
        picked = [a for a in sys.argv[1:] if not a.startswith("--")]
        results = report(large=large, names=picked or None)
        for arg in sys.argv:
            if arg.startswith("--json="):     # status per function, to compare two runs
                import json
                with open(arg.split("=", 1)[1], "w") as out:
                    json.dump({name: {"status": st, "detail": d, "tags": CORPUS[name].tags}
                               for name, (st, d) in results.items()}, out, indent=1)
    else:
        print(f"{len(CORPUS)} functions; run with --report [--large=N] [--json=PATH] "
              "[names...]")
