"""Per-sample gradients with `vectorize.vmap` (docs/torch.md, "Per-sample gradients").

The recipe: give every example its own copy of the weights (`w.detach().expand(N, ...)
.clone().requires_grad_()`, or `torch.expand_copy` as the blog post does with `b`), map the
per-example loss over the samples *and* the copies, and call `.sum().backward()` once: the
sum's gradient with respect to copy n is example n's gradient, since no other example reads
copy n. Row n of `w_batch.grad` is then what `torch.autograd.grad(loss(sample_n, w), w)`
gives, for all examples in one backward pass.

Run: `python examples/torch_per_sample_grads.py`.
"""

import torch

from vectorize import vmap


# ---------------------------------------------- the tutorial's model: a dot product
def model(sample, weight):
    return torch.dot(sample, weight)


def per_sample_grads(loss, batch, params):
    """Gradients of ``loss(*example, *params)`` for each example of ``batch`` (a tuple of
    tensors with the examples along axis 0): one tensor per parameter, batch axis first."""
    n = len(batch[0])
    copies = [p.detach().expand(n, *p.shape).clone().requires_grad_() for p in params]
    vmap(loss)(*batch, *copies).sum().backward()
    return [c.grad for c in copies]


# ------------------------------------------------ a small MLP with a Huber loss (an `if`)
def mlp_loss(x, target, w1, b1, w2):
    hidden = torch.tanh(w1 @ x + b1)
    error = w2.dot(hidden) - target
    if abs(error) < 1.0:          # Huber: quadratic near 0, linear beyond
        loss = 0.5 * error ** 2
    else:
        loss = abs(error) - 0.5
    return loss


def main():
    torch.manual_seed(0)
    batch_of_samples = torch.randn(64, 5)
    weight = torch.randn(5, requires_grad=True)
    (grads,) = per_sample_grads(model, (batch_of_samples,), [weight])
    loop = torch.stack([torch.autograd.grad(model(s, weight), weight)[0]
                        for s in batch_of_samples])
    assert torch.allclose(grads, loop)
    print("dot model: per-sample gradients", tuple(grads.shape), "match the loop")

    d, h, n = 4, 8, 32
    w1, b1, w2 = torch.randn(h, d), torch.randn(h), torch.randn(h)
    xs, targets = torch.randn(n, d), torch.randn(n) * 3
    params = [p.requires_grad_() for p in (w1, b1, w2)]
    grads = per_sample_grads(mlp_loss, (xs, targets), params)
    for k in range(n):
        want = torch.autograd.grad(mlp_loss(xs[k], targets[k], *params), params)
        for g, w in zip(grads, want):
            assert torch.allclose(g[k], w, atol=1e-6)
    print("MLP with a Huber loss: per-sample gradients", [tuple(g.shape) for g in grads],
          "match the loop")
    print(vmap(mlp_loss).source(xs, targets, *(g.detach() for g in grads)))


if __name__ == "__main__":
    main()
