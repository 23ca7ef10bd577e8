"""The article's later lessons against plain PyTorch written here: device mismatch,
retain_grad and leaves, editing a detached tensor in place, a recurrent trunk with
carried state (truncated or not), and the two ways to accumulate."""
from __future__ import annotations

import re

import pytest
import torch
from torch import nn

from gradviz.core import devices
from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import (
    TIGHT,
    RefNet,
    SavedTracker,
    assert_grads,
    batch,
    forward,
    loss_k,
    micro_batches,
    norm,
    ref_net,
    scalar_bytes,
    snapshot,
    weighted_sum,
)

BASE = Config(device="cpu", heads=3, trunk_width=16, trunk_depth=2, batch_size=32,
              probes="all", lr=0.05)


def first_paragraph(exc: BaseException) -> str:
    return str(exc).strip().split("\n\n")[0].replace("\n", " ").strip()


def without_versions(message: str) -> str:
    """Version counts differ by the in-place copies a reference makes loading weights."""
    return re.sub(r"version \d+", "version N", message)


# ---- device mismatch --------------------------------------------------------------------

def test_misplaced_head_raises_pytorchs_device_error_at_forward():
    cfg = BASE.replace(misplace_head=1)
    session = Session(cfg)
    state = snapshot(Session(BASE))     # the same seed: the same weights, all readable
    assert session.step() is None
    event = session.error
    # plain PyTorch: the same head moved to the other device, the same forward
    net = ref_net(cfg, state)
    net.heads[1].to("meta")
    x, targets = batch(session, 0, cfg.batch_size)
    with pytest.raises(RuntimeError) as raised:
        forward(net, x, targets)
    assert event.message == first_paragraph(raised.value)
    assert "meta" in event.message and event.phase == "forward"
    # the batch is not split: no micro-batch to name (it read "forward of micro-batch 1",
    # which a class took for head 1)
    assert event.call == "forward"
    split = Session(cfg.replace(accumulate=2))
    assert split.step() is None and split.error.call == "forward of micro-batch 1 of 2"
    assert "meta device" in event.explanation and ".to(device)" in event.hint
    assert session.model.heads[1][0].weight.device.type == "meta"
    assert session.model.heads[0][0].weight.device.type == "cpu"


def test_the_other_device_is_a_real_one_where_there_is_one(monkeypatch):
    cpu = torch.device("cpu")
    assert devices.other_device(cpu) == torch.device("meta")   # this CPU-only machine
    monkeypatch.setattr(devices, "available_devices",
                        lambda: [("cpu", "CPU"), ("cuda:0", "a GPU")])
    assert devices.other_device(cpu) == torch.device("cuda:0")
    assert devices.other_device(torch.device("cuda:0")) == cpu


# ---- leaves, .grad and retain_grad --------------------------------------------------------

@pytest.mark.parametrize("strategy", ["sum", "separate"])
def test_retain_grad_reports_the_norm_of_z_grad(strategy):
    cfg = BASE.replace(retain_grad=True, strategy=strategy)
    session = Session(cfg)
    net = ref_net(cfg, snapshot(session))
    record = session.step()
    x, targets = batch(session, 0, cfg.batch_size)
    z, losses = forward(net, x, targets)
    z.retain_grad()
    weighted_sum((1.0,) * 3, losses).backward()
    assert record.z_grad_norm == pytest.approx(norm(z.grad), rel=1e-5)


def test_without_retain_grad_z_grad_is_none_and_not_reported():
    session = Session(BASE)
    assert session.step().z_grad_norm is None
    z = session._live.z
    assert not z.is_leaf and z.requires_grad
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert z.grad is None    # PyTorch's own warning, the one the graph shows


# ---- editing a detached tensor in place ---------------------------------------------------

def test_editing_a_detached_tensor_in_place_breaks_backward_like_plain_pytorch():
    cfg = BASE.replace(detach=(1,), edit_detached=1)
    session = Session(cfg)
    net = ref_net(cfg, snapshot(session))
    assert session.step() is None
    x, targets = batch(session, 0, cfg.batch_size)
    z = net.trunk(x)
    losses = []
    for k, head in enumerate(net.heads):
        zk = z.detach() if k == 1 else z
        losses.append(loss_k(k, head(zk), targets[k]))
        if k == 1:
            zk.mul_(1.0)        # no value changes; the shared version counter does
    with pytest.raises(RuntimeError) as raised:
        weighted_sum((1.0,) * 3, losses).backward()
    event = session.error
    assert event.message == first_paragraph(raised.value)
    assert "modified by an inplace operation" in event.message
    assert "shares z's storage" in event.explanation
    stale = [n for n in session.graph().nodes if n.state == "changed in place"]
    # heads 0 and 1 saved z (head 1 through zk) before the edit and went stale; head 2
    # read z after it and saved the new version
    assert sorted(n.heads_reaching for n in stale if n.kind == "op") == [(0,), (1,)]


# ---- a recurrent trunk, carried state, truncation ---------------------------------------

class RefRNN(nn.Module):
    """h_t = tanh(ih(x_t) + hh(h)) over 4 steps of 2 features; z = readout(h_T)."""

    def __init__(self, width: int):
        super().__init__()
        self.ih, self.hh, self.readout = nn.Linear(2, width), nn.Linear(width, width), \
            nn.Linear(width, width)

    def forward(self, x, h):
        steps = x.view(x.shape[0], 4, 2)
        for t in range(4):
            h = torch.tanh(self.ih(steps[:, t]) + self.hh(h))
        return self.readout(h), h


def rnn_reference(cfg, state):
    """The engine's layout with a recurrent trunk, written again, with its weights."""
    net = RefNet(cfg.heads, cfg.trunk_width, 1)
    net.trunk = RefRNN(cfg.trunk_width)
    net.load_state_dict(state)     # strict: names and shapes must match the engine's
    return net


def ref_rnn_step(net, opt, x, targets, h, truncate: bool, retain: bool):
    """One plain step; returns (losses, grads, new h)."""
    opt.zero_grad(set_to_none=True)
    h0 = h.detach() if truncate else h
    z, h_new = net.trunk(x, h0)
    losses = [loss_k(k, head(z), targets[k]) for k, head in enumerate(net.heads)]
    weighted_sum((1.0,) * 3, losses).backward(retain_graph=retain)
    grads = {n: p.grad.clone() for n, p in net.named_parameters()}
    opt.step()
    return [loss.item() for loss in losses], grads, h_new


def test_rnn_truncated_every_step_matches_plain_pytorch_for_three_steps():
    cfg = BASE.replace(model="rnn", probes="default")
    session = Session(cfg)
    net = rnn_reference(cfg, snapshot(session))
    opt = torch.optim.SGD(net.parameters(), lr=cfg.lr)
    h = torch.zeros(cfg.batch_size, cfg.trunk_width)
    for step in range(3):
        x, targets = batch(session, step, cfg.batch_size)
        record = session.step()
        losses, grads, h = ref_rnn_step(net, opt, x, targets, h, True, False)
        assert list(record.losses.values()) == pytest.approx(losses, rel=1e-5)
        for name, g in grads.items():
            assert record.grad_norms[name] == pytest.approx(norm(g), rel=1e-4, abs=1e-7)


@pytest.mark.parametrize("retain, words", [
    ("auto", "backward through the graph a second time"),
    ("always", "modified by an inplace operation"),
])
def test_rnn_never_truncated_fails_at_step_1_like_plain_pytorch(retain, words):
    cfg = BASE.replace(model="rnn", truncate="never", retain_graph=retain)
    session = Session(cfg)
    net = rnn_reference(cfg, snapshot(session))
    opt = torch.optim.SGD(net.parameters(), lr=cfg.lr)
    h = torch.zeros(cfg.batch_size, cfg.trunk_width)
    x, targets = batch(session, 0, cfg.batch_size)
    _, _, h = ref_rnn_step(net, opt, x, targets, h, False, retain == "always")
    x, targets = batch(session, 1, cfg.batch_size)
    with pytest.raises(RuntimeError) as raised:
        ref_rnn_step(net, opt, x, targets, h, False, retain == "always")
    assert session.step() is not None and session.step() is None
    event = session.error
    assert event.step == 1 and words in event.message
    assert without_versions(event.message) == without_versions(first_paragraph(raised.value))
    assert ("retain_graph kept the graph, not the values" in event.title) == (retain == "always")


def test_rnn_graph_shows_the_unrolled_chain_and_the_detached_state():
    session = Session(BASE.replace(model="rnn"))
    session.step()
    session.step()
    graph = session.graph()
    trunk_tanh = [n for n in graph.nodes
                  if n.label == "TanhBackward0" and n.heads_reaching == (0, 1, 2)]
    assert len(trunk_tanh) == 4
    inputs = [n.label for n in graph.by_kind("input")]
    assert "h from the step before, .detach()" in inputs
    assert {f"x[:, {t}] (input)" for t in range(4)} <= set(inputs)
    # the cut: from the step before's last time step to this step's first use of h
    (cut,) = [e for e in graph.edges if e.kind == "cut"]
    assert cut.label == "detach()"
    src, dst = graph.node(cut.src), graph.node(cut.dst)
    assert src.label == "h of the step before" and src.heads_reaching == ()
    assert dst.label == "AddmmBackward0" and dst.heads_reaching == (0, 1, 2)


def test_rnn_never_truncated_graph_reaches_into_the_step_before():
    session = Session(BASE.replace(model="rnn", truncate="never"))
    session.step()
    assert session.step() is None
    graph = session.graph()
    # this step's 4 time steps and the step before's 4, the old ones freed
    tanh = [n for n in graph.nodes if n.label == "TanhBackward0" and n.heads_reaching == (0, 1, 2)]
    assert len(tanh) == 8 and any(n.state == "freed" for n in tanh)


# ---- two ways to accumulate --------------------------------------------------------------

def test_sum_first_gives_backward_each_gradients_with_n_graphs_alive():
    n = 4
    each_cfg = BASE.replace(accumulate=n, strategy="separate")
    first_cfg = each_cfg.replace(accumulate_mode="sum-first")
    each, first = Session(each_cfg), Session(first_cfg)
    state = snapshot(each)
    each_record, first_record = each.step(), first.step()
    # plain PyTorch, sum-first: all micro-batch losses added, backward per head once
    net = ref_net(each_cfg, state)
    tracker = SavedTracker(net)
    terms, scaled = [None] * 3, []
    with tracker.tracking():
        for x, targets in micro_batches(each, 0, each_cfg.batch_size, n):
            _, losses = forward(net, x, targets)
            for k, loss in enumerate(losses):
                t = (1.0 / n) * loss
                scaled.append(t)
                terms[k] = t if terms[k] is None else terms[k] + t
    peak_sum_first = tracker.bytes_held() + scalar_bytes(scaled)
    net.zero_grad(set_to_none=True)
    for k, t in enumerate(terms):
        t.backward(retain_graph=k < 2)
    expected = {name: p.grad.clone() for name, p in net.named_parameters()}
    assert_grads(first, expected)
    assert_grads(each, expected, **TIGHT)
    ratio = first_record.saved_bytes_peak / each_record.saved_bytes_peak
    assert 0.8 * n <= ratio <= 1.2 * n
    # the engine's peak is what the plain loop held, give or take the scale scalars
    assert first_record.saved_bytes_peak == peak_sum_first


# ---- the graph tells leaves, requires_grad and .grad -------------------------------------

def _junction(graph):
    (node,) = [n for n in graph.nodes if n.tensor == "z"]
    return node


def test_graph_shows_leaves_and_grads_as_plain_pytorch_has_them():
    session = Session(BASE)
    session.step()
    graph = session.graph()
    # plain PyTorch facts of the same kinds of tensor
    w = nn.Linear(2, 2).weight
    x = torch.randn(3, 2)
    z = x @ w.T
    z.sum().backward()
    for node in graph.by_kind("param"):
        assert (node.requires_grad, node.is_leaf, node.has_grad) == (
            w.requires_grad, w.is_leaf, True)
    for node in graph.by_kind("input"):
        assert (node.requires_grad, node.is_leaf, node.has_grad) == (False, True, False)
    junction = _junction(graph)
    assert (junction.requires_grad, junction.is_leaf, junction.has_grad) == (True, False, False)
    with pytest.warns(UserWarning) as warned:
        assert z.grad is None
    assert junction.grad_note.startswith(str(warned[0].message).split(". ")[0])
    assert "retain_grad()" in junction.grad_note


def test_retain_grad_keeps_z_grad_and_detach_in_place_makes_z_a_leaf():
    kept = Session(BASE.replace(retain_grad=True))
    kept.step()
    node = _junction(kept.graph())
    assert node.has_grad and not node.is_leaf and node.grad_note == ""
    cut = Session(BASE.replace(detach=(0,), detach_mode="detach_"))
    cut.step()
    z = torch.randn(2, 2, requires_grad=True) * 2
    z.detach_()
    node = _junction(cut.graph())
    assert (node.is_leaf, node.requires_grad) == (z.is_leaf, z.requires_grad) == (True, False)


@pytest.mark.parametrize("changes", [{}, {"strategy": "separate", "retain_graph": "always"},
                                     {"detach": (1,)}, {"model": "rnn"}])
def test_what_the_ops_hold_adds_up_to_the_memory_panel(changes):
    """Each storage once, parameters not at all: the graph's "holds" labels sum to the
    saved bytes the memory probe reports for the same moment."""
    session = Session(BASE.replace(**changes))
    session.advance_phase()          # zero_grad
    session.advance_phase()          # forward: everything saved, nothing freed yet
    graph = session.graph()
    held = sum(n.saved_bytes for n in graph.nodes if n.kind == "op")
    record = session.step()          # its peak is what the forward phase held
    assert held == record.saved_bytes_peak > 0
