"""The Session's one-condition rules: which steps run the costly probes (the sampling
rule), and when a settings change made mid-step takes effect (at the step boundary, or
at once when it needs a fresh model). Expected numbers come from plain PyTorch here."""
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
    reachable_nodes,
    ref_net,
    snapshot,
    weighted_sum,
    weights,
)

BASE = Config(device="cpu", heads=3, batch_size=32, probes="default", sample_every=1)


def _sgd_step(net, cfg, x, targets):
    """One plain step of the loop gradviz runs (sum strategy, SGD): the junction
    gradient norm of each weighted loss before the update."""
    z, losses = forward(net, x, targets)
    terms = [w * loss for w, loss in zip(weights(cfg), losses)]
    junction = [norm(g) for g in junction_grads(z, terms)]
    opt = torch.optim.SGD(net.parameters(), lr=cfg.lr)
    opt.zero_grad(set_to_none=True)
    weighted_sum(weights(cfg), losses).backward()
    opt.step()
    return junction


# ---- the sampling rule: step % every == 0, or probes = "all" -------------------------
def test_probes_all_measures_every_step_whatever_sample_every_says():
    """probes = "all" is every probe on every step: sample_every (and the app's raised
    floor at full speed) must not thin it out."""
    cfg = BASE.replace(probes="all", sample_every=3)
    s = Session(cfg)
    s.sample_floor = 20          # what the app sets while training flat out
    net = ref_net(cfg, snapshot(s))
    for step in range(4):
        x, targets = batch(s, step, cfg.batch_size)
        expected = _sgd_step(net, cfg, x, targets)
        record = s.step()
        assert record is not None, s.error
        assert record.junction_grad_norms is not None, f"step {step} was not measured"
        got = [record.junction_grad_norms[f"head{k}"] for k in range(cfg.heads)]
        assert got == pytest.approx(expected, rel=1e-4), f"step {step}"
        assert record.cosine is not None and record.saved_bytes is not None


@pytest.mark.parametrize("changes, floor, measured", [
    ({"sample_every": 3}, 1, [True, False, False, True, False, False]),
    ({"sample_every": 1}, 2, [True, False, True, False, True, False]),   # the app's floor
    ({"sample_every": 2}, 3, [True, False, False, True, False, False]),  # the larger wins
    ({"probes": "none", "sample_every": 1}, 1, [False] * 6),             # nothing probed
])
def test_other_probe_levels_measure_only_the_sampled_steps(changes, floor, measured):
    s = Session(BASE.replace(**changes))
    s.sample_floor = floor
    seen = []
    for _ in range(6):
        record = s.step()
        assert record is not None, s.error
        seen.append(record.junction_grad_norms is not None)
        assert (record.saved_bytes is not None) == seen[-1]   # the walk goes with them
    assert seen == measured


def test_keep_graphs_counts_every_steps_graph_though_junctions_are_sampled():
    """Keep graphs banks each step's graph, so its size is counted every step even
    where the junction probe is skipped."""
    cfg = BASE.replace(sample_every=3, keep_graphs=True)
    s = Session(cfg)
    net = ref_net(cfg, snapshot(s))
    opt = torch.optim.SGD(net.parameters(), lr=cfg.lr)
    running, expected = None, []
    for step in range(4):    # plain PyTorch: `running_loss += total` keeps every graph
        x, targets = batch(s, step, cfg.batch_size)
        losses = forward(net, x, targets)[1]
        total = losses[0] + losses[1] + losses[2]    # weights all 1: added as they are
        opt.zero_grad(set_to_none=True)
        total.backward()
        opt.step()
        running = total if running is None else running + total
        expected.append(reachable_nodes([running.grad_fn]))
    records = [s.step() for _ in range(4)]
    assert [r.junction_grad_norms is not None for r in records] == [True, False, False, True]
    assert [r.graph_nodes for r in records] == expected


# ---- a change made mid-step ------------------------------------------------------------
def _rest_of_step(s):
    names = []
    while True:
        phase = s.advance_phase()
        assert phase.event is None, phase.event
        names.append(phase.name)
        if phase.step_done:
            return names


@pytest.mark.parametrize("change", [{"strategy": "separate"}, {"loss_weights": (1.0, 0.0, 3.0)},
                                    {"detach": (1,)}])
def test_a_change_mid_step_waits_for_the_step_in_progress_to_end(change):
    """Set after the forward, a change to how the loop trains is used from the next step:
    the step in progress ends as it began, its gradients the old settings' gradients."""
    cfg = BASE
    new = cfg.replace(**change)
    s = Session(cfg)
    init = snapshot(s)
    assert [s.advance_phase().name, s.advance_phase().name] == ["zero_grad", "forward"]
    assert s.set_config(new) is False                  # no fresh model
    assert s.pending_config == new and s.config == cfg and s.in_step
    assert _rest_of_step(s) == ["backward", "optimizer step"]   # sum: one backward

    net = ref_net(cfg, init)
    x, targets = batch(s, 0, cfg.batch_size)
    assert_grads(s, grads_of(net, weighted_sum(weights(cfg), forward(net, x, targets)[1])))

    # the next step is the new settings' from its start
    record = s.step()
    assert record is not None and record.step == 1, s.error
    assert s.config == new and s.pending_config is None
    moved = ref_net(cfg, init)              # step 0 as the old settings train it
    weighted_sum(weights(cfg), forward(moved, x, targets)[1]).backward()
    torch.optim.SGD(moved.parameters(), lr=cfg.lr).step()
    x1, t1 = batch(s, 1, cfg.batch_size)
    losses = forward(moved, x1, t1, detach=new.detach)[1]
    expected_total = sum(w * loss.item() for w, loss in zip(weights(new), losses))
    assert record.total == pytest.approx(expected_total, rel=TIGHT["rtol"])
    expected_calls = 3 if new.strategy == "separate" else 1
    assert len(record.backward_calls) == expected_calls


def test_a_change_between_steps_is_used_at_once():
    s = Session(BASE)
    assert s.step() is not None
    new = BASE.replace(strategy="separate")
    assert s.set_config(new) is False
    assert s.config == new and s.pending_config is None and not s.in_step


def test_a_change_that_needs_a_fresh_model_resets_at_once_mid_step():
    """A wider trunk is another model: the step in progress is dropped, not finished."""
    s = Session(BASE)
    assert s.step() is not None
    s.advance_phase(), s.advance_phase()                  # step 1: zero_grad, forward
    assert s.set_config(BASE.replace(trunk_width=24)) is True
    assert not s.in_step and s.pending_config is None
    assert s.step_index == 0                               # a fresh model starts at 0
    assert tuple(s.model.trunk[0].weight.shape) == (24, 8)
    assert s.advance_phase().name == "zero_grad"          # a new step, from its start
