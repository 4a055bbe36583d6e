"""``torch.nn.functional`` layers and losses, and ``torch.bmm``.

**Layers over samples** (`SAMPLE_OPS`: ``F.conv2d``, ``F.adaptive_avg_pool2d``,
``F.group_norm``...) take one sample (``C, H, W``) or a batch of them (``N, C, H, W``). A
per-example sample is a batch of samples on the batch: as written. A per-example batch of
samples is one batch of ``len(x) * N`` samples: ``F.conv2d(x.flatten(0, 1), w).unflatten(0,
x.shape[:2])``. A convolution's per-example weights make one grouped convolution
(``groups=len(w)``, each example's channels a group); other layers' weights must be the
same for every example.

**Layers over the last dims** (``F.layer_norm``, ``F.linear``, ``F.one_hot`` with its
``num_classes``) act on each leading index alike: as written, weights shared;
``F.linear`` with per-example weights is an einsum over the batch dim, ``F.layer_norm``
with them the normalization times each example's weight plus its bias.

**Losses** (``F.nll_loss``, ``F.cross_entropy``) of per-example predictions and class
targets: the per-sample losses of the whole batch (``reduction="none"``), reduced per
example as the per-example call reduces them (``"mean"``: over the targets that are not
``ignore_index``).
"""

from __future__ import annotations

import libcst as cst

from ...abstract import TupleValue, Value
from ...errors import Unsupported
from ...rules import contractions
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import commas, expr
from .dims import kwarg, with_args
from .dtypes import torch_module

# name -> the per-example rank of one sample (channels and spatial dims); None: the layer
# always takes a batch of samples (group_norm: N, C, ...)
SAMPLE_OPS = {"conv1d": 2, "conv2d": 3, "conv3d": 4, "avg_pool1d": 2, "avg_pool2d": 3,
              "max_pool1d": 2, "max_pool2d": 3, "adaptive_avg_pool1d": 2,
              "adaptive_avg_pool2d": 3, "adaptive_max_pool1d": 2, "adaptive_max_pool2d": 3,
              "group_norm": None, "instance_norm": None}


def _shared_rest(site: Site, what: str) -> None:
    rest = list(site.args[1:]) + [v for _, v in site.kwargs.values()]
    if any(getattr(v, "batched", False) for v in rest):
        raise Unsupported(f"`{what}` with per-example weights or options",
                          suggestion="share the weights between examples, or pass every "
                                     "example its own through the batch dim of one call")
    if not site.args or not site.args[0].batched:
        raise Unsupported(f"`{what}` of a shared input with per-example options")


_CONV_ARGS = ("input", "weight", "bias", "stride", "padding", "dilation", "groups")


def _per_example_conv(site: Site, name: str, sample_rank: int):
    """``F.conv2d(x, w, b, ...)`` with per-example weights (or bias): one grouped
    convolution, each example's channels a group of its own (``groups=len(w) * groups``),
    its samples side by side in the channels: ``x`` of one sample per example is one sample
    of ``len(x) * C`` channels, a batch of ``N`` samples per example ``N`` such samples."""
    values, nodes = _named_args(site, f"F.{name}", _CONV_ARGS)
    x, w, b = values[:3]
    if any(v is not None and v.batched for v in values[3:]) or not (
            values[6] is None or values[6].exact):
        raise Unsupported(f"`F.{name}` with per-example options")
    if not all(isinstance(v, Value) and v.known for v in (x, w)) or w.rank != sample_rank + 1 \
            or x.rank not in (sample_rank, sample_rank + 1) or (
                b is not None and b.example is not None and b.rank != 1):
        raise Unsupported(f"`F.{name}` with per-example weights of these ranks")
    one = x.rank == sample_rank
    if not (x.batched or w.batched):
        # a per-example bias only: the shared convolution plus each example's bias, given
        # the sample dims (and the samples' dim before its channels)
        kept = [cst.Arg(nodes[0]), cst.Arg(nodes[1])] + [
            cst.Arg(node, keyword=cst.Name(_CONV_ARGS[3 + k]),
                    equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))
            for k, (v, node) in enumerate(zip(values[3:], nodes[3:])) if v is not None]
        call = cst.Call(func=site.node.func, args=commas(kept))
        index = ":" + ("" if one else ", None") + ", :" + ", None" * (sample_rank - 1)
        return expr(f"{{c}} + {{b}}[{index}]", c=call, b=nodes[2])
    options = [(k, node) for k, (v, node) in enumerate(zip(values[3:6], nodes[3:6]))
               if v is not None]
    groups = 1 if values[6] is None else int(values[6].example)
    has_bias = b is not None and b.example is not None

    def grouped(xn, wn, bn, n):
        # (``n``: the number of examples)
        if not x.batched:
            xn = expr("{x}.expand({n}, *{x}.shape)", x=xn, n=n)
        xn = expr("{x}.flatten(0, 1).unsqueeze(0)" if one
                  else "{x}.transpose(0, 1).flatten(1, 2)", x=xn)
        w_arg = expr("{w}.flatten(0, 1)", w=wn) if w.batched else expr(
            "{w}.repeat({n}" + ", 1" * sample_rank + ")", w=wn, n=n)
        args = [cst.Arg(xn), cst.Arg(w_arg)]
        if has_bias:
            args.append(cst.Arg(expr("{b}.flatten()", b=bn) if b.batched
                                else expr("{b}.repeat({n})", b=bn, n=n)))
        for k, node in options:
            args.append(cst.Arg(node, keyword=cst.Name(_CONV_ARGS[3 + k]),
                                equal=cst.AssignEqual(cst.SimpleWhitespace(""),
                                                      cst.SimpleWhitespace(""))))
        args.append(cst.Arg(expr(f"{{n}} * {groups}" if groups != 1 else "{n}", n=n),
                            keyword=cst.Name("groups"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""),
                                                  cst.SimpleWhitespace(""))))
        call = cst.Call(func=site.node.func, args=commas(args))
        if one:
            return expr("{c}[0].unflatten(0, ({n}, -1))", c=call, n=n)
        return expr("{c}.unflatten(1, ({n}, -1)).transpose(0, 1)", c=call, n=n)

    def one_example(node, value):
        # (an empty batch: the convolution of one example of zeros, none of it kept, as
        # `groups=0` is no convolution)
        return expr("{v}.new_zeros(1, *{v}.shape[1:])", v=node) if value.batched else node

    count = nodes[1] if w.batched else nodes[0]
    empty = grouped(one_example(nodes[0], x), one_example(nodes[1], w),
                    one_example(nodes[2], b) if has_bias else None, expr("1"))
    return expr("({c} if len({n}) else {e}[:0])",
                c=grouped(*nodes[:3], expr("len({n})", n=count)), n=count, e=empty)


def _samples(name: str, sample_rank):
    def rewrite(site: Site):
        if name.startswith("conv") and site.args and site.args[0].known and any(
                getattr(v, "batched", False) for v in [*site.args[1:3], *(
                    v for k, (_, v) in site.kwargs.items() if k in ("weight", "bias"))]):
            return _per_example_conv(site, name, sample_rank)
        _shared_rest(site, f"F.{name}")
        rank = site.args[0].rank
        if sample_rank is not None and rank == sample_rank:
            return site.node               # one sample per example: a batch of samples
        if rank < 2:
            raise Unsupported(f"`F.{name}` of per-example tensors of {rank} dims")
        x = site.nodes[0]
        call = with_args(site, [a for a in site.node.args[1:]],
                          base=expr("{x}.flatten(0, 1)", x=x))
        if isinstance(site.result, TupleValue) or (name.startswith("adaptive_max_pool")
                                                   and _returns_indices(site)):
            # (values and indices, `return_indices=True` by keyword or by position)
            raise Unsupported(f"`F.{name}(..., return_indices=True)` of batches of samples")
        return expr("{c}.unflatten(0, {x}.shape[:2])", c=call, x=x)
    return rewrite


def _returns_indices(site: Site) -> bool:
    value = site.kwargs.get("return_indices", (None, None))[1]
    return value is not None and bool(value.example)


def _as_written(what: str, dim_at: int | None = None, default: int | None = None):
    """The call as written on the batch (a function of the last dims). ``dim_at``: the
    position of its ``dim`` argument (``linalg.matrix_norm``, ``F.normalize``), whose dims
    counted from the front are shifted past the batch dim; ``default``: the dim where none
    is given (``F.normalize``'s 1), written out shifted."""
    def rewrite(site: Site):
        _shared_rest(site, what)
        if dim_at is None:
            return site.node
        args = list(site.node.args)
        at = next((i for i, a in enumerate(args) if a.keyword is not None
                   and a.keyword.value == "dim"), dim_at if len(args) > dim_at and
                  args[dim_at].keyword is None and args[dim_at].star == "" else None)
        if at is None and default is not None:
            rest = list(args[1:]) + [kwarg("dim", default + 1 if default >= 0 else default)]
            return with_args(site, rest)
        if at is None:
            return site.node
        value = site.kwargs["dim"][1] if args[at].keyword is not None else site.args[at]
        if not value.exact:
            raise Unsupported(f"the dims of {what} must be constants written in the function")
        dims = value.example if isinstance(value.example, (tuple, list)) else (value.example,)
        if all(int(d) < 0 for d in dims):
            return site.node
        shifted = tuple(int(d) + 1 if int(d) >= 0 else int(d) for d in dims)
        args[at] = args[at].with_changes(value=expr(repr(shifted)))
        return site.node.with_changes(args=args)
    return rewrite


def _named_args(site: Site, what: str, names: tuple):
    """The values and nodes of a call's arguments in the order of ``names``, given by
    position or keyword (None where not given)."""
    values, nodes = [None] * len(names), [None] * len(names)
    for i, (arg, value) in enumerate(zip(site.node.args, site.args)):
        if arg.keyword is not None or arg.star or i >= len(names):
            break
        values[i], nodes[i] = value, site.nodes[i]
    for k, (node, value) in site.kwargs.items():
        if k not in names or values[names.index(k)] is not None:
            raise Unsupported(f"`{what}` with the argument `{k}`")
        values[names.index(k)], nodes[names.index(k)] = value, node
    return values, nodes


def _layer_norm(site: Site):
    """``F.layer_norm(x, shape, w, b, eps)``: with a shared weight and bias as written; with
    per-example ones the normalization without them, then times the weight plus the bias,
    each given the input's dims between the batch dim and the normalized ones."""
    names = ("input", "normalized_shape", "weight", "bias", "eps")
    values, nodes = _named_args(site, "F.layer_norm", names)
    x, shape, w, b, eps = values
    affine = [v for v in (w, b) if v is not None and v.example is not None]
    if x is None or shape is None or not any(v.batched for v in affine):
        return _as_written("F.layer_norm")(site)
    if any(v is not None and v.batched for v in (shape, eps)) or not shape.exact:
        raise Unsupported("`F.layer_norm` with per-example options")
    k = len(shape.example) if isinstance(shape.example, (tuple, list)) else 1
    if not all(isinstance(v, Value) and v.known and v.rank == k for v in affine) or \
            x.rank < k:
        raise Unsupported("`F.layer_norm` with per-example weights of these ranks")
    rest = [nodes[1]] + ([kwarg("eps", eps.example)] if eps is not None and eps.exact
                         else [])
    if eps is not None and not eps.exact:
        raise Unsupported("`F.layer_norm` with per-example weights and a computed `eps`")
    out = with_args(site, [cst.Arg(value=n) for n in rest[:1]] + rest[1:], base=nodes[0])
    lead = "".join(", None" for _ in range(x.rank - k))
    for v, node, op in ((w, nodes[2], "*"), (b, nodes[3], "+")):
        if v is None or v.example is None:
            continue
        term = expr(f"{{v}}[:{lead}]", v=node) if v.batched and lead else node
        out = expr(f"{{o}} {op} {{v}}", o=out, v=term)
    return out


def _linear(site: Site):
    """``F.linear(x, w, b)``: with shared weights as written; with per-example weights (or
    bias) the product of each example's input with its own weight matrix, an einsum over
    the batch dim (``x`` of any per-example rank >= 1, shared or per-example)."""
    values, nodes = _named_args(site, "F.linear", ("input", "weight", "bias"))
    x, w, b = values
    if x is None or w is None or not (w.batched or getattr(b, "batched", False)):
        return _as_written("F.linear")(site)
    if not all(isinstance(v, Value) and v.known for v in values if v is not None) or \
            x.rank < 1 or w.rank != 2 or (b is not None and b.example is not None
                                          and b.rank != 1):
        raise Unsupported("`F.linear` with per-example weights of these ranks")
    spec = ("b..." if x.batched else "...") + ("i,boi" if w.batched else "i,oi") + (
        "->b...o" if x.batched or w.batched else "->...o")
    product = expr("torch.einsum(" + repr(spec) + ", {x}, {w})", x=nodes[0], w=nodes[1])
    if b is None or b.example is None:
        return product
    if not b.batched or x.rank == 1:
        return expr("{p} + {b}", p=product, b=nodes[2])
    lead = "".join(", None" for _ in range(x.rank - 1))
    return expr(f"{{p}} + {{b}}[:{lead}]", p=product, b=nodes[2])


def _one_hot(site: Site):
    _shared_rest(site, "F.one_hot")
    return site.node


def _one_hot_infer(per_example):
    def infer(site: Site):
        classes = site.args[1] if len(site.args) > 1 else site.kwargs.get(
            "num_classes", (None, None))[1]
        if classes is None or not classes.exact or classes.example < 0:
            raise Unsupported("`F.one_hot` without `num_classes`: the number of classes "
                              "would be each example's largest index plus one",
                              suggestion="pass num_classes=")
        return per_example(site)
    return infer


def _reduction(site: Site) -> str:
    value = site.kwargs.get("reduction", (None, None))[1]
    if value is None:
        return "mean"
    if not value.exact or value.example not in ("mean", "sum", "none"):
        raise Unsupported("a loss whose `reduction` is not a constant 'mean', 'sum' or "
                          "'none'")
    return value.example


def _loss(name: str):
    def rewrite(site: Site):
        if len(site.args) < 2:
            raise Unsupported(f"`F.{name}` with its target by keyword",
                              suggestion="pass the input and target by position")
        (x, t), (xv, tv) = site.nodes[:2], site.args[:2]
        rest = list(site.args[2:]) + [v for k, (_, v) in site.kwargs.items()]
        if any(getattr(v, "batched", False) for v in rest):
            raise Unsupported(f"`F.{name}` with per-example weights or options")
        if not isinstance(tv, Value) or tv.kind not in "iu":
            raise Unsupported(f"`F.{name}` with class probabilities as the target",
                              suggestion="pass class indices")
        for option in ("weight", "label_smoothing", "size_average", "reduce"):
            if option in site.kwargs and site.kwargs[option][1].example not in (None, 0.0):
                raise Unsupported(f"`F.{name}` with `{option}` on per-example inputs")
        if len(site.args) > 2:
            raise Unsupported(f"`F.{name}` with options given by position",
                              suggestion="pass them by keyword")
        reduction = _reduction(site)
        ignore = site.kwargs.get("ignore_index", (None, None))[1]
        ignore = -100 if ignore is None else ignore.example
        if not xv.batched:
            x = expr("{x}.expand(len({t}), *{x}.shape)", x=x, t=t)
        if not tv.batched:
            t = expr("{t}.expand(len({x}), *{t}.shape)", t=t, x=x)
        kept = [a for a in site.node.args[2:]
                if a.keyword is not None and a.keyword.value != "reduction"]
        rank = xv.rank
        if rank == 1:        # one sample per example: the batch is a batch of samples
            losses = with_args(site, [site.node.args[1].with_changes(value=t)] + kept
                                + [kwarg("reduction", "none")], base=x)
            if reduction == "mean":
                return expr(f"{{l}} / ({{t}} != {ignore})", l=losses, t=t)
            return losses
        losses = with_args(site, [site.node.args[1].with_changes(
            value=expr("{t}.flatten(0, 1)", t=t))] + kept + [kwarg("reduction", "none")],
            base=expr("{x}.flatten(0, 1)", x=x))
        losses = expr("{l}.unflatten(0, {t}.shape[:2])", l=losses, t=t)
        if reduction == "none":
            return losses
        dims = tuple(range(1, tv.rank + 1))
        total = expr(f"{{l}}.sum(dim={dims!r})", l=losses)
        if reduction == "sum":
            return total
        return expr(f"{{s}} / ({{t}} != {ignore}).sum(dim={dims!r})", s=total, t=t)
    return rewrite


# functions of the last dims that take any leading (batch) dims: as written on the batch
TRAILING = ("det", "logdet", "slogdet", "inverse", "view_as_real", "view_as_complex")
LINALG_TRAILING = ("det", "slogdet", "inv", "cholesky", "eigvalsh", "svdvals", "pinv", "eigh",
                   "svd", "qr", "eig", "eigvals",
                   "matrix_exp", "matrix_norm", "inv_ex", "cholesky_ex")


def _invertible(fn):
    """``fn`` computed on the examples, where they are singular matrices (the analysis'
    examples are ones) on identity matrices of the same shape instead: what a function of
    matrices gives (dtype, shape) does not depend on their values."""
    def computed(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception:
            torch = torch_module()
            eyes = [torch.eye(a.shape[-1], dtype=a.dtype).expand(a.shape).clone()
                    if isinstance(a, torch.Tensor) and a.ndim >= 2
                    and a.shape[-1] == a.shape[-2] else a for a in args]
            return fn(*eyes, **kwargs)
    computed.__name__ = getattr(fn, "__name__", "function")
    return computed


def _result_type(site: Site):
    """``torch.result_type(x, y)``: a dtype the same for every example, written as the
    constant the examples give (on the batch, a per-example 0-d tensor has dims and would
    weigh more in the promotion)."""
    return expr(f"torch.{str(site.result.example).rpartition('.')[2]}")


def _result_type_infer(site: Site):
    from ...abstract import exact
    from . import examples
    torch = torch_module()
    values = [examples.to_tensor(v.example) for v in site.args]
    return exact(torch.result_type(*values))


def register(reg: Registry) -> None:
    from .common import per_example, shadow
    torch = torch_module()
    F = torch.nn.functional

    def add(fn, rule_name, explanation, before, after, rewrite, infer=None, label=None):
        if fn is None:
            return
        reg.add_call(fn, Rule(rule_name, "torch.nn", explanation, before, after, rewrite,
                              infer=infer or per_example(fn, label), shadow=shadow(fn)))

    samples = ("Layers over samples (`F.conv2d`, `F.adaptive_avg_pool2d`, `F.group_norm`...) "
               "with shared weights: one sample per example is a batch of samples, as "
               "written; a batch of samples per example is one batch of `len(x) * N` samples. "
               "A convolution with per-example weights is one grouped convolution, each "
               "example's channels a group of its own (`groups=len(w)`).",
               "y = F.conv2d(images, w)",
               "y = F.conv2d(images.flatten(0, 1), w).unflatten(0, images.shape[:2])")
    for name, rank in SAMPLE_OPS.items():
        for owner in (F, torch):
            fn = getattr(owner, name, None)
            if fn is not None and reg.for_call(fn) is None:
                add(fn, "torch.nn.samples", *samples, _samples(name, rank),
                    label=f"`F.{name}`")
    trailing = ("`F.normalize`, `F.embedding` with shared weights act on the "
                "last dims, each leading index alike: as written (`F.normalize`'s dim, 1 by "
                "default, counted past the batch dim).",
                "y = F.normalize(x, dim=-1)", "y = F.normalize(x, dim=-1)")
    add(F.layer_norm, "torch.nn.layer_norm",
        "`F.layer_norm` with a shared weight and bias, as written; with per-example ones the "
        "normalization without them, times each example's weight plus its bias (given the "
        "input's leading dims).", "y = F.layer_norm(x, (3,), w, b)",
        "y = F.layer_norm(x, (3,)) * w[:, None] + b[:, None]", _layer_norm,
        label="`F.layer_norm`")
    for name in ("normalize",):
        # (`F.normalize(x, p, dim)`: its dim, 1 by default, counted past the batch dim)
        add(getattr(F, name, None), "torch.nn.trailing", *trailing,
            _as_written(f"F.{name}", *((2, 1) if name == "normalize" else ())),
            label=f"`F.{name}`")
    add(F.linear, "torch.nn.linear",
        "`F.linear(x, w, b)` with shared weights acts on the last dim, as written; with "
        "per-example weights (and bias) each example's input times its own matrix: an "
        "einsum over the batch dim.", "y = F.linear(x, w, b)",
        "y = torch.einsum('b...i,boi->b...o', x, w) + b[:, None]", _linear,
        label="`F.linear`")
    add(F.one_hot, "torch.nn.one_hot", "`F.one_hot(k, n)` of per-example class indices, "
        "with its number of classes: as written (without it, refused: it would be each "
        "example's largest index plus one).", "h = F.one_hot(k, 4)", "h = F.one_hot(k, 4)",
        _one_hot, infer=_one_hot_infer(per_example(F.one_hot, "`F.one_hot`")))
    for name in ("nll_loss", "cross_entropy"):
        add(getattr(F, name), "torch.nn.loss",
            "`F.nll_loss` / `F.cross_entropy` of per-example predictions and class indices: "
            "the losses of every sample of the batch (`reduction='none'`), reduced per "
            "example ('mean' over the targets that are not `ignore_index`).",
            "loss = F.cross_entropy(logits, target)",
            "loss = F.cross_entropy(logits.flatten(0, 1), target.flatten(0, 1), "
            "reduction='none').unflatten(0, target.shape[:2]).sum(dim=(1,)) / "
            "(target != -100).sum(dim=(1,))", _loss(name), label=f"`F.{name}`")
    trailing_dims = ("Functions of the last dims that take leading batch dims "
                     "(`torch.linalg.det`, `torch.linalg.inv`, `torch.view_as_real`...): as "
                     "written.", "d = torch.linalg.det(m)", "d = torch.linalg.det(m)")
    for owner, names in ((torch, TRAILING), (torch.linalg, LINALG_TRAILING)):
        for name in names:
            fn = getattr(owner, name, None)
            if fn is not None and reg.for_call(fn) is None:
                safe = _invertible(fn)
                reg.add_call(fn, Rule("torch.trailing_dims", "torch.nn", *trailing_dims,
                                      _as_written(f"`{name}`", 2 if name == "matrix_norm"
                                                  else None),
                                      infer=per_example(safe, f"`{name}`"),
                                      shadow=shadow(safe)))
    reg.add_call(torch.result_type, Rule(
        "torch.result_type", "torch", "`torch.result_type(x, y)` is the same for every "
        "example: the dtype the examples give, as a constant.", "t = torch.result_type(x, y)",
        "t = torch.float32", _result_type, infer=_result_type_infer,
        shadow=shadow(torch.result_type)))
    for key, add_to in ((torch.bmm, reg.add_call), ("bmm", reg.add_method)):
        add_to(key, Rule("linalg.matmul", "linear algebra",
                         "`torch.bmm` of per-example batches of matrices: one einsum (a "
                         "matrix product where it is one).", "y = torch.bmm(a, b)",
                         'y = torch.einsum("bnij,njk->bnik", a, b)', contractions.matrix_product,
                         infer=per_example(key), shadow=shadow(key)))
