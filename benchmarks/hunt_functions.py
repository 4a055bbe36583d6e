import math

import numpy as np


def add(x, y):
    return x + y

def sub(x, y):
    return x - y

def mul(x, y):
    return x * y

def tdiv(x, y):
    return x / y

def fdiv(x, y):
    return x // y

def mod(x, y):
    return x % y

def pw(x, y):
    return x ** 2 + y

def neg(x, y):
    return -x + y

def absf(x, y):
    return abs(x) + abs(y)

def mn(x, y):
    return min(x, y)

def mx(x, y):
    return max(x, y)

def cmp(x, y):
    return x < y

def eq(x, y):
    return x == y

def branch(x, y):
    if x > y:
        r = x - y
    else:
        r = y - x
    return r

def tern(x, y):
    return x if x > 0 else y

def andor(x, y):
    return x and y

def orf(x, y):
    return x or y

def notf(x, y):
    return not x

def bitand(x, y):
    return x & y

def bitor(x, y):
    return x | y

def bitxor(x, y):
    return x ^ y

def shl(x, y):
    return x << 1

def shr(x, y):
    return x >> 1

def inv(x, y):
    return ~x

def tofloat(x, y):
    return float(x) + y

def toint(x, y):
    return int(x) + 1

def rnd(x, y):
    return round(x)

def rnd2(x, y):
    return round(x, 1)

def msqrt(x, y):
    return math.sqrt(abs(x)) + y

def mfloor(x, y):
    return math.floor(x)

def mexp(x, y):
    return math.exp(x * 0.001)

def npsin(x, y):
    return np.sin(x) + y

def ident(x, y):
    return x

def const(x, y):
    return 3

def constf(x, y):
    return 2.5

def mixed(x, y):
    s = x + 1
    if s > 2:
        s = s * 2.5
    return s

def divmodf(x, y):
    a, b = divmod(x, y)
    return a + b

def tup(x, y):
    return x + y, x - y

def boolsum(x, y):
    return (x > 0) + (y > 0)

def ctest(x, y):
    if x:
        return 1.0
    return 0.0

def hyp(x, y):
    return math.hypot(x, y)

def cpsign(x, y):
    return math.copysign(1.0, x)

def isn(x, y):
    return math.isnan(x) or math.isinf(y)

def trunc(x, y):
    return math.trunc(x)

def ceilf(x, y):
    return math.ceil(x)

def atan2(x, y):
    return math.atan2(x, y)

def fmodf(x, y):
    return math.fmod(x, y)

def floatmod(x, y):
    return x % 2.5

def intmulbig(x, y):
    return x * 1000000007

def loopacc(x, y):
    acc = 0
    for i in range(3):
        acc = acc + x * i
    return acc

def whilef(x, y):
    n = 0
    while x > 1 and n < 60:
        x = x / 2
        n = n + 1
    return n

def powxy(x, y):
    return x ** y

def bsum(x, y):
    return sum([x, y, 1])

def conj(x, y):
    return x.conjugate() if hasattr(x, "conjugate") else x

def realpart(x, y):
    return x.real

def complexf(x, y):
    return complex(x, y)

def isint(x, y):
    return x.is_integer()

def pyhash(x, y):
    return x == x

def eqzero(x, y):
    return x == 0.0

def signtest(x, y):
    return math.copysign(2.0, x) * y

def rank(x, y):
    return x.ndim + y

def npshape(x, y):
    return len(np.shape(x)) + np.ndim(y) + np.size(x)

def dtypename(x, y):
    return str(x.dtype)

def sinerank(x, y):
    return np.sin(x).ndim + y

def numerator(x, y):
    return x.numerator + y
