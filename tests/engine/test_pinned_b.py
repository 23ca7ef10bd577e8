"""B pinned beside A inside the engine (in this process, no pipe): B does the same step
each time A completes one, from the same initial weights on the same data, and each
step's comparison is what plain PyTorch, written here, says it must be."""
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))
from gradviz.core.session import Session  # noqa: E402
from gradviz.engine import protocol as p  # noqa: E402
from gradviz.engine.loop import EngineLoop  # noqa: E402
from gradviz.plain.config.config import Config  # noqa: E402

from core_reference import batch, forward, ref_net, snapshot  # noqa: E402

BASE = Config(device="cpu", heads=3, trunk_width=16, batch_size=32)


def messages(loop: EngineLoop, kind: type) -> list:
    return [m for m in loop.take_outbox() if isinstance(m, kind)]


def engine(a: Config, b: Config) -> tuple[EngineLoop, list]:
    """An engine training A with B pinned; (the loop, its B_PINNED answer)."""
    loop = EngineLoop(a)
    loop.take_outbox()
    loop.handle(p.PinB(b))
    return loop, messages(loop, p.BPinned)


def steps(loop: EngineLoop, n: int) -> tuple[list, list]:
    """n optimizer steps of A (Shift+→ n times): (A's records, B's compare records)."""
    a, compared = [], []
    for _ in range(n):
        loop.handle(p.Step())
        for message in loop.take_outbox():
            if isinstance(message, p.Records):
                a += message.records
            elif isinstance(message, p.Compared):
                compared += message.records
    return a, compared


def test_sum_beside_separate_is_the_same_computation():
    loop, pinned = engine(BASE.replace(strategy="separate"), BASE)
    assert pinned[0].config.strategy == "sum" and pinned[0].problem is None
    a, compared = steps(loop, 4)
    assert [r.step for r in compared] == [r.step for r in a] == [0, 1, 2, 3]
    for record in compared:
        assert record.same and record.step_same and record.error is None
        assert record.verdict.startswith("same gradients (largest relative difference")
        assert record.step_verdict.startswith("same gradients (largest relative difference")
        assert all(d.max_rel <= 1e-5 and d.max_abs < 1e-6 for d in record.diff.groups.values())
    # the same data and initial weights: step 0's losses are equal, B's record is B's own
    assert compared[0].b.losses == pytest.approx(a[0].losses, rel=1e-6)
    assert compared[-1].b.grad_norms.keys() == a[-1].grad_norms.keys()
    assert compared[-1].peak_a and compared[-1].peak_b


def _plain_backward(strategy: str, losses: list) -> None:
    """`total.backward()` (sum), or `total += L_k; total.backward()` inside the loop."""
    if strategy == "sum":
        sum(losses).backward()
        return
    total = 0
    for loss in losses:
        total = total + loss
        total.backward(retain_graph=True)


def _junction_pushes(strategy: str, cfg: Config) -> list[float]:
    """Plain PyTorch: the norm of the gradient each head sends into z over one step's
    backward calls, under sum (`total.backward()`) or in-loop (`total += L_k;
    total.backward()` inside the loop), from the engine's initial weights and batch."""
    session = Session(cfg)
    net = ref_net(cfg, snapshot(session))
    x, targets = batch(session, 0, cfg.batch_size)
    z = net.trunk(x)
    reads = [z.view_as(z) for _ in range(cfg.heads)]   # what head k reads of z
    pushed = [torch.zeros_like(z) for _ in range(cfg.heads)]
    for k, zk in enumerate(reads):
        zk.register_hook(lambda g, k=k: pushed[k].add_(g))
    from core_reference import loss_k
    losses = [loss_k(k, head(zk), targets[k]) for k, (head, zk) in enumerate(zip(net.heads, reads))]
    _plain_backward(strategy, losses)
    return [g.norm().item() for g in pushed]


def _trunk_grad(cfg: Config, strategy: str) -> torch.Tensor:
    session = Session(cfg)
    net = ref_net(cfg, snapshot(session))
    x, targets = batch(session, 0, cfg.batch_size)
    _, losses = forward(net, x, targets)
    _plain_backward(strategy, losses)
    return torch.cat([p.grad.reshape(-1) for p in net.trunk.parameters()])


def test_in_loop_beside_sum_counts_head_k_k_minus_k_times():
    loop, _ = engine(BASE, BASE.replace(strategy="in-loop"))
    _, compared = steps(loop, 1)
    record, K = compared[0], BASE.heads
    plain = [b / a for a, b in zip(_junction_pushes("sum", BASE),
                                   _junction_pushes("in-loop", BASE))]
    assert plain == pytest.approx([K - k for k in range(K)], rel=1e-5)
    assert record.diff.junction_ratio == pytest.approx(plain, rel=1e-5)
    assert not record.same and not record.step_same
    assert record.verdict == record.step_verdict == (
        "different: B's gradient on the trunk, head 0: 3.00× A's, head 1: 2.00× (step 0)")
    expected = (_trunk_grad(BASE, "in-loop") - _trunk_grad(BASE, "sum")).abs().max().item()
    assert record.diff.groups["trunk"].max_abs == pytest.approx(expected, rel=1e-4)
    assert record.worst["trunk"].max_abs == record.diff.groups["trunk"].max_abs


def test_b_stops_at_its_error_while_a_goes_on_and_reset_starts_both_again():
    loop, _ = engine(BASE, BASE.replace(strategy="separate", retain_graph="never"))
    a, compared = steps(loop, 3)
    assert [r.step for r in a] == [0, 1, 2]                 # A went on
    assert len(compared) == 1                                # B said why once, then stopped
    stop = compared[0]
    assert stop.error is not None and stop.diff is None and not stop.same
    assert "backward through the graph a second time" in stop.error.message
    assert stop.verdict.startswith("B stopped at step 0: Backward through a freed graph")
    assert loop.session.error is None
    loop.handle(p.Reset())                                     # Reset: both from step 0
    assert loop.pinning.pinned.b.step_index == 0 and loop.pinning.pinned.error is None
    a, compared = steps(loop, 1)
    assert [r.step for r in a] == [0] and compared[0].error is not None


def test_reset_restarts_b_beside_a_and_unpinning_stops_it():
    loop, _ = engine(BASE, BASE.replace(strategy="separate"))
    steps(loop, 3)
    assert loop.pinning.pinned.b.step_index == 3
    loop.handle(p.Reset())
    assert loop.pinning.pinned.b.step_index == loop.session.step_index == 0
    a, compared = steps(loop, 2)
    assert [r.step for r in compared] == [0, 1] and compared[1].same
    loop.handle(p.PinB(None))
    assert messages(loop, p.BPinned) == [p.BPinned(None, None)]
    a, compared = steps(loop, 2)
    assert len(a) == 2 and compared == []


def test_b_of_another_model_is_refused_and_a_model_change_in_a_stops_b():
    loop, pinned = engine(BASE, BASE.replace(heads=2))
    assert pinned == [p.BPinned(None, "A and B must build the same model to compare: heads is 3 "
                                       "in A, 2 in B")]
    assert loop.pinning.pinned is None
    loop.handle(p.PinB(BASE.replace(strategy="separate")))
    loop.take_outbox()
    loop.handle(p.SetConfig(BASE.replace(trunk_width=8)))       # A builds a fresh model
    compared = [r for m in loop.take_outbox() if isinstance(m, p.Compared) for r in m.records]
    assert "must build the same model" in compared[0].verdict
    a, compared = steps(loop, 2)
    assert len(a) == 2 and compared == []                    # A goes on alone
    loop.handle(p.SetConfig(BASE))                              # back to B's model
    a, compared = steps(loop, 1)
    assert compared[0].same


def test_b_is_sampled_like_a():
    loop, _ = engine(BASE.replace(sample_every=5), BASE.replace(strategy="separate"))
    _, compared = steps(loop, 6)
    measured = [r.step for r in compared if r.b.junction_grad_norms is not None]
    assert measured == [0, 5]
    # between samples the verdict still names the heads' shares, from the last sample
    loop.handle(p.PinB(BASE.replace(strategy="in-loop", sample_every=1)))
    loop.take_outbox()
    _, compared = steps(loop, 3)
    assert [r.diff.junction_ratio is not None for r in compared] == [True, False, False]
    assert all("B's gradient on the trunk, head 0: 3.00× A's" in r.step_verdict and
               r.step_verdict.endswith("(step 0)") for r in compared)
    # since pinned: told by the first step that differed, whatever the weights did since
    assert {r.verdict for r in compared} == {compared[0].step_verdict}


def test_pinning_these_settings_then_a_toggle_tells_the_first_step_that_differs():
    loop, _ = engine(BASE, BASE)              # "Pin these settings as B"
    _, compared = steps(loop, 3)
    assert all(r.same and r.verdict == "same gradients (largest relative difference "
               "0.0e+00, identical)" for r in compared)
    loop.handle(p.SetConfig(BASE.replace(strategy="in-loop")))   # A changes, B does not
    _, compared = steps(loop, 4)
    assert not any(r.same or r.step_same for r in compared)
    # the weights were still the same at step 3: B (sum) pushes 1/3 and 1/2 of A's
    assert compared[-1].verdict == ("different: B's gradient on the trunk, head 0: 0.33× "
                                    "A's, head 1: 0.50× (step 3)")


def test_phase_by_phase_b_steps_when_a_completes_its_step():
    loop, _ = engine(BASE.replace(strategy="separate"), BASE)
    compared = []
    for _ in range(5):             # zero_grad, forward, 3 backward calls: A not done yet
        loop.handle(p.Phase())
        compared += [r for m in loop.take_outbox() if isinstance(m, p.Compared) for r in m.records]
    assert compared == [] and loop.pinning.pinned.b.step_index == 0
    loop.handle(p.Phase())           # optimizer step: A's step 0 is complete, and B's
    compared = [r for m in loop.take_outbox() if isinstance(m, p.Compared) for r in m.records]
    assert [r.step for r in compared] == [0] and compared[0].same
    assert loop.pinning.pinned.b.step_index == loop.session.step_index == 1
