"""`vmap`'s front end: pytrees (tuples, lists, dicts, namedtuples, OrderedDicts) in arguments
and results, ``in_axes`` / ``out_axes`` as tree prefixes, keyword arguments (not mapped, as in
torch.func), ``*args``, ``functools.partial``, nested vmap at any depth (``vmap(vmap(f))``
and a vmapped function called inside a vmapped one), and the errors JAX and torch.func raise,
located at the user's call. Every result is compared with the per-example loop
(`tests/vmap_reference.loop_vmap`), at every nesting level."""

from __future__ import annotations

import collections
import functools

import numpy as np
import pytest
from vmap_reference import assert_same_tree, loop_vmap

from vectorize import VectorizeError, vmap

Point = collections.namedtuple("Point", ["x", "y"])
RNG = np.random.default_rng(0)
X24 = np.arange(24.0).reshape(2, 3, 4)


def check(f, in_axes, out_axes, *args, **kwargs):
    got = vmap(f, in_axes, out_axes)(*args, **kwargs)
    expected = loop_vmap(f, in_axes, out_axes)(*args, **kwargs)
    assert_same_tree(got, expected)
    return got


# ------------------------------------------------------------------ nested vmap (was wrong)


def total(v):
    return v.sum()


def scale_add(a, b):
    return a * 2.0 + b


def test_vmap_of_vmap_maps_over_both_axes():
    # was silently wrong: the outer vmap looked through the inner one to `f`, shape (2,)
    got = vmap(vmap(lambda v: v.sum()))(X24)
    assert got.shape == (2, 3)
    assert_same_tree(got, loop_vmap(loop_vmap(lambda v: v.sum()))(X24))


@pytest.mark.parametrize("inner_in, inner_out, outer_in, outer_out", [
    (0, 0, 0, 0), (1, 0, 0, 0), (0, 1, 2, 0), (1, 1, 2, 1), (-1, 0, 0, -1), (0, 0, 1, 1)])
def test_nested_in_axes_and_out_axes_of_both_levels(inner_in, inner_out, outer_in, outer_out):
    def f(v):
        return v * 2.0 + 1.0
    got = vmap(vmap(f, inner_in, inner_out), outer_in, outer_out)(X24)
    expected = loop_vmap(loop_vmap(f, inner_in, inner_out), outer_in, outer_out)(X24)
    assert_same_tree(got, expected)


def test_nested_with_an_argument_mapped_at_one_level_only():
    a = RNG.normal(size=(5, 3))
    b = RNG.normal(size=(4, 3))
    # matmat from matvec, JAX's testNestedBatchingMatMat: outer maps b, inner maps a
    matvec = vmap(np.dot, in_axes=(0, None))
    matmat = vmap(matvec, in_axes=(None, 0), out_axes=1)
    got = matmat(a, b)
    assert_same_tree(got, loop_vmap(loop_vmap(np.dot, (0, None)), (None, 0), 1)(a, b))
    np.testing.assert_allclose(got, a @ b.T)
    got = vmap(vmap(scale_add, in_axes=(None, 0)), in_axes=(0, None))(a[:, 0], b[:, 0])
    assert_same_tree(got, loop_vmap(loop_vmap(scale_add, (None, 0)), (0, None))(a[:, 0],
                                                                               b[:, 0]))


def test_three_levels():
    x = RNG.normal(size=(2, 3, 4, 5))
    f = vmap(vmap(vmap(total)))
    assert_same_tree(f(x), loop_vmap(loop_vmap(loop_vmap(total)))(x))
    g = vmap(vmap(vmap(total, 1), 2), 0)
    assert_same_tree(g(x), loop_vmap(loop_vmap(loop_vmap(total, 1), 2), 0)(x))


def test_nested_vmap_over_an_empty_batch():
    assert vmap(vmap(total))(np.zeros((0, 3, 4))).shape == (0, 3)
    assert vmap(vmap(total))(np.zeros((3, 0, 4))).shape == (3, 0)


def test_nested_out_axes_none_at_one_level():
    # the output does not depend on the inner example: out_axes None there
    def f(a, b):
        return a * 3.0
    a, b = RNG.normal(size=4), RNG.normal(size=5)
    got = vmap(vmap(f, (None, 0), None), (0, None))(a, b)
    assert_same_tree(got, loop_vmap(loop_vmap(f, (None, 0), None), (0, None))(a, b))
    with pytest.raises(ValueError, match="out_axes is None"):
        vmap(vmap(f, (0, None), None), (None, 0))(a, b)


def per_row_total(x):
    return vmap(total)(x) * 2.0


def mapped_scale(x, w):
    return vmap(scale_add, in_axes=(0, None))(x, w)


SHIFTED_TOTAL = vmap(total, in_axes=1)


def global_vmapped(x):
    return SHIFTED_TOTAL(x) + 1.0


def test_vmapped_function_called_inside_a_mapped_function():
    # was refused ("cannot tell what `vmap(total)` is")
    assert_same_tree(vmap(per_row_total)(X24), loop_vmap(per_row_total)(X24))
    w = np.arange(4.0)
    assert_same_tree(vmap(mapped_scale, (0, None))(X24, w),
                     loop_vmap(mapped_scale, (0, None))(X24, w))
    assert_same_tree(vmap(global_vmapped)(X24), loop_vmap(global_vmapped)(X24))
    # the inner call's mapped argument the same for every example, another one per example
    ws = RNG.normal(size=(5, 4))
    assert_same_tree(vmap(mapped_scale, (None, 0))(X24[0], ws),
                     loop_vmap(mapped_scale, (None, 0))(X24[0], ws))
    assert "vmap(vmap(total))(x)" in vmap(per_row_total).source(X24)


def twice_nested(x):
    return vmap(per_row_total)(x)


def test_vmapped_calls_nest_at_any_depth():
    x = RNG.normal(size=(2, 3, 4, 5))
    assert_same_tree(vmap(twice_nested)(x), loop_vmap(twice_nested)(x))
    assert_same_tree(vmap(vmap(per_row_total))(x), loop_vmap(loop_vmap(per_row_total))(x))


def test_warm_calls_of_an_inner_vmap_do_not_transform_again():
    f = vmap(per_row_total)
    f(X24)
    import vectorize.transform as transform
    calls = []
    original = transform.transform_function
    transform.transform_function = lambda *a, **k: calls.append(1) or original(*a, **k)
    try:
        for _ in range(3):
            f(X24 + 1.0)
    finally:
        transform.transform_function = original
    assert calls == []


# ---------------------------------------------------------------- torch: nested and lists


def test_torch_nested_vmap_and_gradients():
    torch = pytest.importorskip("torch")

    def f(v):
        return torch.sin(v).sum()

    def g(x):
        return vmap(f)(x) * 2.0
    base = torch.arange(24.0, dtype=torch.float64)
    for make in (lambda: vmap(vmap(f)), lambda: vmap(g)):
        x = base.clone().requires_grad_(True)
        got = make()(x.reshape(2, 3, 4))
        ref_x = base.clone().requires_grad_(True)
        reference = (loop_vmap(loop_vmap(f)) if make().func is not g else loop_vmap(g))(
            ref_x.reshape(2, 3, 4))
        assert_same_tree(got, reference)
        got.sum().backward()
        reference.sum().backward()
        torch.testing.assert_close(x.grad, ref_x.grad)
    x = base.reshape(2, 3, 4)
    got = vmap(vmap(f, in_axes=1), in_axes=2, out_axes=1)(x)
    assert_same_tree(got, loop_vmap(loop_vmap(f, 1), 2, 1)(x))


def test_torch_list_argument_keeps_autograd():
    torch = pytest.importorskip("torch")
    # was silently wrong: the list was stacked into one array (no gradient, wrong axis)
    a = torch.arange(3.0, requires_grad=True)
    b = torch.arange(3.0, 6.0, requires_grad=True)

    def f(pair):
        return pair[0] * pair[1]
    got = vmap(f)([a, b])
    assert_same_tree(got, a * b)
    got.sum().backward()
    torch.testing.assert_close(a.grad, b.detach())
    torch.testing.assert_close(b.grad, a.detach())


# -------------------------------------------------------------------- pytrees (numpy)


def first_times_second(pair):
    return pair[0] * pair[1]


def test_list_argument_is_a_pytree():
    # was silently wrong: [a, b] was stacked into one (2, n) array mapped along its axis 0
    a, b = RNG.normal(size=3), RNG.normal(size=3)
    got = check(first_times_second, 0, 0, [a, b])
    assert got.shape == (3,)
    check(first_times_second, ([0, 1],), 0, [a, RNG.normal(size=(2, 3))])


def from_dict(d, s):
    return d["a"] * s + d["b"]


def from_point(p):
    return p.x * p.y - p[0]


def test_dict_namedtuple_and_ordereddict_arguments():
    a, b = RNG.normal(size=(4, 2)), RNG.normal(size=4)
    check(from_dict, (0, None), 0, {"a": a, "b": b[:, None]}, 2.0)
    check(from_dict, ({"a": 0, "b": None}, 0), 0, {"a": a, "b": b[:2]}, b)
    check(from_dict, (collections.OrderedDict([("a", 1), ("b", 0)]), None), 0,
          collections.OrderedDict([("a", a.T), ("b", b)]), 3.0)
    check(from_point, 0, 0, Point(a, b[:, None]))
    check(from_point, (Point(1, None),), 0, Point(a.T, b[:2]))


def structured(tree_arg):
    x, (y, z) = tree_arg
    return np.dot(x, np.dot(y, z))


def structured_dict(tree_arg):
    x, dct = tree_arg
    y, z = dct["a"], dct["b"]
    return np.dot(x, np.dot(y, z))


def test_structured_in_axes():
    # JAX's test_vmap_structured_in_axes
    x, y, z = np.ones((6, 2, 3)), RNG.normal(size=(3, 6, 4)), RNG.normal(size=(4, 5, 6))
    assert check(structured, ((0, (1, 2)),), 0, (x, (y, z))).shape == (6, 2, 5)
    assert check(structured, ((0, Point(1, 2)),), 0, (x, Point(y, z))).shape == (6, 2, 5)
    assert check(structured_dict, ((0, {"a": 1, "b": 2}),), 0,
                 (x, {"a": y, "b": z})).shape == (6, 2, 5)
    od = collections.OrderedDict
    assert check(structured_dict, ((0, od([("a", 1), ("b", 2)])),), 0,
                 (x, od([("a", y), ("b", z)]))).shape == (6, 2, 5)


def nested_tuple_result(y):
    return y, (y * 2.0, y + 1.0)


def dict_result(y):
    return {"sum": y + 1.0, "pair": [y, y * y]}


def point_result(y):
    return Point(y, y * 3.0)


def test_pytree_results_and_out_axes_prefixes():
    x = RNG.normal(size=(3, 2))
    # a nested tuple in the return crashed
    check(nested_tuple_result, 0, 0, x)
    check(nested_tuple_result, 0, (1, (0, 1)), x)
    check(nested_tuple_result, 0, (1, 0), x)
    check(dict_result, 0, 0, x)
    check(dict_result, 0, {"sum": 1, "pair": [0, 1]}, x)
    check(point_result, 0, Point(0, 1), x)
    check(point_result, 1, 1, x)


def test_empty_tuples():
    # JAX's testEmptyTuples
    result = vmap(lambda x, _: x + 1)(np.array([0, 1]), ())
    assert_same_tree(result, np.array([1, 2]))
    result, empty = vmap(lambda x: (x + 1, ()))(np.array([0, 1]))
    assert_same_tree(result, np.array([1, 2]))
    assert empty == ()


def with_keyword(x, scale=1.0, *, shift):
    return x * scale + shift


def test_keyword_arguments_are_not_mapped():
    x = RNG.normal(size=(4, 3))
    w = RNG.normal(size=3)
    check(with_keyword, 0, 0, x, shift=w)          # w is not mapped: per example the whole w
    check(with_keyword, 0, 0, x, scale=w, shift=1.0)
    check(with_keyword, (0, None), 0, x, 2.0, shift=w)


def total_of(*xs):
    return sum(xs) * 2.0


def test_star_args():
    a, b, c = RNG.normal(size=(3, 5))
    check(total_of, 0, 0, a, b, c)
    check(total_of, (0, None, 0), 0, a, 1.5, c)


def test_functools_partial():
    a, b = RNG.normal(size=4), RNG.normal(size=4)
    f = functools.partial(scale_add, b=3.0)
    check(f, 0, 0, a)
    g = functools.partial(scale_add, a)            # bound positionally: not mapped
    got = vmap(g)(b)
    assert_same_tree(got, loop_vmap(g)(b))
    assert_same_tree(got, a * 2.0 + b[:, None])


# ------------------------------------------------------------ lambdas where they stand


LAMBDAS = {
    "double": lambda v: v * 2,
    "shift": lambda v: v + 1,
}


def test_lambda_in_a_dict_literal_and_a_for_header():
    x = np.arange(3.0)
    for name, expected in (("double", x * 2), ("shift", x + 1)):
        assert_same_tree(vmap(LAMBDAS[name])(x), expected)
    results = []
    for f in [lambda v: v * 3, lambda v: v - 1]:      # was an internal ParserSyntaxError
        results.append(vmap(f)(x))
    assert_same_tree(results, [x * 3, x - 1])


# ------------------------------------------------------------------ errors (the peers')


def here(info) -> bool:
    """The error is located at the test's own call."""
    return isinstance(info.value, VectorizeError) and info.value.filename == __file__


def test_in_axes_false_and_other_non_int_leaves_raise_typeerror():
    # was accepted: in_axes=False taken as 0
    for bad in (False, True, {"a": 0}, 1.0, (np.array([1.0, 2.0]),), ("0",)):
        with pytest.raises(TypeError, match="in_axes must be an int"):
            vmap(scale_add, in_axes=bad)
    with pytest.raises(TypeError, match="out_axes must be an int"):
        vmap(total, out_axes=(np.array([1.0, 2.0]),))
    with pytest.raises(TypeError, match="out_axes must be an int"):
        vmap(total, out_axes=True)


def test_out_axes_that_do_not_match_the_result_raise():
    x = RNG.normal(size=(3, 2))
    # was accepted: extra entries ignored; or crashed
    for out_axes in ((0, 1), (0, 0), (2, 3)):
        with pytest.raises(ValueError, match="tree prefix") as info:
            vmap(lambda y: y * 2, out_axes=out_axes)(x)
        assert here(info)
    with pytest.raises(ValueError, match="tree prefix"):
        vmap(point_result, out_axes=(0,))(x)         # too few
    with pytest.raises(ValueError, match="tree prefix"):
        vmap(dict_result, out_axes={"sum": 0})(x)    # missing key
    # one entry for one output is taken, as torch.func takes it
    assert_same_tree(vmap(lambda y: y * 2, out_axes=(1,))(x), (x * 2).T)
    with pytest.raises(ValueError, match="out of bounds"):
        vmap(lambda y: y, out_axes=-4)(np.zeros((3, 4, 5)))


def test_mismatched_sizes_point_at_the_call():
    with pytest.raises(ValueError, match="inconsistent sizes") as info:
        vmap(scale_add)(np.zeros(3), np.zeros(4))
    assert here(info) and "[3]" in str(info.value) and "[4]" in str(info.value)
    with pytest.raises(ValueError, match="inconsistent sizes") as info:
        vmap(from_dict, ({"a": 0, "b": 0}, None))({"a": np.zeros(3), "b": np.zeros(2)}, 1.0)
    assert here(info) and "['b']" in str(info.value)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        vmap(total_of)(np.ones(4), np.ones(2), np.ones(2))   # JAX: ..._starargs


def test_in_axes_structure_errors():
    with pytest.raises(ValueError, match="tree prefix") as info:
        vmap(lambda x: x, in_axes=([0],))(np.ones(3))       # JAX's tree_prefix_error
    assert here(info)
    with pytest.raises(ValueError, match="tree prefix"):
        vmap(from_dict, ({"a": 0, "c": 0}, None))({"a": np.zeros(3), "b": np.zeros(3)}, 1.0)
    with pytest.raises(ValueError, match=r"len\(in_axes\)=2, len\(args\)=1"):
        vmap(lambda x: x["a"], in_axes=(0, {"a": 0}))({"a": np.zeros((3, 3))})
    with pytest.raises(ValueError, match="keyword arguments"):
        vmap(scale_add, in_axes=(0, None))(a=np.ones(2), b=np.ones(2))


def test_in_axes_out_of_range_and_unmappable_values():
    with pytest.raises(ValueError, match="rank should be at least 4") as info:
        vmap(total, in_axes=-4)(np.zeros((3, 4, 5)))
    assert here(info)
    with pytest.raises(ValueError, match="rank should be at least 1, but is only 0"):
        vmap(lambda x: x)(1.0)
    with pytest.raises(ValueError, match="only arrays can be mapped"):
        vmap(lambda f, x: x, in_axes=(0, 0))(len, np.ones(3))
    with pytest.raises(ValueError, match="at least one non-None"):
        vmap(lambda x: x, in_axes=None)(np.ones(2))
    with pytest.raises(ValueError, match="at least one argument containing an array"):
        vmap(lambda x: x)({})


def test_messages_say_what_is_wrong():
    # was "rank 0" for a dict argument, and "`sum` raises for batched float64" for *args
    got = vmap(from_dict)({"a": np.ones(3), "b": np.ones(3)}, np.ones(3))
    assert_same_tree(got, np.full(3, 2.0))
    assert_same_tree(vmap(total_of)(np.ones(3), np.ones(3)), np.full(3, 4.0))
    with pytest.raises(VectorizeError, match="key 'c' is not in this dict"):
        vmap(lambda d: d["c"])({"a": np.ones(3)})


def test_unbatched_object_passthrough():
    # JAX's test_vmap_unbatched_object_passthrough_issue_183
    got = vmap(lambda f, x: f(x), (None, 0))(total, np.arange(6.0).reshape(3, 2))
    assert_same_tree(got, np.array([1.0, 5.0, 9.0]))


def largest(*xs):
    return max(xs) - min(xs) + len(xs)


def test_builtins_over_a_tuple_of_per_example_values():
    # sum / len of *args were rewritten as reductions over a per-example axis (sum(args) as
    # np.sum(args, axis=1): shape (2,) for two arguments of 3 lanes); max / min crashed
    a = np.array([1.0, np.nan, -0.0, 3.0])
    b = np.array([0.0, 1.0, 0.0, np.nan])
    check(total_of, 0, 0, a, b)
    check(largest, 0, 0, a, b)
    check(largest, 0, 0, a, b, a * 2)
    assert vmap(total_of)(np.ones(3), np.arange(3.0)).shape == (3,)


def keyed(d, p, n):
    if d["x"] > p.y:
        return {"big": d["x"] * n, "small": Point(p.x, p.y)}
    return {"big": p.y * n, "small": Point(p.x * 2.0, -p.y)}


@pytest.mark.parametrize("size", [0, 1, 5, 4096])
def test_pytrees_at_batch_sizes(size):
    d = {"x": RNG.normal(size=size)}
    p = Point(RNG.normal(size=(3, size)), RNG.normal(size=size))
    f = vmap(keyed, in_axes=(0, Point(1, 0), None), out_axes={"big": 0, "small": Point(0, 0)})
    for n in (2.0, 3.0, 4.0):          # the warm path, again and again
        got = f(d, p, n)
        if size:
            assert_same_tree(got, loop_vmap(keyed, (0, Point(1, 0), None),
                                            {"big": 0, "small": Point(0, 0)})(d, p, n))
        else:
            assert got["big"].shape == (0,) and got["small"].x.shape == (0, 3)


def torch_keyed(d, p, *, scale):
    if d["x"] > p.y:
        return {"big": d["x"] * scale, "small": Point(p.x, p.y)}
    return {"big": p.y * scale, "small": Point(p.x * 2.0, -p.y)}


def test_torch_pytrees_kwargs_and_gradients():
    torch = pytest.importorskip("torch")
    gen = torch.Generator().manual_seed(0)
    base = torch.tensor([-1.5, 2.0, -3.0, 4.0, 0.5, -0.25], dtype=torch.float64)
    px = torch.randn(3, 6, dtype=torch.float64, generator=gen)
    py = torch.full((6,), 0.1, dtype=torch.float64)      # both branches taken
    scale = torch.tensor(2.0, dtype=torch.float64)
    axes = (0, Point(1, 0))
    x = base.clone().requires_grad_(True)
    got = vmap(torch_keyed, axes)({"x": x}, Point(px, py), scale=scale)
    ref_x = base.clone().requires_grad_(True)
    expected = loop_vmap(torch_keyed, axes)({"x": ref_x}, Point(px, py), scale=scale)
    assert_same_tree(got, expected)
    got["big"].sum().backward()
    expected["big"].sum().backward()
    torch.testing.assert_close(x.grad, ref_x.grad)


class Model:
    def __init__(self, w):
        self.w = w

    def _score(self, x):
        return (self.w * x).sum()

    score = vmap(_score, in_axes=(None, 0))     # as in JAX: `self` is not mapped


def test_vmap_of_a_partial_or_bound_method_of_a_vmapped_function():
    w = RNG.normal(size=4)
    m = Model(w)
    x = RNG.normal(size=(3, 5, 4))
    got = vmap(m.score)(x)          # m.score: the vmapped method bound to m
    assert_same_tree(got, loop_vmap(loop_vmap(lambda xi: (w * xi).sum()))(x))
    inner = vmap(scale_add)         # `b=` passed by keyword: not mapped
    got = vmap(functools.partial(inner, b=2.0))(x)
    assert_same_tree(got, loop_vmap(loop_vmap(functools.partial(scale_add, b=2.0)))(x))
