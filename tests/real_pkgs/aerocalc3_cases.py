"""Real scalar functions of aerocalc3 (ICAO standard atmosphere, airspeed conversions, unit
conversions), unchanged, with the domains a user passes.

Source: geoffreynyaga/aerocalc (PyPI ``aerocalc3==0.10``), BSD License, Copyright (c) 2008
Kevin Horton. The functions are imported from the installed package, not copied: their source
is what ``vectorize`` reads. Written on one example: the unit converters are ``if``/``elif``
chains on unit strings that raise a ValueError for an unknown one; the atmosphere picks its
layer with an ``if`` chain on the altitude and raises above 84.852 km; ``dp2cas`` tries the
subsonic formula, catches the ValueError it raises above 661.48 kt and bisects the supersonic
one in a ``while`` loop, as ``dp_over_p2mach`` does above Mach 1; ``cas2tas`` and ``mach2tas``
test a ``"std"`` default against the temperature; ``density_alt`` compares a ``"FALSE"``
dew-point default. Default units: feet, knots, deg C, inches of HG.
Domains from the docstrings: altitudes 0..84.852 km (above it, the ValueError), temperatures
-60..50 C, speeds 0..1000 kt, Mach 0..5, relative humidity 0..1.
"""

from aerocalc3 import airspeed as AS
from aerocalc3 import std_atm as SA
from aerocalc3 import unit_conversion as U
from harness import Case, Dom

ALT = Dom(0.0, 60000.0, edges=(0.0, 36089.24, 65616.8))             # ft
ALT_KM = Dom(0.0, 90.0, edges=(0.0, 11.0, 20.0, 32.0, 47.0, 51.0, 71.0, 84.852, 85.0))
ALT_M = Dom(-500.0, 30000.0, edges=(0.0, 11000.0, 20000.0))
TEMP = Dom(-60.0, 50.0, edges=(15.0, 0.0, -56.5))                   # deg C
ISA_DEV = Dom(-30.0, 30.0, edges=(0.0,))
SETTING = Dom(28.0, 31.0, edges=(29.9213, 29.92))                   # in HG
P_INHG = Dom(0.05, 31.0, log=True, edges=(29.9213, 6.6832))
PR = Dom(0.001, 1.2, log=True, edges=(1.0, 0.2234))
RHO = Dom(0.01, 1.3, log=True, edges=(1.225,))                      # kg/m**3
DR = Dom(0.01, 1.2, log=True, edges=(1.0,))
RH = Dom(0.0, 1.1, edges=(0.0, 1.0, 0.5))
DP = Dom(0.0, 40.0, edges=(0.0, 15.0, 25.0))                        # in HG, supersonic above
DP_SUB = Dom(0.01, 10.0, log=True)
CAS = Dom(0.0, 1000.0, edges=(0.0, 661.48, 661.5, 250.0))           # kt
CAS_SUB = Dom(1.0, 600.0, edges=(250.0,))
MACH = Dom(0.0, 5.0, edges=(0.0, 1.0, 0.8))
MACH_POS = Dom(0.05, 3.0, edges=(1.0, 0.8))
DPP = Dom(0.0, 30.0, edges=(0.0, 0.8929, 1.0))                      # delta p over p
RECOVERY = Dom(0.5, 1.0, edges=(1.0,))
LEN = Dom(-1e5, 1e5, edges=(0.0, 1852.0))


# a CAS of a few knots: ``(rho * v**2 / (7 * P) + 1) ** 3.5 - 1`` cancels all but a few digits of
# a power of a number within 1e-5 of 1, and NumPy's array power differs from Python's scalar
# one in the last bit (docs/semantics.md): a few 1e-12 relative after the cancellation
CANCEL = 1e-10
CANCEL_REASON = ("the subsonic pitot formula cancels a power near 1 at low speeds: NumPy's "
                 "array power differs from Python's in the last bit")


def _case(f, *args, name="", rtol=1e-12, reason=""):
    mod = f.__module__.rsplit(".", 1)[-1]
    return Case(f"aerocalc3.{mod}.{name or f.__name__}", f, args, rtol=rtol,
                rtol_reason=reason)


CASES = [
    _case(SA.alt2temp, ALT),
    _case(SA.alt2temp, ALT_KM, "km", "K", name="alt2temp[km,K]"),
    _case(SA.alt2temp_ratio, ALT),
    _case(SA.isa2temp, ISA_DEV, ALT),
    _case(SA.temp2isa, TEMP, ALT),
    _case(SA.alt2press_ratio, ALT_KM, "km"),
    _case(SA.alt2press, ALT_M, "m", "hpa", name="alt2press[m,hpa]"),
    _case(SA.pressure_alt, ALT, SETTING),
    _case(SA.QNH, ALT, ALT),
    _case(SA.alt2density_ratio, ALT),
    _case(SA.alt2density, ALT_M, "m", "kg/m**3", name="alt2density[m,kg/m**3]"),
    _case(SA.density2alt, RHO, "kg/m**3", "m", name="density2alt[kg/m**3,m]"),
    _case(SA.density_ratio2alt, DR),
    _case(SA.density_alt, ALT, TEMP),
    _case(SA.density_alt, ALT, TEMP, 29.92, "FALSE", RH, name="density_alt[RH]"),
    _case(SA.sat_press, TEMP),
    _case(SA.dry_press, ALT, Dom(0.0, 0.5)),
    _case(SA.press2alt, P_INHG),
    _case(SA.press_ratio2alt, PR),
    _case(SA.temp2speed_of_sound, TEMP),
    _case(AS.dp2cas, DP),
    _case(AS.dp2eas, DP_SUB, ALT),
    _case(AS.dp2tas, DP_SUB, ALT, TEMP),
    _case(AS.cas2dp, CAS),
    _case(AS.eas2dp, CAS_SUB, ALT, rtol=CANCEL,
          reason=CANCEL_REASON),
    _case(AS.tas2dp, CAS_SUB, ALT, TEMP, rtol=CANCEL,
          reason=CANCEL_REASON),
    _case(AS.cas2eas, CAS_SUB, ALT, rtol=CANCEL,
          reason=CANCEL_REASON),
    _case(AS.cas2tas, CAS_SUB, ALT, rtol=CANCEL,
          reason=CANCEL_REASON),
    _case(AS.cas2tas, CAS_SUB, ALT, TEMP, name="cas2tas[temp]", rtol=CANCEL,
          reason=CANCEL_REASON),
    _case(AS.tas2cas, CAS_SUB, ALT, rtol=CANCEL,
          reason=CANCEL_REASON),
    _case(AS.dp_over_p2mach, DPP),
    _case(AS.mach2dp_over_p, MACH),
    _case(AS.cas_mach2alt, CAS_SUB, MACH_POS, rtol=CANCEL,
          reason=CANCEL_REASON),
    _case(AS.cas_alt2mach, CAS_SUB, ALT, rtol=CANCEL,
          reason=CANCEL_REASON),
    _case(AS.mach_alt2cas, MACH_POS, ALT),
    _case(AS.mach2tas, MACH, TEMP),
    _case(AS.mach2tas, MACH, "std", ALT, name="mach2tas[alt]"),
    _case(AS.tas2mach, CAS, TEMP),
    _case(AS.mach2temp, MACH, TEMP, RECOVERY),
    _case(AS.tas2temp, CAS, TEMP, RECOVERY),
    _case(U.len_conv, LEN, "m", "nm", name="len_conv[m,nm]"),
    _case(U.temp_conv, TEMP, "C", "F", name="temp_conv[C,F]"),
    _case(U.press_conv, P_INHG, "in HG", "hpa", name="press_conv[in HG,hpa]"),
    _case(U.speed_conv, CAS, "kt", "km/h", name="speed_conv[kt,km/h]"),
]
