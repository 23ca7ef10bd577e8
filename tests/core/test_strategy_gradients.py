"""Strategies sum / separate / in-loop and retain_graph: the gradients each one really
computes, checked against plain backward calls written out in the test."""
import pytest
import torch

from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import (
    TIGHT,
    assert_grads,
    batch,
    forward,
    global_norm,
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
SECOND_BACKWARD = "backward through the graph a second time"


def _reference(cfg, session, init, step=0):
    net = ref_net(cfg, init)
    x, targets = batch(session, step, cfg.batch_size)
    z, losses = forward(net, x, targets)
    return net, z, losses


@pytest.mark.parametrize("loss_weights", [(), (0.5, 2.0, 1.0)])
@pytest.mark.parametrize("strategy,retain", [
    ("sum", "auto"), ("sum", "never"), ("separate", "auto"), ("separate", "always")])
def test_sum_and_separate_give_the_reference_sum_gradient(strategy, retain, loss_weights):
    cfg = BASE.replace(strategy=strategy, retain_graph=retain, loss_weights=loss_weights)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error

    net, z, losses = _reference(cfg, s, init)
    ws = weights(cfg)
    total = weighted_sum(ws, losses)
    expected = grads_of(net, total)
    assert_grads(s, expected)

    for k, loss in enumerate(losses):
        assert record.losses[f"head{k}"] == pytest.approx(loss.item(), rel=1e-6)
    assert record.total == pytest.approx(total.item(), rel=1e-6)
    assert set(record.grad_norms) == set(expected)
    for name, g in expected.items():
        assert record.grad_norms[name] == pytest.approx(norm(g), rel=1e-5, abs=1e-7), name
    assert record.global_grad_norm == pytest.approx(global_norm(expected), rel=1e-5)
    calls = [(c.loss, c.retain_graph) for c in record.backward_calls]
    if strategy == "sum":
        assert calls == [("total", retain == "always")]
    else:
        assert calls == [("head0", True), ("head1", True), ("head2", retain == "always")]


def test_sum_and_separate_agree_with_each_other():
    grads = {}
    for strategy in ("sum", "separate"):
        s = Session(BASE.replace(strategy=strategy))
        assert s.step() is not None
        grads[strategy] = session_grads(s)
    for name in grads["sum"]:
        torch.testing.assert_close(grads["separate"][name], grads["sum"][name], **TIGHT)


def test_separate_with_retain_never_raises_the_real_second_backward_error():
    cfg = BASE.replace(strategy="separate", retain_graph="never")
    s = Session(cfg)
    init = snapshot(s)
    assert s.step() is None
    err = s.error
    assert err is not None and err in s.events
    assert err.type == "RuntimeError"
    assert SECOND_BACKWARD in err.message
    assert err.phase == "backward"
    assert "2 of 3" in err.call
    assert err.explanation and err.title and err.hint
    assert err.step == 0
    # the failed step did not count, moved no weight and left no gradient behind
    assert s.step_index == 0
    for name, value in s.model.state_dict().items():
        assert torch.equal(value, init[name]), name
    assert all(p.grad is None for p in s.params)

    # plain PyTorch agrees: the second backward through the shared trunk raises
    net, z, losses = _reference(cfg, s, init)
    losses[0].backward()
    with pytest.raises(RuntimeError, match=SECOND_BACKWARD):
        losses[1].backward()

    # the toggle fixes it, and the step then computes the reference gradient
    s.set_config(cfg.replace(retain_graph="auto"))
    assert s.error is None
    record = s.step()
    assert record is not None and record.step == 0
    assert s.step_index == 1
    net, z, losses = _reference(cfg, s, init)
    assert_grads(s, grads_of(net, weighted_sum(weights(cfg), losses)))


@pytest.mark.parametrize("retain", ["always", "auto"])
@pytest.mark.parametrize("loss_weights", [(), (0.5, 2.0, 1.0)])
def test_in_loop_counts_head_k_K_minus_k_times(retain, loss_weights):
    cfg = BASE.replace(strategy="in-loop", retain_graph=retain, loss_weights=loss_weights)
    K = cfg.heads
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error

    net, z, losses = _reference(cfg, s, init)
    ws = weights(cfg)
    summed = grads_of(net, weighted_sum(ws, losses))          # the sum strategy's gradient
    counted = [(K - k) * ws[k] for k in range(K)]
    overcounted = grads_of(net, weighted_sum(counted, losses))  # sum_k (K-k) w_k L_k
    got = session_grads(s)
    for name, g in got.items():
        if name.startswith("heads."):
            k = int(name.split(".")[1])
            torch.testing.assert_close(g, (K - k) * summed[name], **TIGHT,
                                       msg=lambda m, name=name: f"{name}: {m}")
        else:
            torch.testing.assert_close(g, overcounted[name], **TIGHT,
                                       msg=lambda m, name=name: f"{name}: {m}")
    # head 0's parameters really got more than the sum strategy gives them
    assert not torch.allclose(got["heads.0.0.weight"], summed["heads.0.0.weight"])

    # the junction gradient of head k counts every backward that ran through it
    rows = junction_grads(z, [w * loss for w, loss in zip(ws, losses)])
    for k in range(K):
        assert record.junction_grad_norms[f"head{k}"] == pytest.approx(
            (K - k) * norm(rows[k]), rel=1e-5)
    expected_retain = [True] * K if retain == "always" else [True] * (K - 1) + [False]
    assert [c.retain_graph for c in record.backward_calls] == expected_retain
    assert [c.loss for c in record.backward_calls] == [f"total after head{k}" for k in range(K)]


def test_in_loop_with_retain_never_raises_the_second_backward_error():
    s = Session(BASE.replace(strategy="in-loop", retain_graph="never"))
    assert s.step() is None
    assert s.error.type == "RuntimeError"
    assert SECOND_BACKWARD in s.error.message
    assert s.error.phase == "backward"
    assert "2 of 3" in s.error.call
    assert s.step_index == 0
