"""Saved-tensor memory and graph size: the engine's counts (the storages the graph keeps
alive, and the saved tensors' own bytes) against an independent count (a pack hook in a
plain forward; a walk over a plain loop's graphs), and the real leak of keep graphs
against the flat memory of retained-but-released graphs."""
import gc

import pytest
import torch

from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import (
    SavedTracker,
    batch,
    forward,
    micro_batches,
    reachable_nodes,
    ref_net,
    scalar_bytes,
    snapshot,
    weights,
)

BASE = Config(device="cpu", heads=3, batch_size=64, probes="default", sample_every=1)


def _plain_total(losses):
    total = losses[0]
    for loss in losses[1:]:
        total = total + loss
    return total


def _backward_calls(strategy, retain, terms):
    """(tensor, retain_graph) of the plain backward calls each strategy makes."""
    last = len(terms) - 1
    keep = [retain == "always" or (retain == "auto" and i < last) for i in range(len(terms))]
    if strategy == "sum":
        return [(_plain_total(terms), retain == "always")]
    if strategy == "separate":
        return list(zip(terms, keep))
    totals = [terms[0]]                  # in-loop: total += L_k; total.backward()
    for t in terms[1:]:
        totals.append(totals[-1] + t)
    return list(zip(totals, keep))


def _reference_memory(cfg, s, init, step=0, own=False):
    """(peak, end): saved bytes after the biggest micro-batch's forward, and what the
    last micro-batch's graph still holds after its backward calls, by a pack hook; the
    storages' bytes, or with own the saved tensors' own bytes."""
    net = ref_net(cfg, init)
    scale = 1.0 / cfg.accumulate if cfg.scale else 1.0
    factors = [w * scale for w in weights(cfg)]
    peak = end = 0
    for x, targets in micro_batches(s, step, cfg.batch_size, cfg.accumulate):
        tracker = SavedTracker(net)
        held = tracker.tensor_bytes_held if own else tracker.bytes_held
        with tracker.tracking():
            _, losses = forward(net, x, targets)
            terms = [loss if f == 1.0 else f * loss for f, loss in zip(factors, losses)]
        peak = max(peak, held() + scalar_bytes(terms))
        for target, retain in _backward_calls(cfg.strategy, cfg.retain_graph, terms):
            target.backward(retain_graph=retain)
        # (a 0-dim scalar's storage is its own bytes: scalar_bytes counts both)
        end = held() + (scalar_bytes(terms) if cfg.retain_graph == "always" else 0)
        net.zero_grad(set_to_none=True)
    return peak, end


def _reference_bytes(cfg, s, init, step=0) -> int:
    return _reference_memory(cfg, s, init, step)[0]


@pytest.mark.parametrize("changes", [
    {},
    {"strategy": "separate"},
    {"strategy": "separate", "retain_graph": "always"},
    {"strategy": "in-loop"},
    {"loss_weights": (0.5, 2.0, 1.0)},
    {"accumulate": 4},
    {"accumulate": 4, "scale": False},
    {"heads": 4, "trunk_width": 20, "trunk_depth": 3, "batch_size": 48},
])
def test_saved_bytes_are_what_the_plain_forward_saved_and_backward_left(changes):
    cfg = BASE.replace(**changes)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error
    peak, end = _reference_memory(cfg, s, init)
    assert record.saved_bytes_peak == peak
    # separate + auto: the last backward frees only what it ran through, so the other
    # heads' own buffers are still held at the end of the step
    assert record.saved_bytes == end
    # the saved tensors' own bytes: each batch gathered into its own tensors, no saved
    # view of a bigger one, so here the same as the storages'
    own_peak, own_end = _reference_memory(cfg, s, init, own=True)
    assert (record.saved_tensor_bytes_peak, record.saved_tensor_bytes) == (own_peak, own_end)


def test_retain_always_holds_the_graph_at_the_end_of_the_step():
    cfg = BASE.replace(retain_graph="always")
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    expected = _reference_bytes(cfg, s, init)
    assert record.saved_bytes == record.saved_bytes_peak == expected


def _tensors_alive() -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if issubclass(type(o), torch.Tensor))


def _run(cfg, steps):
    s = Session(cfg)
    init = snapshot(s)
    records = []
    for _ in range(steps):
        records.append(s.step())
        assert records[-1] is not None, s.error
    return s, init, records


@pytest.mark.parametrize("strategy,retain", [("sum", "always"), ("separate", "always"),
                                             ("separate", "auto"), ("in-loop", "always")])
def test_keep_graphs_grows_saved_bytes_linearly(strategy, retain):
    cfg = BASE.replace(keep_graphs=True, strategy=strategy, retain_graph=retain)
    s, init, records = _run(cfg, 4)
    # what one step's graph still holds after its backward calls (separate + auto: the
    # buffers of heads 0 and 1, which the last backward did not run through)
    per_step = _reference_memory(cfg, s, init)[1]
    assert per_step > 0
    assert [r.saved_bytes for r in records] == [per_step * (t + 1) for t in range(4)]
    own = _reference_memory(cfg, s, init, own=True)[1]
    assert [r.saved_tensor_bytes for r in records] == [own * (t + 1) for t in range(4)]
    # and it is a real leak: objects pile up in the process, step after step
    before = _tensors_alive()
    for _ in range(3):
        s.step()
    assert _tensors_alive() > before


def test_retain_always_without_keep_graphs_is_flat():
    cfg = BASE.replace(retain_graph="always")
    s, init, records = _run(cfg, 4)
    per_step = _reference_bytes(cfg, s, init)
    assert [r.saved_bytes for r in records] == [per_step] * 4
    # each step's retained graph really goes when the next step starts (no leak)
    before = _tensors_alive()
    for _ in range(5):
        s.step()
    assert _tensors_alive() == before


def test_keep_graphs_with_retain_never_frees_buffers_but_keeps_nodes():
    cfg = BASE.replace(keep_graphs=True, retain_graph="never")
    s, init, records = _run(cfg, 4)
    assert [r.saved_bytes for r in records] == [0] * 4
    nodes = [r.graph_nodes for r in records]
    assert all(a < b for a, b in zip(nodes, nodes[1:])), nodes
    before = _tensors_alive()
    for _ in range(3):
        s.step()
    assert _tensors_alive() > before


def _reference_nodes(cfg, s, init, steps, keep):
    """Distinct autograd nodes alive after each step of a plain loop: this step's graph
    (its losses and what backward was called on), plus, with keep graphs,
    `running = running + total` holding every earlier one (separate builds no total, so
    the loop sums the losses for it; in-loop keeps its last total)."""
    net = ref_net(cfg, init)
    counts, running = [], None
    for step in range(steps):
        x, targets = batch(s, step, cfg.batch_size)
        _, losses = forward(net, x, targets)
        calls = _backward_calls(cfg.strategy, cfg.retain_graph, losses)
        for target, retain in calls:
            target.backward(retain_graph=retain)
        roots = [loss.grad_fn for loss in losses] + [t.grad_fn for t, _ in calls]
        if keep:
            total = _plain_total(losses) if cfg.strategy == "separate" else calls[-1][0]
            running = total if running is None else running + total
            roots.append(running.grad_fn)
        counts.append(reachable_nodes(roots))
    return counts


@pytest.mark.parametrize("strategy", ["sum", "separate", "in-loop"])
def test_graph_nodes_counts_the_step_graph(strategy):
    cfg = BASE.replace(strategy=strategy)
    s, init, records = _run(cfg, 3)
    assert [r.graph_nodes for r in records] == _reference_nodes(cfg, s, init, 3, keep=False)


@pytest.mark.parametrize("strategy", ["sum", "separate", "in-loop"])
def test_graph_nodes_with_keep_graphs_count_distinct_live_nodes(strategy):
    """Kept graphs share the parameters' AccumulateGrad nodes: each step keeps its own
    op nodes plus the add of `running = running + total`, not a whole step graph."""
    cfg = BASE.replace(keep_graphs=True, strategy=strategy)
    s, init, records = _run(cfg, 4)
    assert [r.graph_nodes for r in records] == _reference_nodes(cfg, s, init, 4, keep=True)
