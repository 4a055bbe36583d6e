"""The examples of the rules only PyTorch has, for ``docs/rules.md``: each runs on tensors of
the page's arguments (float64, int64) and is checked by ``tests/test_rules_doc.py`` as every
other rule's example is. `TorchBackend.rule_examples` hands them to `vectorize.rules.examples`,
each as the fields of its `Example` (source, args, in_axes, imports, backend)."""

from __future__ import annotations

VMAP1 = (0,)
# rules whose results are random (run, not compared with a loop), and rules that refuse
RANDOM: set[str] = set()
REFUSED: set[str] = set()


def _torch(body: str, args: str, in_axes=VMAP1, imports: str = "torch") -> dict:
    return dict(source=body.strip("\n") + "\n", args=args, in_axes=in_axes, imports=imports,
                backend="torch")


# the rules only the torch backend has: their examples run on tensors
TORCH_EXAMPLES: dict[str, dict] = {
    "array.device": _torch('''
def f(x):
    return x * 2 if x.device.type == "cpu" else x
''', "X"),
    "torch.activation": _torch('''
def f(x):
    return F.gelu(x)
''', "X", imports="torch, torch.nn.functional as F"),
    "torch.clamp": _torch('''
def f(x, lo):
    return x.clamp(min=lo)
''', "X, Y", (0, 0)),
    "torch.cross": _torch('''
def f(u, m):
    return torch.cross(u, m[0])
''', "V, M", (0, 0)),
    "torch.conversion": _torch('''
def f(x):
    return x.long()
''', "X"),
    "torch.dim": _torch('''
def f(v):
    return v.dim() + v[0]
''', "V"),
    "torch.elementwise": _torch('''
def f(x):
    return torch.sin(x) + x.relu()
''', "X"),
    "torch.flatten": _torch('''
def f(m):
    return m.flatten()
''', "M"),
    "torch.identity_method": _torch('''
def f(x):
    return x.clone() * 2
''', "X"),
    "torch.item": _torch('''
def f(x):
    return x.item() + 1.0
''', "X"),
    "torch.like": _torch('''
def f(v):
    return torch.zeros_like(v) + v
''', "V"),
    "torch.max": _torch('''
def f(v):
    return v.max()
''', "V"),
    "torch.min": _torch('''
def f(v):
    return v.min()
''', "V"),
    "torch.numel": _torch('''
def f(m):
    return m.sum() / m.numel()
''', "M"),
    "torch.permute": _torch('''
def f(m):
    return m.permute(1, 0)
''', "M"),
    "torch.reduction": _torch('''
def f(m):
    return torch.sum(m) + m.mean(dim=0)
''', "M"),
    "torch.reshape": _torch('''
def f(m):
    return m.reshape(9)
''', "M"),
    "torch.size": _torch('''
def f(m):
    return m.sum() / m.size(0)
''', "M"),
    "torch.squeeze": _torch('''
def f(v):
    c = v.unsqueeze(1)
    return c.squeeze(1)
''', "V"),
    "torch.transpose": _torch('''
def f(m):
    return m.transpose(0, 1)
''', "M"),
    "torch.unsqueeze": _torch('''
def f(v):
    return v.unsqueeze(1)
''', "V"),
    "torch.where": _torch('''
def f(t, b):
    return torch.where(t > 1.0, t * b, -t)
''', "X, Y", (0, 0)),
    "torch.autograd.grad": _torch('''
def f(v, x):
    y = x ** 3
    return torch.autograd.grad(y, x, v)[0]
''', "X, X0", (0, None)),
    "torch.dims": _torch('''
def f(m):
    return torch.argmax(m)
''', "M"),
    "torch.shaped_like": _torch('''
def f(m, v):
    return v.expand_as(m) * m
''', "M, V", (0, 0)),
    "torch.expand": _torch('''
def f(v):
    return v.expand(2, 3)
''', "V"),
    "torch.repeat": _torch('''
def f(m):
    return m.repeat(2, 1)
''', "M"),
    "torch.t": _torch('''
def f(m):
    return m.t()
''', "M"),
    "torch.take": _torch('''
def f(m, k):
    return torch.take(m, k % 9)
''', "M, K", (0, 0)),
    "torch.tile": _torch('''
def f(v):
    return torch.tile(v, (2, 1))
''', "V"),
    "torch.repeat_interleave": _torch('''
def f(v):
    return torch.repeat_interleave(v, 2)
''', "V"),
    "torch.diff": _torch('''
def f(v, w):
    return torch.diff(v, prepend=w)
''', "V, w", (0, None)),
    "torch.searchsorted": _torch('''
def f(x, w):
    return torch.searchsorted(torch.sort(w)[0], x)
''', "X, w", (0, None)),
    "torch.bucketize": _torch('''
def f(x, w):
    return torch.bucketize(x, torch.sort(w)[0], right=True)
''', "X, w", (0, None)),
    "torch.trace": _torch('''
def f(m):
    return torch.trace(m)
''', "M"),
    "torch.join": _torch('''
def f(v, w):
    return torch.cat([v, w])
''', "V, w", (0, None)),
    "torch.last_dims_attribute": _torch('''
def f(m):
    return m.mT
''', "M"),
    "torch.new_tensor": _torch('''
def f(v):
    return v + v.new_ones(3)
''', "V"),
    "torch.dtype_query": _torch('''
def f(x):
    return x * x.is_floating_point()
''', "X"),
    "torch.nn.samples": _torch('''
def f(m):
    return F.avg_pool1d(m, 2)
''', "M", imports="torch, torch.nn.functional as F"),
    "torch.nn.trailing": _torch('''
def f(v):
    return F.normalize(v, dim=-1)
''', "V", imports="torch, torch.nn.functional as F"),
    "torch.aten_backward": _torch('''
def f(v, w):
    return torch.ops.aten.silu_backward(v, w)
''', "V, W", (0, 0)),
    "torch.nn.layer_norm": _torch('''
def f(v, w, b):
    return F.layer_norm(v, (3,), w, b)
''', "V, W, V", (0, 0, 0), imports="torch, torch.nn.functional as F"),
    "torch.nn.linear": _torch('''
def f(v, m, w):
    return F.linear(v, m, w)
''', "V, M, W", (0, 0, 0), imports="torch, torch.nn.functional as F"),
    "torch.nn.one_hot": _torch('''
def f(k):
    return F.one_hot(k, 4)
''', "N % 4", imports="torch, torch.nn.functional as F"),
    "torch.nn.loss": _torch('''
def f(m, v):
    return F.cross_entropy(m, (v > 0).long())
''', "M, V", (0, 0), imports="torch, torch.nn.functional as F"),
    "torch.trailing_dims": _torch('''
def f(m):
    return torch.linalg.det(m)
''', "M"),
    "torch.result_type": _torch('''
def f(k, x):
    return k.to(torch.result_type(k, x)) / 2
''', "K, X", (0, 0)),
    "torch.full_of_per_example": _torch('''
def f(x):
    return torch.full((3,), x) * 2
''', "X"),
    "torch.convert_like": _torch('''
def f(k, x):
    return k.to(x) / 2
''', "K, X", (0, 0)),
    "torch.in_place": _torch('''
def f(x, b):
    y = x * 2
    y.add_(b)
    return y
''', "X, Y", (0, 0)),
    "torch.nn.module_call": _torch('''
def f(v, layer=torch.nn.Softmax(dim=-1)):
    return layer(v)
''', "V"),
    "torch.func.functional_call": _torch('''
def f(v, params, layer=torch.nn.Softmax(dim=-1)):
    return torch.func.functional_call(layer, params, (v,))
''', "V, {}", (0, None)),
}
TORCH_EXAMPLES["torch.func.grad"] = _torch('''
def dot_loss(v, w):
    return torch.dot(v, w) ** 2


def f(v, w):
    return torch.func.grad(dot_loss)(v, w)
''', "V, w", (0, None))
REFUSED.add("torch.func.transform")
TORCH_EXAMPLES["torch.func.transform"] = _torch('''
def f(v, x):
    loss = torch.sum if x > 0 else torch.prod
    return torch.func.grad(loss)(v)
''', "V, X", (0, 0))
RANDOM.add("torch.random.per_example")
TORCH_EXAMPLES["torch.random.per_example"] = _torch('''
def f(x):
    return x + torch.randn(())
''', "X")
TORCH_EXAMPLES["torch.random.no_rule"] = _torch('''
def f(x):
    return F.dropout(x, 0.5, training=False) * 2.0
''', "X", imports="torch, torch.nn.functional as F")
REFUSED.add("torch.numpy_random")
TORCH_EXAMPLES["torch.numpy_random"] = _torch('''
def f(x):
    return x + np.random.normal(0.0, 1.0)
''', "X")
# of constants (`x + torch.tensor(1.5)`) it is never rewritten: it shows only as a refusal
REFUSED.add("torch.constant_tensor")
TORCH_EXAMPLES["torch.constant_tensor"] = _torch('''
def f(x):
    return torch.tensor([x, 1.0]).sum()
''', "X")
