"""Module constants, a helper with an ``elif`` chain, and a parameter with a default."""

import numpy as np

from vectorize import vectorize

BRACKETS = (10_000.0, 40_000.0, 100_000.0)
RATES = (0.0, 0.1, 0.25, 0.4)


def marginal_rate(income):
    if income <= BRACKETS[0]:
        return RATES[0]
    elif income <= BRACKETS[1]:
        return RATES[1]
    elif income <= BRACKETS[2]:
        return RATES[2]
    return RATES[3]


@vectorize
def tax(income, deduction=2_000.0):
    """Tax owed on one income."""
    taxable = max(income - deduction, 0.0)
    owed = 0.0
    lower = 0.0
    for upper, rate in zip(BRACKETS, RATES):
        if taxable > lower:
            owed += (min(taxable, upper) - lower) * rate
        lower = upper
    if taxable > BRACKETS[-1]:
        owed += (taxable - BRACKETS[-1]) * RATES[-1]
    return owed


def main():
    incomes = np.array([0.0, 5_000.0, 12_000.0, 39_999.0, 40_000.0, 75_000.0, 250_000.0])
    owed = []
    for income in incomes:
        owed.append(tax(income))
    return {"owed": owed, "no_deduction": tax(incomes, 0.0),
            "rates": [marginal_rate(i) for i in incomes]}


if __name__ == "__main__":
    print(main())
