"""Every case of the real-package corpus, in one list (`ALL`)."""

from chemicals_cases import CASES as CHEMICALS
from fluids_cases import CASES as FLUIDS
from ht_cases import CASES as HT
from psychrolib_cases import CASES as PSYCHROLIB
from pvlib_cases import CASES as PVLIB

ALL = [*PSYCHROLIB, *FLUIDS, *HT, *CHEMICALS, *PVLIB]
