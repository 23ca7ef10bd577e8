"""The device side of a watched step: each loss's gradient at the features (their Gram
matrix, summed over a step's losses() calls) and the batched gradient norms, gathered so
that one host transfer per step brings everything back."""
from __future__ import annotations

from collections.abc import Sequence

import torch


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
                  dtype: torch.dtype) -> torch.Tensor:
    """G[k, l] = <dL_k/dF, dL_l/dF>, F all the features flattened into one vector.

    torch.autograd.grad with retain_graph=True, before the user's backward: it walks
    only from each loss down to the features, writes no .grad, registers no hook and
    frees nothing, so the user's backward afterwards computes exactly what it would
    have. (A hook on the features would see only the gradient of what the user
    differentiates, the sum, not each loss's own.) A loss that does not reach the
    features pushes a zero vector.
    """
    rows = []
    for loss in losses:
        if not loss.requires_grad:
            rows.append(torch.zeros(sum(f.numel() for f in features), dtype=dtype,
                                    device=features[0].device))
            continue
        grads = torch.autograd.grad(loss, features, retain_graph=True, allow_unused=True)
        flat = [(torch.zeros_like(f) if g is None else g).reshape(-1)
                for g, f in zip(grads, features)]
        rows.append(flat[0] if len(flat) == 1 else torch.cat(flat))
    # converted once, after stacking: the same numbers as row by row (a wider float
    # holds a narrower one exactly; mixed rows are promoted, exactly, by the stack)
    matrix = torch.stack(rows).to(dtype)
    return matrix @ matrix.T


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


def gram_numbers(gram: list[float], k: int) -> tuple[list[float], list[list[float]]]:
    """(each loss's push |dL_k/dF|, the cosine matrix) from the Gram matrix's k*k numbers
    (a cosine with a zero push is NaN: no direction; written as null)."""
    norms = [max(gram[i * k + i], 0.0) ** 0.5 for i in range(k)]
    cosine = [[gram[i * k + j] / (norms[i] * norms[j]) if norms[i] and norms[j]
               else float("nan") for j in range(k)] for i in range(k)]
    return norms, cosine
