"""The device side of a watched step: each loss's gradient at the features (their Gram
matrix, summed over a step's losses() calls) and the batched gradient norms, gathered so
that one host transfer per step brings everything back."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import torch

_item, _floating = torch.Tensor.item, torch.Tensor.is_floating_point


def number_dtype(device: torch.device) -> torch.dtype:
    """The dtype numbers are gathered in: float64, except where the device has none."""
    return torch.float32 if device.type == "mps" else torch.float64


def feature_list(features: torch.Tensor | dict | None) -> list[torch.Tensor]:
    """The features as a list of tensors that carry a gradient (others push nothing)."""
    if features is None:
        return []
    if isinstance(features, torch.Tensor):
        items = [features]
    elif isinstance(features, dict) and all(isinstance(v, torch.Tensor)
                                            for v in features.values()):
        items = list(features.values())
    else:
        raise TypeError("gradviz.watch: features must be a tensor, a dict of named "
                        f"tensors or None, not {type(features).__name__}")
    return [f for f in items if f.requires_grad]


def junction_gram(losses: Sequence[torch.Tensor], features: list[torch.Tensor],
                  dtype: torch.dtype) -> torch.Tensor | None:
    """G[k, l] = <dL_k/dF, dL_l/dF>, F all the features flattened into one vector; None
    where no loss reaches the features.

    torch.autograd.grad with retain_graph=True, before the user's backward: it walks
    only from each loss down to the features, frees nothing and accumulates into no
    parameter, so the user's backward afterwards computes exactly what it would have.
    (A hook on the features would see only the gradient of what the user
    differentiates, the sum, not each loss's own.) A loss that does not reach the
    features pushes a zero vector. The features' own hooks and retained .grad are set
    aside during the walk (features_set_aside): the user's hooks on them run, and their
    .grad fills, only in the user's backward, as unwatched.
    """
    rows, reached = [], False
    with features_set_aside(features):
        for loss in losses:
            grads = (torch.autograd.grad(loss, features, retain_graph=True,
                                         allow_unused=True)
                     if loss.requires_grad else [None] * len(features))
            reached = reached or any(g is not None for g in grads)
            flat = [(torch.zeros_like(f) if g is None else g).reshape(-1)
                    for g, f in zip(grads, features)]
            rows.append(flat[0] if len(flat) == 1 else torch.cat(flat))
    if not reached:
        return None
    # converted once, after stacking: the same numbers as row by row (a wider float
    # holds a narrower one exactly; mixed rows are promoted, exactly, by the stack)
    matrix = torch.stack(rows).to(dtype)
    return matrix @ matrix.T


@contextlib.contextmanager
def features_set_aside(features: list[torch.Tensor]) -> Iterator[None]:
    """The features' tensor hooks emptied, and their .grad kept, for the walk: a tensor's
    hooks (register_hook) live in its _backward_hooks dict, which autograd reads when it
    runs them, and retain_grad's hook adds into .grad, which is put back afterwards.
    Hooks on tensors inside the heads (between the features and a loss) cannot be
    reached from here and still run during the walk (docs/watch.md says so)."""
    kept = []
    for f in features:
        hooks = f._backward_hooks
        kept.append((f, dict(hooks) if hooks else None, f.grad if f.retains_grad else None))
        if hooks:
            hooks.clear()
    try:
        yield
    finally:
        for f, hooks, grad in kept:
            if hooks and f._backward_hooks is not None:
                f._backward_hooks.update(hooks)
            if f.retains_grad:
                f.grad = grad


def gathered(scalars: list[torch.Tensor], gram: torch.Tensor | None,
             device: torch.device, tail: torch.Tensor | None = None) -> torch.Tensor:
    """The step's 0-dim numbers (and the Gram matrix, where sampled, then tail, a 1-D
    tensor such as the gradients' fingerprint) in one tensor, so one host transfer
    brings them all. The usual case, all of one device and dtype and nothing after
    them, is one stack: values keep their own dtype (a float32 read as a Python float
    is exact)."""
    if gram is None and tail is None:
        try:   # one stack (mixed float dtypes are promoted); a value elsewhere raises
            return torch.stack(scalars)
        except RuntimeError:
            pass
    dtype = number_dtype(device)
    try:   # one stack, then one conversion (exact: float32 and float16 fit in float64)
        flat = torch.stack(scalars).to(device, dtype)
    except RuntimeError:   # values on different devices: each moved first
        flat = torch.stack([s.to(device, dtype) for s in scalars])
    after = [t.to(device, dtype).reshape(-1) for t in (gram, tail) if t is not None]
    return torch.cat([flat, *after]) if after else flat


def read_numbers(scalars: list[torch.Tensor], gram: torch.Tensor | None,
                 device: torch.device, tail: torch.Tensor | None = None) -> list[float]:
    """gathered()'s numbers read back as Python floats, in its order. On the CPU, where
    every scalar is a floating one there, each is read by .item() and the Gram matrix
    and the tail by one tolist() each, without the stack and its conversion: the same
    floats (float32, bfloat16 and float16 widen to a Python float exactly), and no
    transfer to save. Anywhere else (or an integer among them, which the stack makes a
    float): the one transfer."""
    if device.type == "cpu" and all([s.is_cpu and _floating(s) for s in scalars]) and \
            all(t is None or t.is_cpu for t in (gram, tail)):
        numbers = [*map(_item, scalars)]
        for t in (gram, tail):
            if t is not None:
                numbers += t.reshape(-1).tolist()
        return numbers
    return gathered(scalars, gram, device, tail).tolist()


def gram_numbers(gram: list[float], k: int) -> tuple[list[float], list[list[float]]]:
    """(each loss's push |dL_k/dF|, the cosine matrix) from the Gram matrix's k*k numbers
    (a cosine with a zero push is NaN: no direction; written as null)."""
    norms = [max(gram[i * k + i], 0.0) ** 0.5 for i in range(k)]
    cosine = [[gram[i * k + j] / (norms[i] * norms[j]) if norms[i] and norms[j]
               else float("nan") for j in range(k)] for i in range(k)]
    return norms, cosine
