"""The checks `passes.python_raises` writes spell `math` (`math.isinf(abs(x) ** k)` for a float
power that may overflow): a function whose module does not import math must vectorize too
(found merging: `x ** k` in such a module was refused with "name `math` is not defined")."""

import numpy as np

from vectorize import vectorize

SOURCE = '''
def series(x):
    s = 0.0
    for k in range(3):
        s = s + x ** k
    return s
'''


def test_a_power_in_a_module_without_math():
    namespace = {}
    import linecache
    filename = "<no math module>"
    linecache.cache[filename] = (len(SOURCE), None, SOURCE.splitlines(True), filename)
    exec(compile(SOURCE, filename, "exec"), namespace)
    f = namespace["series"]
    x = np.array([-2.0, -0.5, 0.0, 0.75, 3.0, 1e200])
    expected = np.vectorize(f)
    for n in (0, 1, 5):
        got = vectorize(f, fallback="error")(x[:n])
        assert np.array_equal(got, expected(x[:n]) if n else np.zeros(0)) and got.dtype == float
    # 1e200 ** 2 overflows: numpy.vectorize raises OverflowError, and so do we
    import pytest
    with pytest.raises(OverflowError):
        expected(x)
    with pytest.raises(OverflowError):
        vectorize(f, fallback="error")(x)
