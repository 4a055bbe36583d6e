"""Per-example vectors with @vmap (the second seed program, with NumPy): batched dot products, a
model applied to each example against shared weights, and mapped axes other than 0."""

import numpy as np

from vectorize import vmap

WEIGHTS = np.linspace(-1.0, 1.0, 5)


@vmap
def batched_dot(x: "float[:]", y: "float[:]"):
    return np.dot(x, y)


@vmap(in_axes=(0, None))
def model(feature_vec: "float[:]", bias: float):
    return np.maximum(feature_vec.dot(WEIGHTS) + bias, 0.0)


@vmap(in_axes=(1, None), out_axes=1)
def centered(column: "float[:]", scale: float):
    return (column - column.mean()) * scale


def main():
    examples = np.arange(40.0).reshape(8, 5) / 7.0 - 2.0
    other = np.cos(examples)
    stacked = np.stack([np.maximum(e.dot(WEIGHTS) - 0.5, 0.0) for e in examples])
    return {"dot": batched_dot(examples, other), "model": model(examples, -0.5),
            "loop": stacked, "centered": centered(examples, 2.0)}


if __name__ == "__main__":
    print(main())
