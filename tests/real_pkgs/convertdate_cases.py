"""Real scalar functions of convertdate (conversions between the Gregorian calendar, Julian
day counts and other calendars: Julian, Hebrew, Islamic, Coptic, Indian civil, ISO week,
ordinal, Positivist, Mayan long count; holiday dates), unchanged, with the domains a user
passes.

Source: fitnr/convertdate (PyPI ``convertdate==2.5.1``), MIT License, Copyright (c) 2016
fitnr and the Fourmilab calendar converter's authors. The functions are imported from the
installed package, not copied: their source is what ``vectorize`` reads (``math.floor`` /
``math.trunc`` / ``%`` arithmetic on Python ints and floats, ``if`` chains on the month,
``in`` tests against tuples of months, a ValueError with a ``str.format`` message for a day
the month lacks, tuple results, helpers calling helpers).
Domains from the docstrings: years 1..3000 (leap-year rules at 1600, 1900, 2000), months
1..12 (13 for the Hebrew leap month), days 1..31 (a day the month lacks: the ValueError),
Julian days of years 1..3000 (1721425.5..2816787.5), weekdays 0..6.
"""

from convertdate import (
    coptic,
    gregorian,
    hebrew,
    holidays,
    indian_civil,
    islamic,
    iso,
    julian,
    mayan,
    ordinal,
    positivist,
    utils,
)
from harness import Case, Dom

YEAR = Dom(1, 3000, integer=True, edges=(1600, 1900, 2000, 2024, 1582))
MONTH = Dom(1, 12, integer=True, edges=(1, 2, 12))
DAY = Dom(1, 28, integer=True, edges=(1, 28))
DAY_ANY = Dom(1, 31, integer=True, edges=(29, 30, 31))    # days the month lacks: the ValueError
JD = Dom(1721425.5, 2816787.5, edges=(2451544.5, 2299160.5, 2460000.0))
WEEKDAY = Dom(0, 6, integer=True)
HEBREW_YEAR = Dom(3800, 6500, integer=True, edges=(5784, 5785))
HEBREW_MONTH = Dom(1, 13, integer=True, edges=(12, 13))
ISLAMIC_YEAR = Dom(1, 2000, integer=True, edges=(1445, 1446))


def _case(mod, f, *args, name=""):
    return Case(f"convertdate.{mod.__name__.split('.')[-1]}.{name or f.__name__}", f, args)


CASES = [
    _case(gregorian, gregorian.legal_date, YEAR, MONTH, DAY_ANY),
    _case(gregorian, gregorian.to_jd, YEAR, MONTH, DAY),
    _case(gregorian, gregorian.to_jd2, YEAR, MONTH, DAY),
    _case(gregorian, gregorian.from_jd, JD),
    _case(julian, julian.leap, YEAR),
    _case(julian, julian.month_length, YEAR, MONTH),
    _case(julian, julian.legal_date, YEAR, MONTH, DAY_ANY),
    _case(julian, julian.to_jd, YEAR, MONTH, DAY),
    _case(julian, julian.from_jd, JD),
    _case(hebrew, hebrew.leap, HEBREW_YEAR),
    _case(hebrew, hebrew.year_months, HEBREW_YEAR),
    _case(hebrew, hebrew.delay_1, HEBREW_YEAR),
    _case(hebrew, hebrew.delay_2, HEBREW_YEAR),
    _case(hebrew, hebrew.year_days, HEBREW_YEAR),
    _case(hebrew, hebrew.month_length, HEBREW_YEAR, HEBREW_MONTH),
    _case(hebrew, hebrew.to_jd, HEBREW_YEAR, HEBREW_MONTH, DAY),
    _case(islamic, islamic.leap, ISLAMIC_YEAR),
    _case(islamic, islamic.to_jd, ISLAMIC_YEAR, MONTH, DAY),
    _case(islamic, islamic.from_jd, JD),
    _case(coptic, coptic.is_leap, YEAR),
    _case(coptic, coptic.to_jd, YEAR, Dom(1, 13, integer=True), DAY),
    _case(coptic, coptic.from_jd, JD),
    _case(indian_civil, indian_civil.to_jd, YEAR, MONTH, DAY),
    _case(indian_civil, indian_civil.from_jd, JD),
    _case(iso, iso.to_jd, YEAR, Dom(1, 52, integer=True), Dom(1, 7, integer=True)),
    _case(iso, iso.weeks_per_year, YEAR),
    _case(ordinal, ordinal.to_jd, YEAR, Dom(1, 365, integer=True)),
    _case(ordinal, ordinal.from_jd, JD),
    _case(positivist, positivist.weekday, Dom(1, 28, integer=True)),
    _case(mayan, mayan.to_jd, Dom(0, 13, integer=True), Dom(0, 19, integer=True),
          Dom(0, 19, integer=True), Dom(0, 17, integer=True), Dom(0, 19, integer=True)),
    _case(mayan, mayan.from_jd, JD),
    _case(utils, utils.amod, Dom(-1000, 1000, integer=True), Dom(1, 30, integer=True)),
    _case(utils, utils.jwday, JD),
    _case(utils, utils.nearest_weekday, WEEKDAY, JD),
    _case(utils, utils.next_weekday, WEEKDAY, JD),
    _case(utils, utils.previous_or_current_weekday, WEEKDAY, JD),
    _case(utils, utils.n_weeks, WEEKDAY, JD, Dom(-5, 5, integer=True)),
    _case(utils, utils.nth_day_of_month, Dom(1, 4, integer=True), WEEKDAY, MONTH, YEAR),
    _case(holidays, holidays._easter_western, YEAR),
    _case(holidays, holidays._easter_julian, YEAR),
    _case(holidays, holidays.thanksgiving, YEAR),
    _case(holidays, holidays.memorial_day, YEAR),
    _case(holidays, holidays.independence_day, YEAR, True, name="independence_day[observed]"),
]
