"""Every case of the real-package corpus, in one list (`ALL`)."""

from chemicals_cases import CASES as CHEMICALS
from fluids_cases import CASES as FLUIDS
from ht_cases import CASES as HT
from iapws_cases import CASES as IAPWS
from numpy_financial_cases import CASES as NUMPY_FINANCIAL
from psychrolib_cases import CASES as PSYCHROLIB
from pvlib_cases import CASES as PVLIB
from pysolar_cases import CASES as PYSOLAR
from pythermalcomfort_cases import CASES as PYTHERMALCOMFORT
from sgp4_cases import CASES as SGP4

ALL = [*PSYCHROLIB, *FLUIDS, *HT, *CHEMICALS, *PVLIB, *IAPWS, *SGP4, *PYSOLAR,
       *PYTHERMALCOMFORT, *NUMPY_FINANCIAL]
