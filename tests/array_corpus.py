"""Realistic per-example functions on vectors and matrices, written for ONE example as a user
of ``jax.vmap`` / ``torch.func.vmap`` would write them.

`CORPUS` maps each function to a `Spec`:

- ``args``: one entry per parameter, ``"core:kind"``. ``core`` lists the per-example shape as
  comma-separated dimension letters or fixed sizes (``"d"``, ``"h,d"``, ``"3"``, ``""`` for a
  scalar); letters shared between arguments have the same size. ``kind``:
  ``"f"`` floats that are multiples of 0.5 in [-4, 4] (every product and sum of a few of them
  is exact, so any summation order gives the same bits and comparisons in the code cannot
  flip), ``"p"`` the same but positive, ``"i"`` an integer index below the size of the
  argument's first core dimension letter named after the ``i`` (``"i:iv"``: below ``v``).
- ``in_axes``: the `vmap` axes the tests use (the first is the main one; ``None``: shared).
- ``signature``: the matching ``numpy.vectorize`` signature.
- ``bug``: in_axes combinations that hit a known engine bug, with the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

# ---------------------------------------------------------------------------- similarity


def cosine_similarity(a, b):
    return a.dot(b) / (np.linalg.norm(a) * np.linalg.norm(b))


def attention_score(q, k):
    return q.dot(k) / np.sqrt(len(q))


def trace_outer(a, b):
    return np.trace(np.outer(a, b))


def bilinear(x, y, w):
    return x @ w @ y


# ---------------------------------------------------------------------------- models


def relu_linear(x, w):
    return max(x.dot(w), 0.0)


def mlp(x, w1, b1, w2):
    return w2 @ np.tanh(w1 @ x + b1)


def huber_regression_loss(x, w, y, delta):
    r = x.dot(w) - y
    a = abs(r)
    if a <= delta:
        return 0.5 * r * r
    return delta * (a - 0.5 * delta)


def poly_eval(coeffs, t):
    powers = t ** np.arange(len(coeffs))
    return coeffs.dot(powers)


def poly_eval_np_dot(coeffs, t):
    powers = t ** np.arange(len(coeffs))
    return np.dot(powers, coeffs)


def poly_horner(coeffs, t):
    acc = 0.0
    for k in range(len(coeffs) - 1, -1, -1):
        acc = acc * t + coeffs[k]
    return acc


# ---------------------------------------------------------------------------- probabilities


def softmax(z):
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def logsumexp(z):
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m)))


def cross_entropy(logits, label):
    z = logits - logsumexp(logits)
    return -z[label]


def predict_class(logits):
    return np.argmax(softmax(logits))


def kl_divergence(p, q):
    p = p / p.sum()
    q = q / q.sum()
    return np.sum(p * np.log(p / q))


def attention(q, keys, values):
    scores = keys @ q / np.sqrt(q.shape[0])
    w = np.exp(scores - scores.max())
    w = w / w.sum()
    return w @ values


# ---------------------------------------------------------------------------- geometry


def ray_sphere(origin, direction, center, radius):
    oc = origin - center
    b = oc.dot(direction)
    c = oc.dot(oc) - radius * radius
    disc = b * b - c
    if disc < 0:
        return -1.0
    return -b - math.sqrt(disc)


def normalize(v):
    n = np.linalg.norm(v)
    if n == 0:
        return v
    return v / n


def normalize_rows(m):
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / norms


def clip_by_norm(g, max_norm):
    n = np.linalg.norm(g)
    if n > max_norm:
        g = g * (max_norm / n)
    return g


def triangle_area(p):
    a, b, c = p[0], p[1], p[2]
    cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return 0.5 * abs(cross)


def rotate2d(p, theta):
    c = math.cos(theta)
    s = math.sin(theta)
    return np.array([c * p[0] - s * p[1], s * p[0] + c * p[1]])


def point_in_box(p, lo, hi):
    return np.all((p >= lo) & (p <= hi))


# ---------------------------------------------------------------------------- statistics


def quadratic_form(x, a):
    return x @ a @ x


def mahalanobis(x, mu, prec):
    d = x - mu
    return np.sqrt(d @ prec @ d)


def nearest_centroid(x, centroids):
    d = np.sum((centroids - x) ** 2, axis=1)
    return np.argmin(d)


def standardize(v):
    return (v - v.mean()) / (v.std() + 1.0)


def mean_and_spread(v):
    return v.mean(), v.max() - v.min()


def weighted_average(x, w):
    return np.sum(x * w) / np.sum(w)


def embedding_lookup(table, idx):
    return table[idx]


# ------------------------------------------------------------- writes under conditions


def binned_excess(v, t):
    """Sums of the elements above a threshold into three bins, a penalty for the others:
    writes into an array under a per-example condition."""
    bins = np.zeros(3)
    for i in range(len(v)):
        if v[i] > t:
            bins[i % 3] += v[i] - t
        else:
            bins[0] -= 0.5
    return bins


def zero_label_if_positive(logits, label):
    """The logits with the label's entry zeroed where it is positive: a write at a
    per-example index under a per-example condition."""
    out = logits.copy()
    if logits[label] > 0:
        out[label] = 0.0
    return out


def bin_spread(v, t):
    """Excesses over a threshold summed into three bins kept in a local Python list: a list
    written into item by item (an array of its items per example)."""
    bins = [0.0, 0.0, 0.0]
    for i in range(len(v)):
        if v[i] > t:
            bins[i % 3] += v[i] - t
    return max(bins) - min(bins) + bins[0]


def _cap_item(w, i, hi):
    if w[i] > hi:
        w[i] = hi


def capped_if_first_positive(x, hi):
    """The items above ``hi`` capped, where the first item is positive: a helper that
    writes into the caller's array, called under a per-example condition."""
    out = x.copy()
    if x[0] > 0:
        for i in range(len(x)):
            _cap_item(out, i, hi)
    return out


# ---------------------------------------------------------------------------- the table


@dataclass
class Spec:
    args: tuple
    in_axes: list
    signature: str | None = None
    bug: dict = field(default_factory=dict)      # in_axes (or "signature") -> reason


SHARED_DOT_BUG = ("bug: `w.dot(x)` with an unmapped array `w` is rejected: '`ndarray.dot` has "
                  "no batching rule'")
ARANGE_BUG = ("bug: `t ** np.arange(n)`: the analysis has no example for np.arange(...), its "
              "rank counts as 0, so the per-example scalar t is not padded and the dot "
              "refuses 'the rank of an operand of this product is unknown'")
ALL_ARANGE = {(0, 0): ARANGE_BUG, (None, 0): ARANGE_BUG, "signature": ARANGE_BUG}

CORPUS = {
    cosine_similarity: Spec(("d:f", "d:f"), [(0, 0), (0, None)], "(d),(d)->()"),
    attention_score: Spec(("d:f", "d:f"), [(0, 0), (None, 0)], "(d),(d)->()"),
    trace_outer: Spec(("d:f", "d:f"), [(0, 0), (0, None)], "(d),(d)->()"),
    bilinear: Spec(("i:f", "j:f", "i,j:f"), [(0, 0, None), (0, 0, 0)], "(i),(j),(i,j)->()"),
    relu_linear: Spec(("d:f", "d:f"), [(0, None), (0, 0)], "(d),(d)->()"),
    mlp: Spec(("i:f", "h,i:f", "h:f", "o,h:f"), [(0, None, None, None), (0, 0, 0, 0)],
              "(i),(h,i),(h),(o,h)->(o)"),
    huber_regression_loss: Spec(("d:f", "d:f", ":f", ":p"), [(0, None, 0, None)],
                                "(d),(d),(),()->()"),
    poly_eval: Spec(("k:f", ":f"), [(0, 0), (None, 0)], "(k),()->()"),
    poly_eval_np_dot: Spec(("k:f", ":f"), [(None, 0), (0, 0)], "(k),()->()"),
    poly_horner: Spec(("k:f", ":f"), [(None, 0), (0, 0)], "(k),()->()"),
    softmax: Spec(("k:f",), [(0,)], "(k)->(k)"),
    logsumexp: Spec(("k:f",), [(0,)], "(k)->()"),
    cross_entropy: Spec(("k:f", ":ik"), [(0, 0), (0, None)], "(k),()->()"),
    predict_class: Spec(("k:f",), [(0,)], "(k)->()"),
    kl_divergence: Spec(("k:p", "k:p"), [(0, 0), (0, None)], "(k),(k)->()"),
    attention: Spec(("d:f", "t,d:f", "t,e:f"), [(0, None, None), (0, 0, 0)],
                    "(d),(t,d),(t,e)->(e)"),
    ray_sphere: Spec(("3:f", "3:f", "3:f", ":p"), [(0, 0, None, None), (0, None, 0, 0)],
                     "(n),(n),(n),()->()"),
    normalize: Spec(("d:f",), [(0,)], "(d)->(d)"),
    normalize_rows: Spec(("r,c:f",), [(0,)], "(r,c)->(r,c)"),
    clip_by_norm: Spec(("d:f", ":p"), [(0, None), (0, 0)], "(d),()->(d)"),
    triangle_area: Spec(("3,2:f",), [(0,)], "(m,n)->()"),
    rotate2d: Spec(("2:f", ":f"), [(0, 0), (0, None)], "(n),()->(n)"),
    point_in_box: Spec(("d:f", "d:f", "d:f"), [(0, None, None), (0, 0, 0)],
                       "(d),(d),(d)->()"),
    quadratic_form: Spec(("d:f", "d,d:f"), [(0, None), (0, 0)], "(d),(d,d)->()"),
    mahalanobis: Spec(("d:f", "d:f", "d,d:f"), [(0, None, None), (0, 0, None)],
                      "(d),(d),(d,d)->()"),
    nearest_centroid: Spec(("d:f", "k,d:f"), [(0, None), (0, 0)], "(d),(k,d)->()"),
    standardize: Spec(("d:f",), [(0,)], "(d)->(d)"),
    mean_and_spread: Spec(("d:f",), [(0,)], "(d)->(),()"),
    weighted_average: Spec(("d:f", "d:p"), [(0, None), (0, 0)], "(d),(d)->()"),
    embedding_lookup: Spec(("v,e:f", ":iv"), [(None, 0), (0, 0)], None),
    binned_excess: Spec(("d:f", ":f"), [(0, 0), (0, None), (None, 0)], "(d),()->(b)"),
    zero_label_if_positive: Spec(("k:f", ":ik"), [(0, 0), (None, 0)], "(k),()->(k)"),
    bin_spread: Spec(("d:f", ":f"), [(0, 0), (0, None), (None, 0)], "(d),()->()"),
    capped_if_first_positive: Spec(("d:f", ":f"), [(0, 0), (0, None)], "(d),()->(d)"),
}
