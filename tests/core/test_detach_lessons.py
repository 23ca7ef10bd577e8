"""detach() and detach_() at the junction: what reaches the trunk, what each head still
learns, and the in-place error, checked against plain PyTorch."""
import math

import pytest
import torch

from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import (
    assert_grads,
    batch,
    cosines,
    forward,
    grads_of,
    junction_grads,
    norm,
    ref_net,
    session_grads,
    snapshot,
    weighted_sum,
    weights,
)

BASE = Config(device="cpu", heads=3, batch_size=64, probes="default", sample_every=1)
DETACHED_IN_PLACE = "detached in-place"


@pytest.mark.parametrize("k", [0, 1, 2])
@pytest.mark.parametrize("strategy,loss_weights", [("sum", ()), ("separate", (0.5, 2.0, 1.0))])
def test_detached_head_sends_nothing_into_the_trunk(k, strategy, loss_weights):
    cfg = BASE.replace(detach=(k,), detach_mode="detach", strategy=strategy,
                       loss_weights=loss_weights)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error

    # reference without any detach: the lesson is that the trunk sees only the others
    net = ref_net(cfg, init)
    x, targets = batch(s, 0, cfg.batch_size)
    z, losses = forward(net, x, targets)
    ws = weights(cfg)
    terms = [w * loss for w, loss in zip(ws, losses)]
    others = grads_of(net, weighted_sum([0.0 if j == k else w for j, w in enumerate(ws)],
                                        losses))
    full = grads_of(net, weighted_sum(ws, losses))
    trunk = [n for n in full if n.startswith("trunk.")]
    heads = [n for n in full if n.startswith("heads.")]
    assert_grads(s, others, names=trunk)
    assert_grads(s, full, names=heads)       # head k still learns from its own loss
    own = [n for n in heads if n.startswith(f"heads.{k}.")]
    assert all(session_grads(s)[n].abs().sum() > 0 for n in own)

    rows = junction_grads(z, terms)
    assert record.junction_grad_norms[f"head{k}"] == 0.0
    for j in range(cfg.heads):
        if j != k:
            assert record.junction_grad_norms[f"head{j}"] == pytest.approx(norm(rows[j]),
                                                                           rel=1e-5)
    rows[k] = torch.zeros_like(rows[k])
    expected = cosines(rows)
    for i in range(cfg.heads):
        for j in range(cfg.heads):
            got, want = record.cosine[i][j], expected[i][j]
            if math.isnan(want):
                assert math.isnan(got), (i, j, got)
            else:
                assert got == pytest.approx(want, abs=1e-5), (i, j)


def test_detach_in_place_after_a_head_used_z_raises_the_saved_tensor_error():
    cfg = BASE.replace(detach=(1,), detach_mode="detach_")
    s = Session(cfg)
    init = snapshot(s)
    assert s.step() is None
    err = s.error
    assert err.type == "RuntimeError"
    assert DETACHED_IN_PLACE in err.message
    assert err.phase == "backward"
    assert err.explanation and err.title
    assert s.step_index == 0
    assert all(p.grad is None for p in s.params)

    # plain PyTorch raises the same error for the same code
    net = ref_net(cfg, init)
    x, targets = batch(s, 0, cfg.batch_size)
    _, losses = forward(net, x, targets, detach=(1,), mode="detach_")
    with pytest.raises(RuntimeError, match=DETACHED_IN_PLACE):
        weighted_sum(weights(cfg), losses).backward()


def test_detach_in_place_on_head_0_cuts_the_trunk_off_every_head():
    cfg = BASE.replace(detach=(0,), detach_mode="detach_")
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error
    for name, p in zip(s.param_names, s.params):
        if name.startswith("trunk."):
            assert p.grad is None or not p.grad.any(), name
    # the heads learn as usual (their gradients do not depend on where z came from)
    net = ref_net(cfg, init)
    x, targets = batch(s, 0, cfg.batch_size)
    _, losses = forward(net, x, targets)
    full = grads_of(net, weighted_sum(weights(cfg), losses))
    assert_grads(s, full, names=[n for n in full if n.startswith("heads.")])
    assert all(v == 0.0 for v in record.junction_grad_norms.values())
    assert all(math.isnan(c) for row in record.cosine for c in row)
    # and the trunk's weights did not move
    for name, value in s.model.state_dict().items():
        if name.startswith("trunk."):
            assert torch.equal(value, init[name]), name
