"""Session.step() with no step in progress runs quietly: no phase is described (Play at
full speed, where nobody follows the phases). Its numbers must be those of a plain
PyTorch loop bit for bit, the same as the phase-by-phase path's, and the sampled steps
among them must still carry every probe's numbers."""
import dataclasses

import pytest
import torch

from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import batch, forward, ref_net, snapshot, weighted_sum, weights

# as the app trains at full speed: the default probes, every 20th step sampled, the
# graph panel's per-node gradients on
FAST = Config(device="cpu", heads=3, batch_size=32, strategy="sum", probes="default",
              lr=0.05)
SAMPLED_ONLY = ("junction_grad_norms", "cosine", "saved_bytes", "saved_bytes_peak",
                "saved_tensor_bytes", "saved_tensor_bytes_peak", "graph_nodes",
                "update_cosine", "trunk_grad_norm")


def _fast_session(cfg: Config = FAST) -> Session:
    s = Session(cfg)
    s.track_node_grads = True
    s.sample_floor = 20
    return s


@pytest.mark.parametrize("weights_given", [(), (0.5, 2.0, 1.0)])
def test_quiet_steps_match_a_plain_loop_bit_for_bit(weights_given):
    """Losses, every gradient and every weight after each of 45 steps (steps 0, 20 and
    40 sampled) equal a plain loop's exactly."""
    cfg = FAST.replace(loss_weights=weights_given)
    s = _fast_session(cfg)
    net = ref_net(cfg, snapshot(s))
    opt = torch.optim.SGD(net.parameters(), lr=cfg.lr)
    params = dict(net.named_parameters())
    for step in range(45):
        record = s.step()
        assert record is not None, s.error
        x, targets = batch(s, step, cfg.batch_size)
        opt.zero_grad(set_to_none=True)
        _, losses = forward(net, x, targets)
        weighted_sum(weights(cfg), losses).backward()
        assert list(record.losses.values()) == [loss.item() for loss in losses], step
        for name, p in zip(s.param_names, s.params):
            assert torch.equal(p.grad, params[name].grad), (step, name)
        opt.step()
        for name, p in zip(s.param_names, s.params):
            assert torch.equal(p.detach(), params[name].detach()), (step, name)


def _without_time(record):
    return dataclasses.replace(record, backward_seconds=None)


@pytest.mark.parametrize("changes", [
    {}, {"strategy": "separate"}, {"strategy": "in-loop", "accumulate": 2},
    {"accumulate": 2, "accumulate_mode": "sum-first"}, {"zero_grad": False},
    {"model": "rnn"}])
def test_quiet_steps_record_what_the_phases_record(changes):
    """The same steps played phase by phase and quietly: the same records (the backward
    time aside, a clock's reading), the same weights."""
    cfg = FAST.replace(**changes)
    phased, quiet = _fast_session(cfg), _fast_session(cfg)
    for _ in range(25):
        while True:
            phase = phased.advance_phase()
            assert phase.event is None, phase.event
            if phase.step_done:
                break
        assert quiet.step() is not None, quiet.error
        assert _without_time(quiet.last_record) == _without_time(phased.last_record)
    for a, b in zip(phased.params, quiet.params):
        assert torch.equal(a, b)


def test_sampled_steps_still_carry_their_probes():
    """Every step: the losses, the gradient norms, the backward calls and the trunk's
    passes, measured; the 20th steps also the junction, memory and update numbers, and
    the graph after one has its module calls and per-node gradients."""
    s = _fast_session()
    records = [s.step() for _ in range(41)]
    for r in records:
        assert r is not None
        assert len(r.losses) == 3 and len(r.grad_norms) == len(s.params)
        assert r.trunk_walks == 1 and r.backward_seconds is not None
        assert [c.loss for c in r.backward_calls] == ["total"]
        sampled = r.step % 20 == 0
        for name in SAMPLED_ONLY:
            assert (getattr(r, name) is not None) == sampled, (r.step, name)
    assert s.node_grads_current   # step 40 was sampled
    graph = s.graph()
    assert graph.modules and any(e.grad_norm is not None for e in graph.edges)
    s.step()
    assert not s.node_grads_current   # step 41 was not: the engine measures one more


def test_a_quiet_failure_is_its_event_and_the_step_is_undone():
    """A step that diverges, taken quietly, returns None with its event, as by phases,
    and leaves the gradients as they were."""
    s = _fast_session(FAST.replace(lr=1000.0))
    for _ in range(30):
        if s.step() is None:
            break
    assert s.error is not None
    assert s.error.phase == "optimizer step" and not s.in_step
    assert all(p.grad is None for p in s.params)
