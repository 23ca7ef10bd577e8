"""Gradient accumulation (with and without 1/N scaling) and zero_grad off, checked
against full-batch backward and a plain SGD loop written out in the test."""
import pytest
import torch

from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import (
    TIGHT,
    assert_grads,
    batch,
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


@pytest.mark.parametrize("strategy", ["sum", "separate"])
@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("scale", [True, False])
def test_accumulated_gradient_is_the_full_batch_gradient(n, scale, strategy):
    cfg = BASE.replace(accumulate=n, scale=scale, strategy=strategy)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error

    net = ref_net(cfg, init)
    x, targets = batch(s, 0, cfg.batch_size)             # the same 64 examples, at once
    z, losses = forward(net, x, targets)
    full = grads_of(net, weighted_sum(weights(cfg), losses))
    factor = 1.0 if scale else float(n)
    assert_grads(s, {name: factor * g for name, g in full.items()})
    for k, loss in enumerate(losses):  # the record shows the full-batch loss either way
        assert record.losses[f"head{k}"] == pytest.approx(loss.item(), rel=1e-5)
    rows = junction_grads(z, losses)
    for k in range(cfg.heads):
        assert record.junction_grad_norms[f"head{k}"] == pytest.approx(
            factor * norm(rows[k]), rel=1e-5)
    assert len(record.backward_calls) == n * (1 if strategy == "sum" else cfg.heads)
    assert [c.micro_batch for c in record.backward_calls][::len(record.backward_calls) // n] \
        == list(range(n))


def test_accumulation_lowers_the_saved_tensor_peak():
    peaks = {}
    for n in (1, 4):
        record = Session(BASE.replace(accumulate=n)).step()
        peaks[n] = record.saved_bytes_peak
    assert 0 < peaks[4] < peaks[1]


def _sgd_reference(cfg, s, init, steps, zero_grad):
    """A plain loop: (zero_grad), forward, total.backward(), p -= lr * p.grad."""
    net = ref_net(cfg, init)
    for step in range(steps):
        if zero_grad:
            net.zero_grad(set_to_none=True)
        x, targets = batch(s, step, cfg.batch_size)
        _, losses = forward(net, x, targets)
        weighted_sum(weights(cfg), losses).backward()
        with torch.no_grad():
            for p in net.parameters():
                p -= cfg.lr * p.grad
    return net


@pytest.mark.parametrize("zero_grad", [False, True])
def test_zero_grad_off_keeps_a_running_sum_of_gradients(zero_grad):
    cfg = BASE.replace(zero_grad=zero_grad, lr=0.1)
    s = Session(cfg)
    init = snapshot(s)
    for _ in range(2):
        assert s.step() is not None, s.error

    # g0 and g1 on their own, each at the weights the plain loop had at that step
    net = ref_net(cfg, init)
    x0, t0 = batch(s, 0, cfg.batch_size)
    g0 = grads_of(net, weighted_sum(weights(cfg), forward(net, x0, t0)[1]))
    moved = _sgd_reference(cfg, s, init, 1, zero_grad)
    x1, t1 = batch(s, 1, cfg.batch_size)
    g1 = grads_of(moved, weighted_sum(weights(cfg), forward(moved, x1, t1)[1]))
    expected = {n: g1[n] + (0 if zero_grad else g0[n]) for n in g0}
    assert_grads(s, expected)

    ref = _sgd_reference(cfg, s, init, 2, zero_grad)
    for name, p in ref.named_parameters():
        torch.testing.assert_close(s.model.state_dict()[name], p.detach(), **TIGHT,
                                   msg=lambda m, name=name: f"{name}: {m}")
    for name, g in session_grads(s).items():  # the loop's own .grad agrees too
        torch.testing.assert_close(g, dict(ref.named_parameters())[name].grad, **TIGHT)


def test_a_failed_step_with_zero_grad_off_puts_the_gradients_back():
    """The session promises that a step which raised leaves the gradients as they were;
    with zero_grad off they are the running sum that the next step builds on, so the
    failed step's partial backward must not stay in them."""
    cfg = BASE.replace(strategy="separate", zero_grad=False)
    s = Session(cfg)
    assert s.step() is not None
    before = session_grads(s)
    s.set_config(cfg.replace(retain_graph="never"))
    assert s.step() is None and s.error is not None    # head1's backward raised
    assert s.step_index == 1
    for name, g in session_grads(s).items():
        diff = (g - before[name]).abs().max().item()
        assert diff == 0, f"{name} changed by {diff:.3g} in the step that failed"


def test_a_toggle_mid_step_with_zero_grad_off_leaves_a_clean_running_sum():
    """Whatever a toggle mid-step does to the step in progress (finish it or drop it),
    the gradients after the next finished step are g0 + g1, nothing counted twice."""
    cfg = BASE.replace(strategy="separate", zero_grad=False)
    s = Session(cfg)
    init = snapshot(s)
    assert s.step() is not None
    while s.advance_phase().name != "backward":   # step 1: forward, head0's backward
        pass
    s.set_config(cfg.replace(lr=0.01))
    record = s.step()
    assert record is not None and record.step == 1, s.error

    net = ref_net(cfg, init)
    x0, t0 = batch(s, 0, cfg.batch_size)
    g0 = grads_of(net, weighted_sum(weights(cfg), forward(net, x0, t0)[1]))
    moved = _sgd_reference(cfg, s, init, 1, zero_grad=False)
    x1, t1 = batch(s, 1, cfg.batch_size)
    g1 = grads_of(moved, weighted_sum(weights(cfg), forward(moved, x1, t1)[1]))
    assert_grads(s, {n: g0[n] + g1[n] for n in g0})
