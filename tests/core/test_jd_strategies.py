"""upgrad, pcgrad and mgda: the trunk gets torchjd's aggregation of the heads' trunk
gradients, each head its own loss's gradient; update_cosine is each head's cosine with
the trunk gradient applied. Expected values: the heads' trunk gradients by plain
torch.autograd.grad in the test, aggregated by torchjd's aggregators called here."""
import math
import sys

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torchjd.aggregation import MGDA, PCGrad, UPGrad

from gradviz.core.session import Session
from gradviz.plain.config.config import Config, ConfigError

from core_reference import (
    assert_grads,
    batch,
    forward,
    grads_of,
    micro_batches,
    ref_net,
    session_grads,
    snapshot,
    weighted_sum,
    weights,
)

# head 2 weighted 4: at step 0 the sum's trunk gradient works against head 1
BASE = Config(device="cpu", heads=3, batch_size=64, loss_weights=(1.0, 1.0, 4.0),
              probes="default", sample_every=1)
AGGREGATORS = {"upgrad": UPGrad, "pcgrad": PCGrad, "mgda": MGDA}


def _flat(grads) -> torch.Tensor:
    return torch.cat([g.reshape(-1) for g in grads])


def _trunk(net) -> list[torch.Tensor]:
    return [p for n, p in net.named_parameters() if n.startswith("trunk.")]


def _rows(net, tensors) -> torch.Tensor:
    """(heads, trunk parameters): each tensor's gradient on the trunk, by autograd.grad."""
    return torch.stack([_flat(torch.autograd.grad(t, _trunk(net), retain_graph=True))
                        for t in tensors])


def _aggregate(strategy: str, rows: torch.Tensor, seed: int, step: int) -> torch.Tensor:
    if strategy == "pcgrad":   # its random order, seeded per step as the script says
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed * 1_000_003 + step)
            return PCGrad()(rows)
    return AGGREGATORS[strategy]()(rows)


def _split_into(net, vector: torch.Tensor, expected: dict) -> None:
    """Write the trunk's part of the expected gradients from one flat vector."""
    at = 0
    for name, p in net.named_parameters():
        if name.startswith("trunk."):
            expected[name] = vector[at:at + p.numel()].reshape(p.shape)
            at += p.numel()


def _first_step(cfg):
    """(session, its step-0 record, the reference net at the initial weights, its losses
    on step 0's batch)."""
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error
    net = ref_net(cfg, init)
    _, losses = forward(net, *batch(s, 0, cfg.batch_size))
    return s, record, net, losses


@pytest.mark.parametrize("strategy", list(AGGREGATORS))
def test_the_trunk_gets_the_aggregated_rows_and_each_head_its_own_gradient(strategy):
    cfg = BASE.replace(strategy=strategy)
    s, record, net, losses = _first_step(cfg)
    terms = [w * loss for w, loss in zip(weights(cfg), losses)]
    rows = _rows(net, terms)
    aggregated = _aggregate(strategy, rows, cfg.seed, 0)
    expected = grads_of(net, weighted_sum(weights(cfg), losses))   # the heads: as sum
    assert not torch.allclose(aggregated, rows.sum(0), rtol=1e-3), "no different from sum"
    _split_into(net, aggregated, expected)
    assert_grads(s, expected, rtol=1e-4, atol=1e-6)
    assert [c.loss for c in record.backward_calls] == [f"mtl_backward + {strategy}"]


def test_with_micro_batches_each_one_is_aggregated_then_added():
    cfg = BASE.replace(strategy="upgrad", accumulate=2)
    s = Session(cfg)
    init = snapshot(s)
    assert s.step() is not None, s.error
    net = ref_net(cfg, init)
    total = None
    for x, targets in micro_batches(s, 0, cfg.batch_size, 2):
        _, losses = forward(net, x, targets)
        part = UPGrad()(_rows(net, [0.5 * w * loss for w, loss in zip(weights(cfg), losses)]))
        total = part if total is None else total + part
    got = session_grads(s)
    torch.testing.assert_close(_flat([got[n] for n, _ in net.named_parameters()
                                      if n.startswith("trunk.")]), total,
                               rtol=1e-4, atol=1e-6)


def _cosines(rows: torch.Tensor, update: torch.Tensor) -> list[float]:
    return [torch.nn.functional.cosine_similarity(r, update, dim=0).item() for r in rows]


@pytest.mark.parametrize("strategy", ["sum", "upgrad"])
def test_update_cosine_is_each_heads_cosine_with_the_trunk_gradient_applied(strategy):
    cfg = BASE.replace(strategy=strategy)
    _, record, net, losses = _first_step(cfg)
    assert record.update_cosine is not None
    weighted = _rows(net, [w * loss for w, loss in zip(weights(cfg), losses)])
    update = weighted.sum(0) if strategy == "sum" else UPGrad()(weighted)
    expected = _cosines(_rows(net, losses), update)
    assert list(record.update_cosine) == ["head0", "head1", "head2"]
    for k, cos in enumerate(expected):
        assert record.update_cosine[f"head{k}"] == pytest.approx(cos, abs=1e-4)
    if strategy == "sum":   # the sum works against head 1 here...
        assert min(expected) < 0 and record.update_cosine["head1"] < 0
    else:                   # ...UPGrad against no head
        assert min(expected) > 0 and min(record.update_cosine.values()) > 0


def test_a_detached_heads_update_cosine_is_undefined_not_zero():
    record = Session(BASE.replace(strategy="upgrad", detach=(1,))).step()
    assert record is not None
    assert math.isnan(record.update_cosine["head1"])
    assert record.update_cosine["head0"] > 0


def test_no_probes_measure_no_update_cosine():
    record = Session(BASE.replace(probes="none")).step()
    assert record is not None and record.update_cosine is None


def test_pcgrad_repeats_whatever_drew_from_the_global_generator_before():
    """Its random order comes from a per-step seed, not from whatever ran before, and it
    leaves the global generator as it found it."""
    cfg = BASE.replace(strategy="pcgrad", heads=4, loss_weights=(1.0, 1.0, 1.0, 4.0))
    a = Session(cfg)
    a.step()
    b = Session(cfg)
    torch.rand(7)   # a draw between the two: b must not see it
    b.step()
    for ga, gb in zip(session_grads(a).values(), session_grads(b).values()):
        assert torch.equal(ga, gb)
    s = Session(cfg)
    torch.manual_seed(99)
    before = torch.get_rng_state()
    s.step()
    assert torch.equal(before, torch.get_rng_state())


@pytest.mark.parametrize("change, words", [
    (dict(detach=(1,), detach_mode="detach_"), "use --detach-mode detach"),
    (dict(accumulate=2, accumulate_mode="sum-first"), "use --accumulate-mode backward-each"),
    (dict(retain_grad=True), "no gradient of the losses (use sum)"),
])
def test_combinations_an_aggregator_cannot_run_are_one_line_errors(change, words):
    with pytest.raises(ConfigError) as info:
        BASE.replace(strategy="upgrad", **change)
    assert words in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("strategy", list(AGGREGATORS))
def test_without_torchjd_choosing_its_strategy_is_a_one_line_error(monkeypatch, strategy):
    monkeypatch.setitem(sys.modules, "torchjd", None)   # as if not installed
    with pytest.raises(ConfigError) as info:
        BASE.replace(strategy=strategy)
    message = str(info.value)
    assert message == (f"strategy {strategy} needs torchjd, which is not installed here: "
                       'pip install "torchjd[quadprog-projector]>=0.18,<0.19"')
    BASE.replace(strategy="sum")   # the others need no torchjd


def test_without_quadprog_upgrad_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "quadprog", None)
    with pytest.raises(ConfigError, match="upgrad needs quadprog.*torchjd\\[quadprog"):
        BASE.replace(strategy="upgrad")
    BASE.replace(strategy="mgda")   # MGDA solves no QP


def test_an_import_that_fails_at_the_step_is_an_event_not_a_traceback(monkeypatch):
    s = Session(BASE.replace(strategy="upgrad"))
    monkeypatch.setitem(sys.modules, "torchjd.autojac", None)
    assert s.step() is None
    assert "needs torchjd, which is not installed" in s.error.message


def test_gradviz_run_without_torchjd_is_one_line_and_exit_2(monkeypatch, capsys):
    from gradviz.app import main
    monkeypatch.setitem(sys.modules, "torchjd", None)
    try:
        code = main(["run", "--strategy", "upgrad", "--steps", "1", "--quiet"])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "needs torchjd" in err and "pip install" in err


def test_update_cosine_sampled_is_measured_on_those_steps_only_and_exactly():
    cfg = BASE.replace(strategy="sum")
    s = Session(cfg)
    s.update_cosine_every = 3
    for step in range(7):
        init = snapshot(s)
        record = s.step()
        assert record is not None, s.error
        assert record.cosine is not None   # the junction's cosines: every step still
        if step % 3:
            assert record.update_cosine is None
            continue
        net = ref_net(cfg, init)
        _, losses = forward(net, *batch(s, step, cfg.batch_size))
        update = _rows(net, [w * loss for w, loss in zip(weights(cfg), losses)]).sum(0)
        expected = _cosines(_rows(net, losses), update)
        assert [record.update_cosine[f"head{k}"] for k in range(3)] == \
            pytest.approx(expected, abs=1e-4)


def test_probes_all_measure_the_update_cosine_every_step_whatever_the_sampling():
    s = Session(BASE.replace(probes="all", sample_every=5))
    s.update_cosine_every = 3
    records = [s.step() for _ in range(4)]
    assert all(r is not None and r.update_cosine is not None for r in records)


def _run_report(argv: list[str], out):
    import csv
    import json

    from gradviz.app import main
    assert main(argv) == 0
    steps = json.loads((out / "report.json").read_text())["steps"]
    return steps, list(csv.DictReader((out / "metrics.csv").open()))


def test_gradviz_run_writes_update_cosine_in_the_report_and_the_csv(tmp_path):
    from gradviz.commands.run import UPDATE_COSINE_EVERY
    out = tmp_path / "out"
    steps = UPDATE_COSINE_EVERY + 1
    argv = ["run", "--device", "cpu", "--heads", "3", "--loss-weights", "1,1,4", "--steps",
            str(steps), "--out", str(out), "--quiet", "--strategy"]
    records, rows = _run_report([*argv, "upgrad"], out)
    assert len(records) == len(rows) == steps
    for step, (record, row) in enumerate(zip(records, rows)):
        if step % UPDATE_COSINE_EVERY:   # sampled: absent, not zero, between
            assert record["update_cosine"] is None
            assert all(row[f"update_cosine.head{k}"] == "" for k in range(3))
            continue
        assert list(record["update_cosine"]) == ["head0", "head1", "head2"]
        assert all(v > 0 for v in record["update_cosine"].values())
        for head, value in record["update_cosine"].items():
            assert float(row[f"update_cosine.{head}"]) == value
    records, _ = _run_report([*argv, "sum"], out)
    assert min(records[0]["update_cosine"].values()) < 0
    records, _ = _run_report([*argv, "sum", "--probes", "all", "--steps", "3"], out)
    assert len(records) == 3
    assert all(r["update_cosine"] is not None for r in records)


@pytest.mark.parametrize("strategy", list(AGGREGATORS))
def test_the_graph_views_per_node_gradients_work_with_them(strategy):
    """torch.vmap refused the graph view's hooks: the trunk's Jacobian is taken one row
    per head instead, the same numbers."""
    cfg = BASE.replace(strategy=strategy, probes="all")
    s = Session(cfg)
    s.track_node_grads = True
    for _ in range(2):
        assert s.step() is not None, s.error and s.error.message
    plain = Session(BASE.replace(strategy=strategy))
    for _ in range(2):
        plain.step()
    for a, b in zip(session_grads(s).values(), session_grads(plain).values()):
        assert torch.equal(a, b)


def test_every_weighted_term_the_aggregator_differentiates_is_drawn_as_a_root():
    s = Session(BASE.replace(strategy="upgrad"))
    s.advance_phase()   # zero_grad
    s.advance_phase()   # forward
    losses, roots = s.root_tensors()[:3], s.root_tensors()[3:]
    assert len(roots) == 1   # head 2's 4 * L2; heads 0 and 1 are weighted 1: the loss itself
    assert roots[0].item() == pytest.approx(4 * losses[2].item(), rel=1e-6)


@settings(max_examples=150, deadline=None, database=None)
@given(strategy=st.sampled_from(list(AGGREGATORS)),
       detach=st.lists(st.integers(0, 2), max_size=3, unique=True),
       detach_mode=st.sampled_from(["detach", "detach_"]),
       accumulate=st.sampled_from([1, 2, 4]),
       accumulate_mode=st.sampled_from(["backward-each", "sum-first"]))
def test_any_combination_with_an_aggregator_is_valid_or_one_line(strategy, detach, detach_mode,
                                                                 accumulate, accumulate_mode):
    changes = dict(strategy=strategy, detach=tuple(detach), detach_mode=detach_mode,
                   accumulate=accumulate, accumulate_mode=accumulate_mode)
    refused = (bool(detach) and detach_mode == "detach_") or \
        (accumulate > 1 and accumulate_mode == "sum-first")
    try:
        BASE.replace(**changes)
    except ConfigError as exc:
        assert refused and "\n" not in str(exc) and strategy in str(exc)
    else:
        assert not refused


def test_why_retain_grad_is_refused_torchjd_leaves_no_loss_gradient_in_z_grad():
    """Plain torch and torchjd alone: after mtl_backward, z.grad is 2 Σ dL_k/dz, whatever
    aggregator comes after: its two passes through z each add the sum."""
    from torchjd.autojac import mtl_backward
    cfg = BASE
    s = Session(cfg)
    net = ref_net(cfg, snapshot(s))
    x, targets = batch(s, 0, cfg.batch_size)
    z, losses = forward(net, x, targets)
    summed = sum(torch.autograd.grad(loss, z, retain_graph=True)[0] for loss in losses)
    z.retain_grad()   # after: autograd.grad adds into a retained z.grad too
    mtl_backward(losses, features=z, tasks_params=[list(h.parameters()) for h in net.heads],
                 shared_params=_trunk(net), parallel_chunk_size=1)
    assert z.grad is not None and torch.allclose(z.grad, 2 * summed, rtol=1e-5, atol=1e-8)


def test_a_failed_aggregation_is_an_event_and_leaves_no_rows_for_the_next_step(monkeypatch):
    import torchjd.autojac

    def refuse(*args, **kwargs):
        raise ValueError("Failed to solve the quadratic programming problem.")
    s = Session(BASE.replace(strategy="upgrad"))
    monkeypatch.setattr(torchjd.autojac, "jac_to_grad", refuse)
    assert s.step() is None
    assert s.error.message.startswith("torchjd: Failed to solve")
    assert not any(hasattr(p, "jac") for p in s.model.trunk.parameters())
    monkeypatch.undo()
    assert s.step() is not None
