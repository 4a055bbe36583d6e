"""numpy.vectorize signatures: per-example vectors in, numbers out."""

import numpy as np

from vectorize import vectorize


@vectorize(signature="(n)->()")
def rms(v):
    return np.sqrt(np.mean(v * v))


@vectorize(signature="(n),(n)->()")
def cosine(u, v):
    norms = np.linalg.norm(u) * np.linalg.norm(v)
    if norms == 0:
        return 0.0
    return u.dot(v) / norms


def main():
    rows = np.arange(24.0).reshape(6, 4) - 10.0
    rows[2] = 0.0
    per_row = np.array([rms(row) for row in rows])
    reference = np.ones(4)
    sims = []
    for row in rows:
        sims.append(cosine(row, reference))
    return {"rms": per_row, "direct": rms(rows), "sims": sims,
            "grid": cosine(rows.reshape(2, 3, 4), rows[:3])}


if __name__ == "__main__":
    print(main())
