"""Scalar-style functions whose generated source is checked in under tests/golden/."""

import math

import numpy as np


def func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def piecewise(x):
    if x < 0:
        return 0.0
    elif x < 1:
        y = x * x
        return y
    else:
        return math.sqrt(x)


def clamp(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


def smooth_clamp(x):
    return clamp(x * 1.5, -1.0, 1.0)


def collatz_step(n):
    if n % 2 == 0:
        n = n // 2
    else:
        n = 3 * n + 1
    return n


def safe_log(x):
    if x > 0:
        return math.log(x)
    return -math.inf


def ordered(a, b):
    if a > b:
        return b, a
    return a, b


def in_band(x, lo, hi):
    return lo <= x < hi and not math.isnan(x)


def sign_label(x):
    label = 0
    if x > 0:
        label = 1
    elif x < 0:
        label = -1
    return label


def relu_or_leak(x, leak):
    return x if x > 0 else leak * x


def quadratic_root(a, b, c):
    disc = b * b - 4 * a * c
    if disc < 0:
        return math.nan
    root = (-b + math.sqrt(disc)) / (2 * a)
    return root


def hinge(x, margin):
    loss = max(0.0, margin - x)
    scaled = loss * 2 if loss > 1 else loss
    return round(scaled, 3)


def tanh_mix(x, w):
    total = 0.0
    for k in range(3):
        total = total + np.tanh(w * x + k)
    return total / 3
