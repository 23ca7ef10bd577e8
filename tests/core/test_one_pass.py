"""One pass vs K passes: backward-list and autograd-grad against the same loops written
in plain PyTorch here, and the trunk walks the engine reports against a count taken by
a hook of this file's own on the reference trunk."""
import pytest
import torch
from torch.nn import functional as F

from gradviz.core.compare import compare
from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import (
    TIGHT,
    assert_grads,
    batch,
    forward,
    grads_of,
    ref_net,
    session_grads,
    snapshot,
    weighted_sum,
    weights,
)

BASE = Config(device="cpu", heads=3, trunk_width=16, batch_size=32, steps=4,
              probes="default", sample_every=1)
SECOND_BACKWARD = "backward through the graph a second time"


def _net_and_losses(cfg, session, init, detach=()):
    net = ref_net(cfg, init)
    x, targets = batch(session, 0, cfg.batch_size)
    _, losses = forward(net, x, targets, detach=detach)
    return net, losses


def _params(net):
    return dict(net.named_parameters())


@pytest.mark.parametrize("loss_weights", [(), (0.5, 2.0, 1.0)])
def test_backward_list_is_one_autograd_backward_of_every_term(loss_weights):
    cfg = BASE.replace(strategy="backward-list", loss_weights=loss_weights)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error
    net, losses = _net_and_losses(cfg, s, init)
    terms = [w * L for w, L in zip(weights(cfg), losses)]
    torch.autograd.backward(terms)
    expected = {n: p.grad.clone() for n, p in _params(net).items()}
    assert_grads(s, expected)
    assert [(c.loss, c.retain_graph) for c in record.backward_calls] == \
        [("all terms at once", False)]


@pytest.mark.parametrize("loss_weights", [(), (0.25, 1.5, 3.0)])
def test_autograd_grad_sums_each_terms_gradient_by_hand(loss_weights):
    cfg = BASE.replace(strategy="autograd-grad", loss_weights=loss_weights)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error
    net, losses = _net_and_losses(cfg, s, init)
    params = list(net.parameters())
    terms = [w * L for w, L in zip(weights(cfg), losses)]
    total = [torch.zeros_like(p) for p in params]
    for k, t in enumerate(terms):
        grads = torch.autograd.grad(t, params, retain_graph=k < len(terms) - 1,
                                    allow_unused=True)
        total = [a if g is None else a + g for a, g in zip(total, grads)]
    expected = dict(zip(_params(net), total))
    assert_grads(s, expected)
    # and that is the sum's gradient, as a plain total.backward() gives it
    net2, losses2 = _net_and_losses(cfg, s, init)
    assert_grads(s, grads_of(net2, weighted_sum(weights(cfg), losses2)))
    assert [(c.loss, c.retain_graph) for c in record.backward_calls] == \
        [("head0", True), ("head1", True), ("head2", False)]


def test_autograd_grad_leaves_grad_alone_until_the_loop_assigns_it():
    s = Session(BASE.replace(strategy="autograd-grad"))
    seen = []
    while True:
        phase = s.advance_phase()
        if phase.name == "backward":
            seen.append(all(p.grad is None for p in s.params))
        if phase.step_done:
            break
    # .grad stays None through backward 1 and 2; the third call's phase assigns it
    assert seen == [True, True, False]


def test_autograd_grad_without_retain_raises_the_second_backward_error():
    s = Session(BASE.replace(strategy="autograd-grad", retain_graph="never"))
    assert s.step() is None
    assert SECOND_BACKWARD in s.error.message and s.error.call.startswith("backward 2 of 3")
    # backward-list makes one call: nothing to retain for
    assert Session(BASE.replace(strategy="backward-list", retain_graph="never")).step()


def _reference_walks(cfg, session, init, detach=()):
    """Trunk passes of cfg's strategy in plain PyTorch, counted by a pre-hook on the
    reference trunk's first node (every pass into the trunk runs it once)."""
    net = ref_net(cfg, init)
    x, targets = batch(session, 0, cfg.batch_size)
    passes = [0]

    def seen(_):
        passes[0] += 1

    first = net.trunk[0](x)
    first.grad_fn.register_prehook(seen)
    z = net.trunk[1:](first)
    losses = []
    for k, head in enumerate(net.heads):
        out = head(z.detach() if k in detach else z)
        losses.append(F.mse_loss(out, targets[k]) if k % 2 == 0
                      else F.cross_entropy(out, targets[k]))
    params = list(net.parameters())
    if cfg.strategy == "sum":
        sum(losses).backward()
    elif cfg.strategy == "backward-list":
        torch.autograd.backward(losses)
    elif cfg.strategy == "separate":
        for L in losses:
            L.backward(retain_graph=True)
    elif cfg.strategy == "autograd-grad":
        for L in losses:
            torch.autograd.grad(L, params, retain_graph=True, allow_unused=True)
    else:   # in-loop
        running = None
        for L in losses:
            running = L if running is None else running + L
            running.backward(retain_graph=True)
    return passes[0]


@pytest.mark.parametrize("detach", [(), (1,)])
@pytest.mark.parametrize("strategy", ["sum", "separate", "in-loop", "backward-list",
                                      "autograd-grad"])
def test_trunk_walks_are_the_passes_plain_pytorch_makes(strategy, detach):
    cfg = BASE.replace(strategy=strategy, detach=detach)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error
    expected = _reference_walks(cfg, s, init, detach)
    assert record.trunk_walks == expected
    # in-loop: every running total holds L0, which reaches the trunk
    assert expected == {"sum": 1, "backward-list": 1, "in-loop": 3}.get(strategy,
                                                                    3 - len(detach))
    assert record.backward_seconds is not None and record.backward_seconds > 0


def test_trunk_walks_count_every_micro_batch():
    record = Session(BASE.replace(strategy="separate", accumulate=2)).step()
    assert record.trunk_walks == 2 * 3
    record = Session(BASE.replace(model="rnn", strategy="backward-list", accumulate=2)).step()
    assert record.trunk_walks == 2


def test_compare_calls_both_the_sums_gradient():
    for strategy in ("backward-list", "autograd-grad"):
        result = compare(BASE, BASE.replace(strategy=strategy), steps=3)
        assert result.same, (strategy, result.verdict())


def test_the_report_and_metrics_carry_the_walks_and_the_time(tmp_path):
    import csv
    import json

    from gradviz.app import main
    out = tmp_path / "out"
    assert main(["run", "--device", "cpu", "--steps", "3", "--batch-size", "16",
                 "--strategy", "autograd-grad", "--out", str(out), "--quiet"]) == 0
    steps = json.loads((out / "report.json").read_text())["steps"]
    assert [s["trunk_walks"] for s in steps] == [3, 3, 3]
    assert all(s["backward_seconds"] > 0 for s in steps)
    rows = list(csv.DictReader((out / "metrics.csv").open()))
    assert [int(r["trunk_walks"]) for r in rows] == [3, 3, 3]
    assert all(float(r["backward_seconds"]) > 0 for r in rows)


def test_separate_and_backward_list_agree_with_each_other():
    grads = {}
    for strategy in ("separate", "backward-list"):
        s = Session(BASE.replace(strategy=strategy))
        assert s.step() is not None
        grads[strategy] = session_grads(s)
    for name in grads["separate"]:
        torch.testing.assert_close(grads["backward-list"][name], grads["separate"][name],
                                   **TIGHT)


def test_autograd_grad_is_separates_gradient_bit_for_bit_and_the_sums_up_to_rounding():
    """What lesson 12 says of it: each head's trunk gradient is added after its own walk,
    as separate's .grad adds them; the sum adds at z and walks the trunk once."""
    cfg = BASE.replace(strategy="autograd-grad", trunk_width=32, batch_size=64)
    s = Session(cfg)
    init = snapshot(s)
    assert s.step() is not None, s.error
    got = session_grads(s)
    net, losses = _net_and_losses(cfg, s, init)
    for k, loss in enumerate(losses):   # separate: one backward per loss into .grad
        loss.backward(retain_graph=k < len(losses) - 1)
    separate = {n: p.grad.clone() for n, p in _params(net).items()}
    net2, losses2 = _net_and_losses(cfg, s, init)
    summed = grads_of(net2, weighted_sum(weights(cfg), losses2))
    assert all(torch.equal(got[n], separate[n]) for n in got)
    trunk = [n for n in got if n.startswith("trunk.")]
    assert not all(torch.equal(got[n], summed[n]) for n in trunk)
    largest = max(summed[n].abs().max().item() for n in trunk)
    difference = max((got[n] - summed[n]).abs().max().item() for n in trunk)
    assert 0 < difference / largest < 1e-6


def _counted_net(cfg, session, init):
    """(the reference net's z, its losses, the trunk passes counted so far): a pre-hook
    on the first trunk node, as _reference_walks counts them."""
    net = ref_net(cfg, init)
    x, targets = batch(session, 0, cfg.batch_size)
    passes = [0]
    first = net.trunk[0](x)
    first.grad_fn.register_prehook(lambda _: passes.__setitem__(0, passes[0] + 1))
    z = net.trunk[1:](first)
    losses = [F.mse_loss(head(z), targets[k]) if k % 2 == 0
              else F.cross_entropy(head(z), targets[k]) for k, head in enumerate(net.heads)]
    return net, z, losses, passes


def test_trunk_walks_leave_out_the_update_cosine_probes_own_walks():
    """What the status bar's tooltip says: the probe walks the trunk once per head on a
    sampled step, and those walks are not in the count."""
    cfg = BASE.replace(probes="all")
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None and record.update_cosine is not None   # the probe ran
    net, _, losses, passes = _counted_net(cfg, s, init)
    trunk = list(net.trunk.parameters())
    for loss in losses:   # the probe's walks: each head's gradient on the trunk
        torch.autograd.grad(loss, trunk, retain_graph=True)
    assert passes[0] == 3
    sum(losses).backward()
    assert passes[0] == 3 + 1 and record.trunk_walks == 1   # the strategy's walk alone


@pytest.mark.parametrize("chunk, walks", [(1, 3), (None, 1)])
def test_upgrad_walks_the_trunk_once_per_head_because_rows_go_one_at_a_time(chunk, walks):
    """torchjd's mtl_backward takes the trunk's Jacobian one row (one walk) per head at
    parallel_chunk_size=1, as gradviz runs it; batched by vmap it is one walk."""
    from torchjd.autojac import mtl_backward
    cfg = BASE.replace(strategy="upgrad")
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error
    net, z, losses, passes = _counted_net(cfg, s, init)
    mtl_backward(losses, features=z, tasks_params=[list(h.parameters()) for h in net.heads],
                 shared_params=list(net.trunk.parameters()), parallel_chunk_size=chunk)
    assert passes[0] == walks
    assert record.trunk_walks == 3
