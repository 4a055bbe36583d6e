"""Real scalar functions of the standard library's ``statistics`` and ``calendar`` modules,
unchanged, with the domains a user passes.

Source: CPython 3.11, Lib/statistics.py and Lib/calendar.py (PSF License). The functions are
imported, not copied: their source is what ``vectorize`` reads (``NormalDist``
methods bound to one distribution: ``pdf``/``cdf``/``zscore``/
``inv_cdf`` read ``self._mu``/``self._sigma``, ``inv_cdf`` raises StatisticsError outside
(0, 1) and calls ``_normal_dist_inv_cdf``, which CPython compiles (``_statistics``: no
source, refused); ``fmean``/``geometric_mean``/``harmonic_mean``/``pstdev`` of a row (iteration over
the data, ``fsum``, ``len``, ``try``/``except`` raising StatisticsError, ``Fraction``
arithmetic in ``_sum``); ``calendar.isleap``/``leapdays``: integer ``%`` and ``//``).
Domains from the docstrings: probabilities in (0, 1) with the branch edges 0.075, 0.5,
0.925 and the tail's exp(-25); real x; positive data for the means; years 1..3000.
"""

import calendar
import statistics

from harness import Case, Dom, Rows

P = Dom(0.0, 1.0, edges=(0.0, 1.0, 0.075, 0.5, 0.925, 1e-12, 1 - 1e-12, 1e-300))
X = Dom(-20.0, 20.0, edges=(0.0, 1.5))
POS = Dom(0.01, 100.0, log=True, edges=(1.0,))
ANY = Dom(-100.0, 100.0, edges=(0.0,))
YEAR = Dom(1, 3000, integer=True, edges=(1900, 2000, 2024, 2100, 1))

ND = statistics.NormalDist(1.5, 2.0)
ROW = "(3)->()"


def _case(f, *args, name="", signature=None):
    return Case(f"statistics.{name or f.__name__}", f, args, signature=signature)


CASES = [
    _case(ND.pdf, X, name="NormalDist.pdf"),
    _case(ND.cdf, X, name="NormalDist.cdf"),
    _case(ND.zscore, X, name="NormalDist.zscore"),
    _case(ND.inv_cdf, P, name="NormalDist.inv_cdf"),
    _case(statistics.fmean, Rows((ANY, ANY, ANY)), signature=ROW),
    _case(statistics.geometric_mean, Rows((POS, POS, POS)), signature=ROW),
    _case(statistics.harmonic_mean, Rows((POS, POS, POS)), signature=ROW),
    _case(statistics.pstdev, Rows((ANY, ANY, ANY)), signature=ROW),
    _case(statistics.median, Rows((ANY, ANY, ANY)), signature=ROW),
    _case(calendar.isleap, YEAR, name="calendar.isleap"),
    _case(calendar.leapdays, YEAR, YEAR, name="calendar.leapdays"),
]
