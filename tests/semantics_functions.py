"""Functions that show each documented divergence (docs/semantics.md)."""

import math

import numpy as np

calls = []


def log_or_zero(x):
    if x > 0:
        return math.log(x)
    return 0.0


def guarded_int_power(n):
    if n >= 0:
        return 2 ** n
    return 0


def int_floor_div(x):
    return int(x) // 0


def checked_sqrt(x):
    return math.sqrt(x)


def note_and_double(x):
    calls.append("called")
    return x * 2


def to_int(x):
    return int(x)


def mixed_return(x):
    if x > 0:
        return 1
    return 0.5


def float32_math(x):
    return x * math.sqrt(2.0) + math.floor(x)


def square_int(n):
    return n * n


def log_minus_five(x):
    if x > 0:
        return np.log(x - 5)
    return 0.0


def smaller(x, y):
    return np.fmin(x, y)


def copy_then_add_in_place(x):
    x = np.where(x > 0, x, -x)      # per example a 0-d array (mutable), not a NumPy scalar
    y = x
    x += 1.0
    return y


def one_plus_tanh(x):
    return 1.0 + math.tanh(x)


def nan_mix(x):
    return -x + (x + x)


def add_in_place_to_a_copy_binding(x):
    z = np.where(x > 0, x, -x)      # a 0-d array per example
    y = z                           # y is bound to z's array (the reverse of `z = y`)
    y *= 2.0                        # changes z too
    return z


def add_in_place_through_a_conditional(x):
    z = np.where(x > 0, x, 1.0) if x < 5.0 else x    # a 0-d array on some examples
    w = z
    y = w                           # y, w and z: one array
    y += 1.0
    return z


def add_in_place_seen_through_a_chain(x):
    a = np.where(x > 0, x, -x)      # a 0-d array per example; `a` is not read again
    z = a
    y = z
    z += 1.0                        # y sees it
    return y


def add_in_place_before_the_copy_is_bound(x):
    z = np.where(x > 0, x, -x)
    z += 1.0                        # nothing else holds z's array yet
    y = z
    return y * 2.0


def update_a_slice_in_place(x):
    y = x[:2]                       # a view of the per-example vector x
    y += 1.0                        # changes x too
    return x


def update_a_reshaped_view_in_place(x):
    y = np.reshape(x, (3,)).T       # still a view of x
    y *= 2.0
    return x.sum()


def update_a_new_array_in_place(x):
    y = x[:2] + 0.5                 # arithmetic makes a new array
    y *= 2.0
    return x.sum() + y


def double_in_place(v):
    v *= 2.0
    return v


def pass_to_a_helper_that_updates_it(x):
    y = np.where(x > 0, x, 1.0)     # a 0-d array per example
    z = double_in_place(y)          # doubles y too
    return y + z


def pass_to_a_helper_and_forget_it(x):
    y = np.where(x > 0, x, 1.0)
    return double_in_place(y) + 1.0   # y is not read again


def add_one_in_place(v):
    w = v[1:]                        # a view of the argument
    w += 1.0
    return w.sum()


def pass_a_vector_to_a_helper_that_updates_it(x):
    s = add_one_in_place(x)
    return x.sum() + s


def accumulate_into_a_shared_array(x, w):
    w += x                          # per example: every example adds to the same w
    return w.sum()


def add_a_shared_vector_in_place(x, w):
    x += w                          # x (a per-example scalar) becomes a vector
    y = x
    y *= 2.0                        # changes x's new array too; x is not read again
    return y.sum()


def add_a_shared_vector(x, w):
    x += w
    return x


def update_then_swap(x, y):
    x = np.where(x > 0, x, 0.0)     # a 0-d array per example
    x += 1.0                        # y is bound to it only afterwards: nothing sees this
    x, y = y, x
    return x + y


def update_seen_by_the_next_iteration(x):
    x = np.where(x > 0, x, 0.0)
    y = x * 0
    z = 0.0
    for _ in range(2):
        x += 1.0                    # the second time, y (bound below) is this array
        z = y + 0
        y = x
    return z


def bind_on_one_branch_update_on_the_other(x):
    x = np.where(x > 0, x, 0.0)
    y = x * 0
    if x > 1:
        y = x                       # this path never reaches the update
    else:
        x += 1.0
    return x + y


def bind_then_update_on_later_iterations(x):
    x = np.where(x > 0, x, 0.0)
    y = x * 0
    for i in range(2):
        if i == 0:
            y = x                   # the first iteration binds...
        else:
            x += 1.0                # ...the second changes y's array too
    return x + y
