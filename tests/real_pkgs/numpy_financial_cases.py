"""Real functions of numpy-financial (time value of money), unchanged, called on one loan
per example, with the domains a user passes.

Source: numpy/numpy-financial, numpy_financial/_financial.py (PyPI ``numpy-financial==1.0.0``),
BSD-3-Clause License, Copyright (c) 2005-2019 NumPy Developers. The functions are imported
from the installed package, not copied: their source is what ``vectorize`` reads. They are
written for arrays (``map(np.asarray, [rate, nper, ...])``, ``np.where``): numpy.vectorize
hands them one loan's Python numbers per example.
Domains: periodic rates 0..2 % (0 exactly: the `np.where` branch), 1..360 periods, payments
and present values of mortgages and savings plans.
"""

import numpy_financial as npf
from harness import Case, Dom

RATE = Dom(0.0, 0.02, edges=(0.0, 0.005))
NPER = Dom(1.0, 360.0, edges=(1.0, 12.0, 360.0))
PER = Dom(1.0, 12.0, integer=True)
PMT = Dom(-2000.0, -10.0, edges=(-100.0,))
PV = Dom(1e3, 1e6, log=True, edges=(1e5,))


def _case(f, *args):
    return Case(f"numpy_financial.{f.__name__}", f, args)


CASES = [
    _case(npf.fv, RATE, NPER, PMT, PV),
    _case(npf.pmt, RATE, NPER, PV),
    _case(npf.pv, RATE, NPER, PMT),
    _case(npf.nper, Dom(0.001, 0.02, edges=(0.01,)), PMT, PV),
    _case(npf.ipmt, RATE, PER, Dom(12.0, 360.0, integer=True), PV),
    _case(npf.ppmt, RATE, PER, Dom(12.0, 360.0, integer=True), PV),
    Case("numpy_financial.rate", npf.rate,
         (Dom(12.0, 360.0, integer=True), PMT, PV, Dom(-1e4, 0.0, edges=(0.0,))), rtol=1e-10,
         rtol_reason="Newton's step g/g' cancels near the root: NumPy's array power differs "
                     "from its scalar power in the last bit (docs/semantics.md), and "
                     "npf.rate's own call on the arrays gives vmap's value"),
]
