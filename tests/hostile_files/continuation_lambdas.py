"""Lambdas where their first source line is not a statement of its own (issue 20)."""

square = \
    lambda v: v * v

table = {"a": 1.0,
         "b":
             lambda v: v + 1.0 if v > 0 else -v}

pair = (lambda v: v * 2.0,
        lambda w: w - 3.0)

scales = [lambda v: v * 0.5, lambda v: v * 4.0]


def uses_them(x):
    return square(x) + table["b"](x)


def make_offsets():
    return [lambda v, k=k: v + k for k in range(3)]
