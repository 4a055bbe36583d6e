"""Loop-bearing scalar-style functions, each written for ONE example as a user would.

They cover issue 4 item by item: unbatched trip counts (`for _ in range(k)`, `for c in
COEFFS`, `for i in range(len(v))`), masked loops (`while` on a batched condition, `for i in
range(n)` with a per-example ``n``), ``break``/``continue``/``return`` under batched
conditions, nested loops, tuple and augmented assignment on carries, integer counters, lanes
that never enter the loop.

Every loop that has two strategies is written twice: ``name_select`` carries
``# vectorize: select`` and ``name_compact`` carries ``# vectorize: compact`` on the loop line
(the bodies are identical), so the tests can check that both forms give identical results.
Every loop terminates for every input the tests draw (tolerances are bounded below, Collatz
inputs are bounded, `while` loops have iteration caps where the input alone does not bound
them).
"""

import math

# A coefficient list shared by every example (unbatched): 3 - x + 0.5 x^2 + 2 x^3 - 0.25 x^4
# in Horner order (highest degree first).
COEFFS = [-0.25, 2.0, 0.5, -1.0, 3.0]

# A shared polygon (an L-shape with slanted sides and no horizontal edge, so no edge has
# yj == yi and the crossing division never divides by zero on a live or dead lane).
POLYGON = [(0.0, 0.0), (4.0, 0.5), (3.5, 1.5), (1.5, 2.0), (1.0, 4.0), (-0.5, 3.0)]

# The same idea with a horizontal edge: the per-example code never divides by (yj - yi) == 0
# (the `and` short-circuits first), so neither may the vectorized code warn.
BOX = [(0.0, 0.0), (4.0, 0.0), (4.0, 3.0), (0.0, 3.0)]


# ------------------------------------------------------------------ unbatched trip counts
def newton_sqrt_fixed(x):
    """Fixed-iteration Newton (a Python loop, batched body); an early return before it."""
    if not x > 0.0:
        return 0.0
    y = x if x > 1.0 else 1.0
    for _ in range(40):
        y = 0.5 * (y + x / y)
    return y


def horner(x):
    """Horner over a module-level (unbatched) coefficient list."""
    acc = 0.0
    for c in COEFFS:
        acc = acc * x + c
    return acc


def horner_coeffs(x, coeffs):
    """Horner over a coefficient list passed as an argument (``excluded``)."""
    acc = 0.0
    for c in coeffs:
        acc = acc * x + c
    return acc


def argmax_by_hand(v):
    """Argmax of a per-example vector (``vmap``); ``len(v)`` is the same for every example."""
    best = 0
    for i in range(len(v)):
        if v[i] > v[best]:
            best = i
    return best


def point_in_polygon(x, y):
    """Ray casting over a shared polygon; counts crossings (an integer carry)."""
    crossings = 0
    for i in range(len(POLYGON)):
        xi, yi = POLYGON[i]
        xj, yj = POLYGON[i - 1]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            crossings += 1
    return crossings % 2 == 1


def point_in_polygon_flip(x, y):
    """The textbook form: ``inside = not inside`` on a carry that starts as ``False``."""
    inside = False
    for (xi, yi), (xj, yj) in zip(POLYGON, POLYGON[1:] + POLYGON[:1]):
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            inside = not inside
    return inside


def point_in_box(x, y):
    """Ray casting over a polygon with horizontal edges (division guarded by `and`)."""
    crossings = 0
    for i in range(len(BOX)):
        xi, yi = BOX[i]
        xj, yj = BOX[i - 1]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            crossings += 1
    return crossings % 2 == 1


def sum_of_divisors(n):
    """``continue`` under a batched condition in an unbatched `for`; integer carry."""
    total = 0
    for d in range(1, 13):
        if n % d != 0:
            continue
        total += d
    return total


def nested_grid(x):
    """Nested unbatched loops with a batched ``break`` in the inner one."""
    acc = 0.0
    for i in range(3):
        for j in range(4):
            acc += x * i - j
            if acc > 10.0:
                break
    return acc


def carry_used_only_inside(x):
    """A carry (s) that starts unbatched, becomes batched in the loop and is dead after it
    (its only use after the loop is overwritten first)."""
    s = 0.0
    for k in range(3):
        s = s * 0.5 + x * k
    s = x * 2.0
    return s + 1.0


def int_to_float_carry(x):
    """A carry that starts as an unbatched int and becomes a batched float inside the loop
    (the analysis must iterate to a fixed point)."""
    s = 0
    for k in range(4):
        s = s + x * k
    return s


def first_negative(v):
    """Early ``return`` from inside a loop over a per-example vector (``vmap``)."""
    for i in range(len(v)):
        if v[i] < 0.0:
            return i
    return -1


def newton_until_converged(x):
    """Early ``return`` of a tuple from inside a fixed-count loop."""
    y = x + 1.0
    for k in range(60):
        y_next = 0.5 * (y + x / y)
        if abs(y_next - y) <= 1e-12 * y_next:
            return y_next, k
        y = y_next
    return y, -1


def escape_for(cr, ci):
    """Mandelbrot escape count: ``break`` under a batched condition in ``for _ in range(50)``."""
    zr = 0.0
    zi = 0.0
    count = 0
    for _ in range(50):
        if zr * zr + zi * zi > 4.0:
            break
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def escape_for_compact(cr, ci):
    """The same loop, asking for the compact strategy."""
    zr = 0.0
    zi = 0.0
    count = 0
    for _ in range(50):  # vectorize: compact
        if zr * zr + zi * zi > 4.0:
            break
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


# ------------------------------------------------------- masked loops, select and compact
def collatz_steps_select(n):
    steps = 0
    while n > 1:  # vectorize: select
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def collatz_steps_compact(n):
    steps = 0
    while n > 1:  # vectorize: compact
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def gcd_select(a, b):
    while b != 0:  # vectorize: select
        a, b = b, a % b
    return abs(a)


def gcd_compact(a, b):
    while b != 0:  # vectorize: compact
        a, b = b, a % b
    return abs(a)


def bisect_cbrt_select(c, tol):
    """Bisection for the cube root of ``c`` on [-20, 20] until a per-example tolerance."""
    lo = -20.0
    hi = 20.0
    steps = 0
    while hi - lo > tol and steps < 200:  # vectorize: select
        mid = 0.5 * (lo + hi)
        if mid * mid * mid > c:
            hi = mid
        else:
            lo = mid
        steps += 1
    return 0.5 * (lo + hi), steps


def bisect_cbrt_compact(c, tol):
    lo = -20.0
    hi = 20.0
    steps = 0
    while hi - lo > tol and steps < 200:  # vectorize: compact
        mid = 0.5 * (lo + hi)
        if mid * mid * mid > c:
            hi = mid
        else:
            lo = mid
        steps += 1
    return 0.5 * (lo + hi), steps


def escape_while_select(cr, ci):
    """Escape time as a ``while`` on a batched condition (z starts at c)."""
    zr = cr
    zi = ci
    count = 0
    while zr * zr + zi * zi <= 4.0 and count < 50:  # vectorize: select
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def escape_while_compact(cr, ci):
    zr = cr
    zi = ci
    count = 0
    while zr * zr + zi * zi <= 4.0 and count < 50:  # vectorize: compact
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def isqrt_select(n):
    """Integer Newton; the dead lanes (n == 0, x == 0) would divide by zero."""
    x = n
    y = (x + 1) // 2
    while y < x:  # vectorize: select
        x = y
        y = (x + n // x) // 2
    return x


def isqrt_compact(n):
    x = n
    y = (x + 1) // 2
    while y < x:  # vectorize: compact
        x = y
        y = (x + n // x) // 2
    return x


def smallest_factor_select(n):
    """``break`` inside a ``while``."""
    d = 2
    while d * d <= n:  # vectorize: select
        if n % d == 0:
            break
        d += 1
    if d * d <= n:
        return d
    return n


def smallest_factor_compact(n):
    d = 2
    while d * d <= n:  # vectorize: compact
        if n % d == 0:
            break
        d += 1
    if d * d <= n:
        return d
    return n


def skip_thirds_select(n):
    """``continue`` inside a ``while``."""
    k = 0
    s = 0
    while k < n:  # vectorize: select
        k += 1
        if k % 3 == 0:
            continue
        s += k
    return s


def skip_thirds_compact(n):
    k = 0
    s = 0
    while k < n:  # vectorize: compact
        k += 1
        if k % 3 == 0:
            continue
        s += k
    return s


def halving_exit_select(n):
    """Early ``return`` from inside a ``while``, under a batched condition."""
    steps = 0
    while n > 1:  # vectorize: select
        if n < 8 and n % 2 == 1:
            return -steps
        n //= 2
        steps += 1
    return steps


def halving_exit_compact(n):
    steps = 0
    while n > 1:  # vectorize: compact
        if n < 8 and n % 2 == 1:
            return -steps
        n //= 2
        steps += 1
    return steps


def digital_root_select(n):
    """Nested masked loops: repeated digit sums."""
    rounds = 0
    while n >= 10:  # vectorize: select
        s = 0
        while n > 0:  # vectorize: select
            s += n % 10
            n //= 10
        n = s
        rounds += 1
    return n, rounds


def digital_root_compact(n):
    rounds = 0
    while n >= 10:  # vectorize: compact
        s = 0
        while n > 0:  # vectorize: compact
            s += n % 10
            n //= 10
        n = s
        rounds += 1
    return n, rounds


def power_by_squaring_select(base, e):
    """Augmented assignment on every carry (``*=``, ``//=``)."""
    result = 1.0
    while e > 0:  # vectorize: select
        if e % 2 == 1:
            result *= base
        base *= base
        e //= 2
    return result


def power_by_squaring_compact(base, e):
    result = 1.0
    while e > 0:  # vectorize: compact
        if e % 2 == 1:
            result *= base
        base *= base
        e //= 2
    return result


def log_steps_select(x):
    """Lanes with x <= 1 (and NaN) never enter; on them log() would warn or fail."""
    k = 0
    while x > 1.0:  # vectorize: select
        x = math.log(x)
        k += 1
    return k, x


def log_steps_compact(x):
    k = 0
    while x > 1.0:  # vectorize: compact
        x = math.log(x)
        k += 1
    return k, x


def halve_to_float_select(x, n):
    """A carry that starts as an int and becomes a float inside a masked loop."""
    s = 0
    k = 0
    while k < n:  # vectorize: select
        s = s + x * 0.5
        k += 1
    return s


def halve_to_float_compact(x, n):
    s = 0
    k = 0
    while k < n:  # vectorize: compact
        s = s + x * 0.5
        k += 1
    return s


# ------------------------------------------------- for i in range(n), per-example bounds
def triangular_select(n):
    s = 0
    for i in range(n):  # vectorize: select
        s += i
    return s


def triangular_compact(n):
    s = 0
    for i in range(n):  # vectorize: compact
        s += i
    return s


def harmonic_select(n):
    h = 0.0
    for k in range(1, n + 1):  # vectorize: select
        h += 1.0 / k
    return h


def harmonic_compact(n):
    h = 0.0
    for k in range(1, n + 1):  # vectorize: compact
        h += 1.0 / k
    return h


def falling_product_select(n):
    """A descending per-example range with a constant negative step."""
    p = 1
    for k in range(n, 0, -2):  # vectorize: select
        p *= k
    return p


def falling_product_compact(n):
    p = 1
    for k in range(n, 0, -2):  # vectorize: compact
        p *= k
    return p


def fib_mod_select(n):
    """Tuple assignment on carries in a per-example range."""
    a, b = 0, 1
    for _ in range(n):  # vectorize: select
        a, b = b, (a + b) % 1000
    return a


def fib_mod_compact(n):
    a, b = 0, 1
    for _ in range(n):  # vectorize: compact
        a, b = b, (a + b) % 1000
    return a


def odd_sum_to_select(lo, hi, x):
    """Both bounds per example, a step of 2, ``break`` and a float carry."""
    acc = 0.0
    for i in range(lo, hi, 2):  # vectorize: select
        acc += x * i
        if acc > 100.0:
            break
    return acc


def odd_sum_to_compact(lo, hi, x):
    acc = 0.0
    for i in range(lo, hi, 2):  # vectorize: compact
        acc += x * i
        if acc > 100.0:
            break
    return acc


# ------------------------------------------- conditions that start unbatched, while True
def newton_sqrt_tol_select(x):
    """``while`` whose condition is unbatched on entry (y starts as the constant 1.0) and
    batched after the first iteration: the usual way to write Newton to a tolerance."""
    y = 1.0
    k = 0
    while abs(y * y - x) > 1e-12 * x and k < 100:  # vectorize: select
        y = 0.5 * (y + x / y)
        k += 1
    return y


def newton_sqrt_tol_compact(x):
    y = 1.0
    k = 0
    while abs(y * y - x) > 1e-12 * x and k < 100:  # vectorize: compact
        y = 0.5 * (y + x / y)
        k += 1
    return y


def first_power_above_select(x):
    """``while True`` left by ``return`` under batched conditions."""
    p = 1.0
    k = 0
    while True:  # vectorize: select
        if p > 1000.0:
            return k
        p *= x
        k += 1
        if k > 60:
            return -1


def first_power_above_compact(x):
    p = 1.0
    k = 0
    while True:  # vectorize: compact
        if p > 1000.0:
            return k
        p *= x
        k += 1
        if k > 60:
            return -1


def halve_below_select(x):
    """``while True`` left by ``break``; ``y`` is assigned before the break on every path."""
    k = 0
    while True:  # vectorize: select
        y = x * 0.5
        k += 1
        if not y >= 1.0:
            break
        x = y
    return y, k


def halve_below_compact(x):
    k = 0
    while True:  # vectorize: compact
        y = x * 0.5
        k += 1
        if not y >= 1.0:
            break
        x = y
    return y, k


def count_bits_select(n):
    """``while n:`` (per-example truthiness of an int) and augmented shifts."""
    c = 0
    while n:  # vectorize: select
        c += n & 1
        n >>= 1
    return c


def count_bits_compact(n):
    c = 0
    while n:  # vectorize: compact
        c += n & 1
        n >>= 1
    return c


def newton_sqrt_step_select(x):
    """Newton until the step is small: the condition starts unbatched (``step = 1.0``)."""
    y = 1.0
    step = 1.0
    k = 0
    while step > 1e-12 and k < 100:  # vectorize: select
        y_next = 0.5 * (y + x / y)
        step = abs(y_next - y)
        y = y_next
        k += 1
    return y


def newton_sqrt_step_compact(x):
    y = 1.0
    step = 1.0
    k = 0
    while step > 1e-12 and k < 100:  # vectorize: compact
        y_next = 0.5 * (y + x / y)
        step = abs(y_next - y)
        y = y_next
        k += 1
    return y


def tuple_carry_select(x):
    """A carried tuple ``(value, count)``."""
    p = (x, 0)
    while p[0] > 1.0:  # vectorize: select
        p = (p[0] / 2.0, p[1] + 1)
    return p[1]


def tuple_carry_compact(x):
    p = (x, 0)
    while p[0] > 1.0:  # vectorize: compact
        p = (p[0] / 2.0, p[1] + 1)
    return p[1]


# ------------------- loops whose lanes must be masked by an enclosing condition (termination)
def countdown_nested_select(n):
    """Nested masked loops: the inner loop would never end for a lane with k < 1, but the
    outer condition keeps every such lane out of it."""
    total = 0
    while n > 0:  # vectorize: select
        k = n
        while k != 1:  # vectorize: select
            k -= 1
            total += 1
        n -= 2
    return total


def countdown_nested_compact(n):
    total = 0
    while n > 0:  # vectorize: compact
        k = n
        while k != 1:  # vectorize: compact
            k -= 1
            total += 1
        n -= 2
    return total


def guarded_collatz_select(n):
    """A loop under a batched ``if``: for n <= 0 it would never end, but those lanes never
    reach it."""
    steps = 0
    if n > 0:
        while n != 1:  # vectorize: select
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
    return steps


def guarded_collatz_compact(n):
    steps = 0
    if n > 0:
        while n != 1:  # vectorize: compact
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
    return steps


def early_return_collatz_select(n):
    """The same guard written as an early ``return`` before the loop."""
    if n <= 0:
        return -1
    steps = 0
    while n != 1:  # vectorize: select
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def early_return_collatz_compact(n):
    if n <= 0:
        return -1
    steps = 0
    while n != 1:  # vectorize: compact
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


# ------------------------------------------------- loops over per-example vectors (vmap)
def first_nonnegative_select(v):
    """Scan while the index is in range and the entry is negative (the `and` guards v[i])."""
    i = 0
    while i < len(v) and v[i] < 0.0:  # vectorize: select
        i += 1
    return i


def first_nonnegative_compact(v):
    i = 0
    while i < len(v) and v[i] < 0.0:  # vectorize: compact
        i += 1
    return i


def halve_vector_select(v):
    """A per-example vector carried through a masked loop."""
    k = 0
    while v[0] > 1.0:  # vectorize: select
        v = v * 0.5
        k += 1
    return k, v[-1]


def halve_vector_compact(v):
    k = 0
    while v[0] > 1.0:  # vectorize: compact
        v = v * 0.5
        k += 1
    return k, v[-1]


# -------------------------------------------------------------- helpers that hold loops
def collatz_pair(n):
    """Helpers with masked loops (one select, one compact), called on batched values."""
    return collatz_steps_compact(n) + collatz_steps_select(n + 1)


def collatz_of_multiples(n):
    """A helper with a masked loop called on a carry that starts unbatched (m = 1) and is
    batched from the second iteration on."""
    m = 1
    total = 0
    for _ in range(3):
        total += collatz_steps_compact(m)
        m = m + n
    return total


# ------------------------------------------- loop carries that start unbatched, read as arrays
def builtins_on_carry(n):
    """A carry that starts unbatched (m = 1) read by builtins whose batched form needs an
    array (``float(m)`` is ``m.astype(float)``) in a plain loop."""
    m = 1
    s = 0.0
    for _ in range(3):
        s = s + float(m) + abs(m) + int(m) % 7
        m = m + n
    return s


# imported here, not at the top: the golden sources name the lines of the functions above
import numpy as np  # noqa: E402

SHARED_MATRIX = np.array([[4.0, 1.0], [-1.0, 2.0]])


def scaled_matrix_entries(x):
    """A per-example matrix carry that starts as a shared matrix: indexing, a reduction and
    ``len`` of it need the batch axis from the first iteration on."""
    v = SHARED_MATRIX
    t = 0.0
    for _ in range(2):
        t = t + v[0, 1] + v.sum(axis=0)[0] + len(v)
        v = v * x
    return t


# ------------------------------------------------------------ names first bound in while True
def settle_select(x):
    """``while True`` left by two breaks; ``y`` gets a different value before each."""
    k = 0
    while True:  # vectorize: select
        k += 1
        if x > 100.0 or k > 50:
            y = -1.0
            break
        x = x * 2.0
        if x >= 1.0:
            y = x - 1.0
            break
    return y, k


def settle_compact(x):
    k = 0
    while True:  # vectorize: compact
        k += 1
        if x > 100.0 or k > 50:
            y = -1.0
            break
        x = x * 2.0
        if x >= 1.0:
            y = x - 1.0
            break
    return y, k


def doubled_thrice(x):
    """``while True`` left by a ``break`` every example takes at the same time (a Python
    loop); ``y`` is first bound in it."""
    k = 0
    while True:
        y = x * 2.0
        x = y
        k += 1
        if k == 3:
            break
    return y


def unbound_after_some_breaks(x):
    """Invalid for some examples: ``y`` is unbound after the loop when the first break is
    taken (the engine must reject it, not invent a value)."""
    while True:
        if x > 1.0:
            break
        y = x
        x = x * 2.0 + 1.0
    return y


def halve_vector_until_small(v):
    """A per-example vector first bound in a masked ``while True``."""
    while True:
        w = v * 0.5
        if w[0] < 1.0:
            break
        v = w
    return w


# ------------------------------------------ indexes that Python evaluates on some lanes only
def sum_from_select(v, k):
    """A masked loop reading v[k]: lanes that finished keep k == len(v), and the body must
    not read v[len(v)] for them (the loop's own mask guards the index)."""
    s = 0.0
    while k < len(v):  # vectorize: select
        s = s + v[k]
        k += 1
    return s


def sum_from_compact(v, k):
    s = 0.0
    while k < len(v):  # vectorize: compact
        s = s + v[k]
        k += 1
    return s


def negative_at(v, i):
    """``and`` guarding an index, outside loops."""
    if i < len(v) and v[i] < 0.0:
        return 1
    return 0


def entry_or_zero(v, i):
    """A conditional expression guarding an index (the test a chained comparison)."""
    return v[i] if 0 <= i < len(v) else 0.0


def past_end_or_positive(v, i):
    """``or``: the right side runs only where the left side is false."""
    return i >= len(v) or v[i] > 0.0


def next_entry(v, i):
    """A branch assigns what its test reads before it indexes (the guard is the test's value
    before), and an ``elif`` indexes too."""
    y = -1.0
    if i < len(v) - 1:
        i = i + 1
        y = v[i]
    elif i < len(v):
        y = 2.0 * v[i]
    return y


TABLE = np.array([0.5, -1.0, 2.0, -3.0])


def table_is_positive(k):
    """A shared table indexed by a per-example integer only where it is in range."""
    return k >= 0 and k < len(TABLE) and TABLE[k] > 0.0


def entry_if_positive(v, x, k):
    """An index the same for every example (``k`` is shared), under a per-example
    condition."""
    if x > 0.0:
        return v[k]
    return 0.0
