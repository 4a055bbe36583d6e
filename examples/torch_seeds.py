"""The PyTorch programs this project was started from, as written, with `vectorize.vmap`
in place of `torch.vmap` / `functorch.vmap` (summarized in docs/torch.md).

1. A blog post: `func` has a data-dependent `if`, which `torch.vmap` refuses; its author
   rewrote it by hand with `torch.where` (`func_2`) and had to `torch.expand_copy` the shared
   `b` to the batch size. Here `func` runs as written, with `b` expanded and with
   `in_axes=(0, None)`, and the gradient of `b_extend` is the blog's
   `[0, 0, 0, 0, 0, 6, 7, 8]`.
2. The `torch.vmap` tutorial: `vmap(torch.dot)`, a model with `.relu()` over a closed-over
   `weights` tensor, and a Jacobian from `vmap(get_vjp)` where `get_vjp` calls
   `torch.autograd.grad` (one call with `is_grads_batched=True`).
3. Per-sample gradients, which the tutorial's prototype could not do: docs/torch.md.

Run: `python examples/torch_seeds.py`.
"""

import torch

from vectorize import vmap


# ------------------------------------------------------------------- 1. the blog post
def func(t, b):
    tmp = t * b
    if tmp > 5:     # torch.vmap: "data-dependent control flow"
        root = t * b
    else:
        root = -t
    return root


def func_2(t, b):
    return torch.where((t > 5.), t * b, -t)


def blog():
    t = torch.tensor([1., 2., 3., 4., 5., 6., 7., 8.])
    b = torch.tensor([1.], requires_grad=True)
    b_extend = torch.expand_copy(b, size=t.shape)   # the blog had to; `in_axes` need not
    b_extend.retain_grad()
    func_vec = vmap(func)                           # [N], [N] -> [N]
    ans = func_vec(t, b_extend)
    ans.sum().backward()
    print("func(t, b_extend) =", ans)
    print("b_extend.grad     =", b_extend.grad)       # [0, 0, 0, 0, 0, 6, 7, 8]
    print(func_vec.source(t, b_extend))

    b0 = torch.tensor(1., requires_grad=True)       # shared, not expanded
    ans_shared = vmap(func, in_axes=(0, None))(t, b0)
    ans_shared.sum().backward()
    print("in_axes=(0, None):", ans_shared, "b.grad =", b0.grad)   # 6 + 7 + 8
    ans_2 = vmap(func_2)(t, b_extend)
    return ans, b_extend.grad, ans_shared, b0.grad, ans_2


# -------------------------------------------------------------- 2. the vmap tutorial
batch_size, feature_size = 3, 5
weights = torch.randn(feature_size, requires_grad=True)


def model(feature_vec):
    # Very simple linear model with activation
    return feature_vec.dot(weights).relu()


N = 5


def f(x):
    return x ** 2


x = torch.randn(N, requires_grad=True)
y = f(x)
basis_vectors = torch.eye(N)


def get_vjp(v):
    return torch.autograd.grad(y, x, v)[0]


def tutorial():
    batched_dot = vmap(torch.dot)                   # [N, D], [N, D] -> [N]
    a, b = torch.randn(2, 5), torch.randn(2, 5)
    dots = batched_dot(a, b)
    print("vmap(torch.dot):", dots)

    examples = torch.randn(batch_size, feature_size)
    result = vmap(model)(examples)
    expected = torch.stack([model(example) for example in examples.unbind()])
    assert torch.allclose(result, expected)
    print(vmap(model).source(examples))

    # Sequential approach
    jacobian_rows = [torch.autograd.grad(y, x, v, retain_graph=True)[0]
                     for v in basis_vectors.unbind()]
    jacobian = torch.stack(jacobian_rows)
    # one call of autograd.grad for the whole Jacobian
    jacobian_vmap = vmap(get_vjp)(basis_vectors)
    assert torch.allclose(jacobian_vmap, jacobian)
    print(vmap(get_vjp).source(basis_vectors))
    return (a, b, dots), (examples, result, expected), (jacobian_vmap, jacobian)


if __name__ == "__main__":
    blog()
    tutorial()
