"""Every case of the real-package corpus, in one list (`ALL`)."""

from aerocalc3_cases import CASES as AEROCALC3
from astral_cases import CASES as ASTRAL
from blackscholes_cases import CASES as BLACKSCHOLES
from chemicals_cases import CASES as CHEMICALS
from colorsys_cases import CASES as COLORSYS
from convertdate_cases import CASES as CONVERTDATE
from fluids_cases import CASES as FLUIDS
from geographiclib_cases import CASES as GEOGRAPHICLIB
from geopy_cases import CASES as GEOPY
from great_circle_cases import CASES as GREAT_CIRCLE
from haversine_cases import CASES as HAVERSINE
from hsluv_cases import CASES as HSLUV
from ht_cases import CASES as HT
from iapws_cases import CASES as IAPWS
from jdcal_cases import CASES as JDCAL
from lets_be_rational_cases import CASES as LETS_BE_RATIONAL
from meteocalc_cases import CASES as METEOCALC
from mibian_cases import CASES as MIBIAN
from numpy_financial_cases import CASES as NUMPY_FINANCIAL
from psychrolib_cases import CASES as PSYCHROLIB
from psypy_cases import CASES as PSYPY
from pvlib_cases import CASES as PVLIB
from pyerf_cases import CASES as PYERF
from pygeodesy_cases import CASES as PYGEODESY
from pygeomag_cases import CASES as PYGEOMAG
from pymap3d_cases import CASES as PYMAP3D
from pymeeus_cases import CASES as PYMEEUS
from pysolar_cases import CASES as PYSOLAR
from pythermalcomfort_cases import CASES as PYTHERMALCOMFORT
from pyxsteam_cases import CASES as PYXSTEAM
from refet_cases import CASES as REFET
from seawater_cases import CASES as SEAWATER
from sgp4_cases import CASES as SGP4
from statistics_cases import CASES as STATISTICS
from suncalc_cases import CASES as SUNCALC
from sunposition_cases import CASES as SUNPOSITION
from thermofeel_cases import CASES as THERMOFEEL
from trueskill_cases import CASES as TRUESKILL
from utm_cases import CASES as UTM
from vincenty_cases import CASES as VINCENTY

ALL = [*PSYCHROLIB, *FLUIDS, *HT, *CHEMICALS, *PVLIB, *IAPWS, *SGP4, *PYSOLAR,
       *PYTHERMALCOMFORT, *NUMPY_FINANCIAL, *PYMAP3D, *GEOGRAPHICLIB, *JDCAL, *UTM, *REFET,
       *LETS_BE_RATIONAL, *ASTRAL, *HAVERSINE, *COLORSYS, *PYGEODESY,
       *CONVERTDATE, *PSYPY, *SUNPOSITION, *VINCENTY,
       *PYMEEUS, *METEOCALC, *HSLUV, *GEOPY,
       *STATISTICS, *PYXSTEAM, *TRUESKILL, *PYERF, *BLACKSCHOLES,
       *SUNCALC, *MIBIAN,
       *AEROCALC3, *GREAT_CIRCLE, *THERMOFEEL, *PYGEOMAG, *SEAWATER]
