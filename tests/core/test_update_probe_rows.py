"""The update probe's per-head gradients, against plain PyTorch written here: each head's
loss's gradient on the trunk and on its own layers (one autograd.grad a head), weighted
by the micro-batch's share; zeros on the trunk for a detached head; the sum's trunk
gradient from the loss factors; a head without a graph fails the probe."""
from __future__ import annotations

import pytest
import torch

from gradviz.core.update_probe import UpdateCosineProbe
from gradviz.plain.config.config import Config

from core_reference import TIGHT, RefNet, forward, loss_k

CFG = Config(device="cpu", heads=3)


def _grad(loss, params) -> torch.Tensor:
    grads = torch.autograd.grad(loss, params, retain_graph=True, allow_unused=True)
    return torch.cat([(torch.zeros_like(p) if g is None else g).reshape(-1)
                      for p, g in zip(params, grads)])


def _setup(detach=()):
    torch.manual_seed(3)
    net = RefNet(CFG.heads, CFG.trunk_width, CFG.trunk_depth)
    x = torch.randn(16, 8)
    targets = [torch.randn(16, 1) if k % 2 == 0 else torch.randint(0, 3, (16,))
               for k in range(CFG.heads)]
    z, losses = forward(net, x, targets, detach)
    return net, z, losses


@pytest.mark.parametrize("detach", [(), (1,)])
def test_each_heads_gradients_are_plain_pytorchs(detach):
    net, z, losses = _setup(detach)
    trunk = list(net.trunk.parameters())
    heads = [list(h.parameters()) for h in net.heads]
    expected_trunk = torch.stack([_grad(loss, trunk) for loss in losses])
    expected_heads = [_grad(loss, head) for loss, head in zip(losses, heads)]
    probe = UpdateCosineProbe(trunk, heads)
    probe.add_micro_batch(losses, [z], factors=[1.0, 2.0, 0.5], share=0.25)
    assert probe.trunk_rows is not None
    torch.testing.assert_close(probe.trunk_rows, expected_trunk * 0.25, **TIGHT)
    for got, want in zip(probe.head_rows, expected_heads):
        torch.testing.assert_close(got, want * 0.25, **TIGHT)
    if detach:                                             # no way to the trunk: zeros
        assert probe.trunk_rows[1].abs().max() == 0
    summed = torch.tensor([1.0, 2.0, 0.5]) @ expected_trunk
    for p, g in zip(trunk, torch.autograd.grad(sum(w * loss for w, loss in zip(
            [1.0, 2.0, 0.5], losses)), trunk, retain_graph=True)):
        p.grad = g
    numbers = probe.numbers()
    assert numbers is not None
    assert numbers[-1].item() == pytest.approx((summed @ summed).item(), rel=1e-5)


def test_a_head_without_a_graph_fails_the_probe():
    net, z, losses = _setup()
    with torch.no_grad():
        losses[1] = loss_k(1, net.heads[1](z), torch.randint(0, 3, (16,)))
    probe = UpdateCosineProbe(list(net.trunk.parameters()),
                              [list(h.parameters()) for h in net.heads])
    probe.add_micro_batch(losses, [z])
    assert probe.failed and probe.numbers() is None
