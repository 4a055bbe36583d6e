"""Every function of the real-style corpus (`real_corpus.py`) against ``numpy.vectorize``.

For each function, two tests: on clean inputs of its domain, and (where the function can raise)
on inputs with a few examples where it raises. Each runs N = 0, 1, 5 and three calls of fresh
data at the large N (1e5 for plain formulas, 2e4 for loops, 5e3 for the few whose scalar code
runs hundreds of iterations per example: `Case.large`), and passes when
``vectorize(f, fallback="error")`` returns what ``numpy.vectorize`` returns (values, dtype,
shape) or raises the exception type it raises, or when it refuses with a located
``VectorizeError`` and ``vectorize(f, fallback="warn")`` then matches ``numpy.vectorize``. A
different answer, or an exception other than ``VectorizeError`` where ``numpy.vectorize``
returns, fails.

`KNOWN` lists what today's engine gets wrong, as strict xfails: when the engine is fixed the
test XPASSes, which fails the run; then delete the entry. ``python tests/real_corpus.py
--report`` prints the counts per construct tag.
"""

from __future__ import annotations

import zlib

import pytest
from real_corpus import CORPUS, classify, has_raising_inputs

# (function, inputs) -> why it fails today
KNOWN = {
    ('mgrs_latitude_band', 'clean'):
        'crashes today: indexing a string table by a per-example int raises TypeError (only '
        'integer scalar arrays can be converted to a scalar index) at every N',
    ('mean_of_five_readings', 'clean'):
        'crashes today: sum([a, b, c, d, e]) of per-example scalars sums over the batch '
        "(np.sum(..., axis=1)): ValueError 'cannot reshape array of size 5 into shape (N,)'; "
        'at N = 5 a wrong value',
    ('moment_series', 'clean'):
        'silently wrong today: a loop over range(len(v)) of a shared array that the body '
        'rebinds (v = v * x) loops over the batch: 1.0 instead of 0.709 at N = 1',
    ('dice_sum_ways', 'clean'):
        "crashes today (fallback='warn'): math.comb is called per example on lanes the loop "
        'never reaches there, with negative arguments: ValueError where numpy.vectorize '
        'returns',
    ('seconds_to_hms', 'clean'):
        "silently wrong today: round(x, 3) is np.round, not Python's exact-decimal round: "
        'round(3599.9995, 3) gives 1 h 0 min instead of 0 h 59 min',
    ('round_to_millis', 'clean'):
        'silently wrong today: round(2.6985, 3) is 2.698 (np.round), Python gives 2.699',
    ('clamp_percent', 'clean'):
        'silently wrong today: warnings.warn under `if p > 100` fires although no example '
        'takes the branch',
    ('swamee_jain', 'raising'):
        "silently wrong today: ZeroDivisionError of Python float/int division is NumPy's 0.0 "
        '(re = 0) instead',
    ('haaland', 'raising'):
        "silently wrong today: ZeroDivisionError of Python float/int division is NumPy's 0.0 "
        '(re = 0) instead',
    ('hydraulic_radius_rect', 'raising'):
        "silently wrong today: ZeroDivisionError of Python float/int division is NumPy's nan "
        '(0 / 0) instead',
    ('manning_velocity', 'raising'):
        "silently wrong today: math domain error (ValueError) is NumPy's nan (sqrt of a "
        "negative slope) instead; n = 0 is NumPy's inf",
    ('orifice_flow', 'raising'):
        "silently wrong today: ZeroDivisionError of Python float/int division is NumPy's inf "
        '(rho = 0) instead',
    ('b23_temperature', 'raising'):
        "silently wrong today: math domain error (ValueError) is NumPy's nan instead",
    ('clausius_clapeyron', 'raising'):
        "silently wrong today: math.exp overflow (OverflowError: math range error) is NumPy's "
        'inf instead',
    ('dew_point_magnus', 'raising'):
        "silently wrong today: math domain error (ValueError) is NumPy's nan / -inf (log of "
        '0) instead',
    ('psychro_state', 'raising'):
        "silently wrong today: math domain error (ValueError) is NumPy's nan (log of 0) "
        'instead',
    ('vis_viva_speed', 'raising'):
        "silently wrong today: math domain error (ValueError) is NumPy's nan instead",
    ('bond_price', 'raising'):
        "silently wrong today: ZeroDivisionError of Python float/int division is NumPy's inf "
        '((1 + ytm) ** k with ytm = -1) instead',
    ('npv', 'raising'):
        "silently wrong today (fallback='warn', *args): the whole-function fallback loop "
        'hands NumPy scalars, not Python ones, so 1 / 0 is inf where numpy.vectorize raises '
        'ZeroDivisionError',
    ('logistic_naive', 'raising'):
        "silently wrong today: math.exp overflow (OverflowError) is NumPy's inf, so the "
        'result is 0.0',
    ('r0_from_growth_rate', 'raising'):
        "silently wrong today: ZeroDivisionError of Python float/int division is NumPy's nan "
        '(0 / 0) instead',
    ('wilson_lower_bound', 'raising'):
        "silently wrong today: ZeroDivisionError of Python float/int division is NumPy's nan "
        '(k / n with int n = 0) instead',
    ('odds_ratio', 'raising'):
        "silently wrong today: ZeroDivisionError of Python float/int division is NumPy's inf "
        '(int / int zero) instead',
    ('fourth_power_count', 'raising'):
        'silently wrong today: n ** 4 of int64 wraps (numpy.vectorize computes the Python int '
        'and raises OverflowError storing it)',
    ('floor_div_mod', 'raising'):
        'silently wrong today: divmod(a, 0) of ints gives 0 (NumPy) where Python raises '
        'ZeroDivisionError',
    ('lottery_odds', 'raising'):
        "silently wrong today (fallback='warn'): 1 / math.comb(n, k) = 1 / 0 is inf (the comb "
        'result becomes a NumPy value) where numpy.vectorize raises ZeroDivisionError',
    ('decibels', 'raising'):
        "silently wrong today: math domain error (ValueError) is NumPy's nan / -inf (log10 of "
        '<= 0) instead',
    ('float_floor_mod', 'raising'):
        "silently wrong today: ZeroDivisionError of Python float/int division is NumPy's nan "
        '(float // 0.0 and % 0.0) instead',
    ('floor_to_int', 'raising'):
        'silently wrong today: math.floor(nan) / math.floor(inf) give an arbitrary int64 '
        'where Python raises ValueError / OverflowError',
    ('truncate_to_int', 'raising'):
        'silently wrong today: int(nan) gives -2**63 where Python raises ValueError',
}


def _params(variant):
    out = []
    for name in CORPUS:
        if variant == "raising" and not has_raising_inputs(name):
            continue      # its strategy has no raising examples: the clean test covers it
        reason = KNOWN.get((name, variant))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


def _check(name, variant):
    status, detail = classify(name, seed=zlib.crc32(f"{name}/{variant}".encode()),
                              variants=(variant == "raising",))
    assert status in ("ok", "refused"), f"{status}: {detail}"


@pytest.mark.parametrize("name", _params("clean"))
def test_clean_inputs(name):
    _check(name, "clean")


@pytest.mark.parametrize("name", _params("raising"))
def test_raising_inputs(name):
    _check(name, "raising")
