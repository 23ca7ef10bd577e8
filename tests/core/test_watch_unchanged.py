"""gradviz.watch never changes the user's computation: losses, gradients and parameters
bit-equal to the same loop without it, however the loop calls backward."""
from __future__ import annotations

import pytest
import torch
from watch_loops import train

import gradviz


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("mode", ["sum", "separate", "accumulate"])
def test_watched_loop_is_bit_equal(tmp_path, mode, optimizer):
    torch.manual_seed(123)
    bare_model, bare = train(mode, optimizer, steps=4)
    rng_after_bare = torch.get_rng_state()
    torch.manual_seed(123)
    # every=1: the costly probes (autograd.grad at the features, the graph) every step
    model, seen = train(mode, optimizer, steps=4,
                        make_watch=lambda m: gradviz.watch(m, out=tmp_path, every=1))
    assert torch.equal(torch.get_rng_state(), rng_after_bare)   # no extra draws
    for (losses_a, grads_a), (losses_b, grads_b) in zip(bare, seen, strict=True):
        for la, lb in zip(losses_a, losses_b, strict=True):
            assert all(torch.equal(la[k], lb[k]) for k in la)
        assert grads_a["spare.weight"] is None   # the loop's own fact, kept
        for name, g in grads_a.items():
            assert (g is None) == (grads_b[name] is None), name
            assert g is None or torch.equal(g, grads_b[name]), name
    for (name, p), q in zip(bare_model.named_parameters(), model.parameters(), strict=True):
        assert torch.equal(p, q), name


def _hook_counts(model) -> list[int]:
    """Hooks on the model's modules and on its parameters' AccumulateGrad nodes."""
    counts = [len(m._forward_hooks) + len(m._forward_pre_hooks) + len(m._backward_hooks)
              for m in model.modules()]
    counts += [len(p._backward_hooks or {}) for p in model.parameters()]
    return counts


def test_watch_leaves_no_hooks_and_no_graph(tmp_path):
    seen = {}

    def make(model):
        seen["before"] = _hook_counts(model)
        seen["model"] = model
        return gradviz.watch(model, out=tmp_path, every=1)

    train("separate", "sgd", steps=3, make_watch=make)
    assert _hook_counts(seen["model"]) == seen["before"]
