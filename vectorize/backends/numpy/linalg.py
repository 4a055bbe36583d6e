"""Products of per-example arrays become one ``np.einsum``, or one ``@`` of whole batches.

``a.dot(b)``, ``np.dot``, ``@``, ``np.matmul``, ``np.inner``, ``np.outer``, ``np.vdot``,
``np.tensordot``, ``np.trace`` and ``np.einsum`` itself: the per-example contraction is
written out with one letter per axis, and batched operands (only those) get a fresh batch
letter in front, which the output keeps. An unbatched operand (a shared weight matrix) is
never broadcast or copied. A product of vectors and matrices that is one matrix product
over the batch (a batch of rows times a shared vector or matrix, maybe transposed) is written
``x @ w`` / ``x @ w.T``, one BLAS call as hand-written NumPy has it (a batch of rows times a
shared vector: ``merge.rows_dot(x, w)``, which computes large batches of rows by an einsum
where that was timed faster on samples of them, `merge.ROWS_DOT_WIDTHS`); any other einsum whose
operands both keep free axes around a contracted one is asked to plan its path
(``optimize=True``), which hands the work to BLAS.
"""

from __future__ import annotations

import numpy as np

from ...errors import Unsupported
from ...rules.contractions import dot as _dot
from ...rules.contractions import einsum, einsum_call, inner, matrix_product, outer
from ...rules.contractions import fresh as _fresh
from ...rules.contractions import ranks as _ranks
from ...rules.contractions import tensordot as _tensordot
from ...rules.families import pad, rewrite_call_args
from ...rules.registry import Registry, Rule, Site, evaluate, infer_by_calling
from ...syntax.templates import expr


def _vdot(site: Site):
    ra, rb = _ranks(site)
    if ra != 1 or rb != 1:
        raise Unsupported("np.vdot of per-example arrays that are not vectors",
                          suggestion="flatten them first with .ravel()")
    a, b = site.nodes[:2]
    if site.args[0].kind == "c":
        a = expr("np.conj({a})", a=a)
    used: set = set()
    (i,) = _fresh(1, used)
    return einsum_call([i, i], "", [a, b], site.args[:2], used, site.backend)


def _trace(site: Site):
    # (`picking`: the offset and axes shifted past the batch axis; np.trace itself also
    # takes non-square matrices, which einsum "bii" would not)
    from .picking import trace
    return trace(site)


# np.linalg functions of the last two axes that broadcast over stacks of matrices
STACKED = ["cholesky", "inv", "det", "slogdet", "eig", "eigh", "eigvals", "eigvalsh", "svd",
           "svdvals", "qr", "pinv", "matrix_rank", "matrix_power", "cond", "matrix_norm",
           "trace", "diagonal", "matrix_transpose"]


def _matrix_operands(site: Site, matrices: int, operands: int = 1):
    """Check that the first ``matrices`` operands are matrices (or stacks) per example and
    that nothing after the first ``operands`` differs per example."""
    name = getattr(site.func, "__name__", "this function")
    for value in site.args[:matrices]:
        if value.batched and value.rank < 2:
            raise Unsupported(f"`np.linalg.{name}` of a per-example value of rank "
                              f"{value.rank}: it needs a matrix per example (NumPy raises "
                              "per example, or reads a batch of vectors as one matrix)",
                              suggestion="pass per-example matrices", kind="raises")
    others = list(site.args[operands:]) + [v for _, v in site.kwargs.values()]
    if any(getattr(v, "batched", False) for v in others):
        raise Unsupported(f"`np.linalg.{name}` with a per-example option (only its matrices "
                          "may differ per example)", suggestion="use one value for every "
                                                                "example")


def _stacked_infer(site: Site):
    """The result of the call on the examples; where it raises there (`cholesky` of the
    representative all-ones matrix, which is singular), on identity matrices of the same
    shapes and types, whose results have the shapes of every other example's."""
    from ...abstract import UNKNOWN
    from ...rules.registry import result_value
    examples = [v.example for v in site.args]
    kwargs = {k: v.example for k, (_, v) in site.kwargs.items()}
    out = evaluate(site.func, *examples, **kwargs)
    if out is UNKNOWN and site.args and getattr(site.args[0], "batched", False):
        first = examples[0]
        if isinstance(first, np.ndarray) and first.ndim >= 2:
            eye = np.broadcast_to(np.eye(*first.shape[-2:], dtype=first.dtype), first.shape)
            out = evaluate(site.func, eye.copy(), *examples[1:], **kwargs)
    return result_value(out)


def _stacked(site: Site):
    _matrix_operands(site, 1)
    return site.node


def _solve(site: Site):
    (a, b), (va, vb) = site.nodes[:2], site.args[:2]
    _matrix_operands(site, 2 if vb.rank >= 2 else 1, 2)
    if vb.rank == 0:
        raise Unsupported("`np.linalg.solve` with a per-example scalar right-hand side "
                          "(NumPy raises per example)", kind="raises")
    if vb.rank == 1:
        if not vb.batched:
            return site.node          # a 1-d b is a vector for every matrix of the stack
        b = pad(b, vb, va.rank - 1) if va.batched else b
        return expr("np.linalg.solve({a}, {b}[..., None])[..., 0]", a=a, b=b)
    rank = max(va.rank, vb.rank)
    return expr("np.linalg.solve({a}, {b})", a=pad(a, va, rank), b=pad(b, vb, rank))


def _roots(site: Site):
    """``np.roots(p)`` of per-example coefficient vectors: the eigenvalues of each example's
    companion matrix, built as NumPy builds it (first row ``-p[1:] / p[0]``, ones below the
    diagonal), in one batched ``np.linalg.eigvals``. Per example NumPy first strips leading
    and trailing zero coefficients (fewer roots, or zero roots appended after the others):
    such examples get NaN in their matrix, on which ``eigvals`` raises ``LinAlgError``
    for the batch rather than give other roots than the example's."""
    (p,), (value,) = site.nodes, site.args
    if value.rank != 1 or not np.shape(value.example):
        raise Unsupported("`np.roots` of a per-example value that is not a vector "
                          "(NumPy raises per example)", kind="raises")
    degree = np.shape(value.example)[0] - 1
    if degree < 1:
        raise Unsupported("`np.roots` of a per-example constant polynomial",
                          suggestion="give it at least two coefficients")
    if value.kind not in "fc":
        p = expr("{p}.astype(float)", p=p)
    return expr("(lambda p: np.linalg.eigvals(np.concatenate([(-p[:, 1:] / np.where("
                "(p[:, :1] == 0) | (p[:, -1:] == 0), np.nan, p[:, :1]))[:, None], "
                f"np.broadcast_to(np.eye({degree - 1}, {degree}), (len(p), {degree - 1}, "
                f"{degree}))], axis=1)))({{p}})", p=p)


def _last_axis(site: Site):
    return rewrite_call_args(site)


def register(reg: Registry) -> None:
    # products warn on inf * 0 (`@`, and the BLAS an einsum's path hands them to, as `np.dot`
    # does per example): lanes a batched `if` throws away must be silenced
    def add(fn, name, explanation, before, after, rewrite, method=None):
        rule = Rule(name, "linear algebra", explanation, before, after, rewrite,
                    infer=infer_by_calling(fn), may_warn=True)
        reg.add_call(fn, rule)
        if method:
            reg.add_method(method, Rule(name + "_method", "linear algebra", explanation,
                                        before.replace(f"np.{method}(v, ", "v." + method + "("),
                                        after, rewrite, may_warn=True))
        return rule

    add(np.dot, "linalg.dot",
        "`np.dot(a, b)` / `a.dot(b)` on per-example arrays: one einsum over the per-example "
        "axes, or `@` where that is one matrix product over the batch (a batch of rows times "
        "a shared vector: `merge.rows_dot`, which is `@`, or an einsum where that was timed "
        "faster on samples of large batches of rows); a shared (unbatched) operand is used "
        "as it is.",
        "s = np.dot(v, w)", "s = merge.rows_dot(v, w)", _dot, method="dot")
    matmul = add(np.matmul, "linalg.matmul",
                 "`a @ b` / `np.matmul`: one `@` of the batch where it is one matrix product "
                 "(`x @ W.T` for `W @ x`), else one einsum (vectors and matrices as matmul "
                 "defines them; stacks of matrices need equal ranks).",
                 "y = W @ x", "y = x @ W.T", matrix_product)
    reg.add_operator("matmul", matmul)
    add(np.inner, "linalg.inner", "`np.inner(a, b)` contracts the last per-example axes.",
        "s = np.inner(a, b)", 's = np.einsum("bi,bi->b", a, b)', inner)
    add(np.outer, "linalg.outer", "`np.outer(a, b)` of per-example vectors: the products "
        "broadcast, as NumPy computes them (an einsum would lose the sign of a -0.0 product).",
        "m = np.outer(a, b)", "m = a[:, :, None] * b[:, None, :]", outer)
    add(np.vdot, "linalg.vdot", "`np.vdot(a, b)` (conjugating `a`) of per-example vectors.",
        "s = np.vdot(a, b)", 's = np.einsum("bi,bi->b", a, b)', _vdot)
    add(np.tensordot, "linalg.tensordot", "`np.tensordot(a, b, axes)` as one einsum (or `@`).",
        "t = np.tensordot(a, b, axes=1)", 't = np.einsum("bij,jk->bik", a, b)', _tensordot)
    add(np.trace, "linalg.trace", "`np.trace(m, offset, axis1, axis2)` of each per-example "
        "matrix (its first two axes by default, square or not).", "t = np.trace(m)",
        "t = np.trace(m, axis1=1, axis2=2)", _trace)
    stacked = Rule(
        "linalg.stacked", "linear algebra",
        "`np.linalg` functions of square or rectangular matrices (`inv`, `det`, `slogdet`, "
        "`cholesky`, `eig`, `eigh`, `eigvals`, `svd`, `qr`, `pinv`, `matrix_rank`, "
        "`matrix_power`, `cond`...) already act on stacks of matrices (the last two axes): "
        "the call stays as written. Each per-example operand must be a matrix or a stack of "
        "them (per example NumPy raises otherwise); their other arguments must be the same "
        "for every example.",
        "d = np.linalg.det(m)\nw, v = np.linalg.eigh(m)",
        "d = np.linalg.det(m)\nw, v = np.linalg.eigh(m)", _stacked, may_warn=True,
        infer=_stacked_infer)
    for name in STACKED:
        if hasattr(np.linalg, name):
            reg.add_call(getattr(np.linalg, name), stacked)
    reg.add_call(np.linalg.solve, Rule(
        "linalg.solve", "linear algebra",
        "`np.linalg.solve(a, b)` on stacks: a per-example right-hand side that is a vector "
        "gets a length-1 last axis (NumPy takes a 2-d `b` for a matrix), removed again.",
        "x = np.linalg.solve(a, b)", "x = np.linalg.solve(a, b[..., None])[..., 0]", _solve,
        may_warn=True))
    reg.add_call(np.roots, Rule(
        "linalg.roots", "linear algebra",
        "`np.roots(p)` of per-example coefficients: one batched `np.linalg.eigvals` of the "
        "companion matrices (as NumPy builds them). An example whose first or last "
        "coefficient is zero (fewer roots, or zero roots in another place per example) makes "
        "the batch raise `LinAlgError`.",
        "r = np.roots(p)",
        "r = (lambda p: np.linalg.eigvals(np.concatenate([(-p[:, 1:] / np.where((p[:, :1] == "
        "0) | (p[:, -1:] == 0), np.nan, p[:, :1]))[:, None], np.broadcast_to(np.eye(1, 2), "
        "(len(p), 1, 2))], axis=1)))(p)", _roots, may_warn=True))
    last_axis = Rule(
        "linalg.last_axis", "linear algebra",
        "`np.cross` and `np.linalg.vecdot`/`np.linalg.cross` act along the last axis and "
        "broadcast the others: as written, operands aligned by per-example rank.",
        "c = np.cross(u, v)", "c = np.cross(u, v)", _last_axis, may_warn=True)
    for fn in (np.cross, getattr(np.linalg, "cross", None), getattr(np.linalg, "vecdot", None)):
        if fn is not None:
            reg.add_call(fn, last_axis)
    add(np.einsum, "linalg.einsum",
        "`np.einsum` itself: batched operands get a batch letter, which the output keeps "
        "(`@` where that is one matrix product over the batch).",
        's = np.einsum("i,ij->j", v, m)', "s = v @ m", einsum)
