"""The memory probe's cache: a graph walk (nodes alive, saved bytes held) is reused for
the same structure, and what it reports is exactly what walking every time reports,
through config changes mid-session that change the structure (a stale cache would be
wrong there: each test also checks that the numbers do change)."""
from __future__ import annotations

import pytest

from gradviz.core import step_finish as session_module  # where the session walks
from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.graph.walk_cache import CHAINED

BASE = Config(device="cpu", heads=3, trunk_width=16, trunk_depth=2, batch_size=32,
              probes="default", sample_every=1)


def _memory(record):
    if record is None:
        return None
    return (record.saved_bytes, record.saved_bytes_peak, record.saved_tensor_bytes,
            record.saved_tensor_bytes_peak, record.graph_nodes)


def _run(schedule, cache: bool, base: Config = BASE, node_grads: bool = False):
    """Per step: (saved_bytes, saved_bytes_peak, saved_tensor_bytes,
    saved_tensor_bytes_peak, graph_nodes) or the error's title."""
    s = Session(base)
    s.cache_walks = cache
    s.track_node_grads = node_grads
    out = []
    for steps, changes in schedule:
        s.set_config(s.config.replace(**changes))
        for _ in range(steps):
            record = s.step()
            out.append(_memory(record) if record is not None else s.error.title)
    return out, s


def _same_as_walking_every_time(schedule, base: Config = BASE, node_grads: bool = False):
    cached, s = _run(schedule, True, base, node_grads)
    walked, _ = _run(schedule, False, base, node_grads)
    assert cached == walked
    return cached, s


def test_walks_are_reused_step_after_step(monkeypatch):
    calls = []
    real = session_module.held_saved_memory
    monkeypatch.setattr(session_module, "held_saved_memory",
                        lambda *a: calls.append(1) or real(*a))
    records, _ = _same_as_walking_every_time([(5, {})])
    assert len(set(records)) == 1
    calls.clear()
    _run([(5, {})], True)
    assert len(calls) == 2        # after the forward, and at the end: step 0 only
    calls.clear()
    _run([(5, {})], False)
    assert len(calls) == 10


def test_toggling_keep_graphs_mid_session():
    records, _ = _same_as_walking_every_time([
        (3, {}), (3, {"keep_graphs": True}), (2, {"keep_graphs": False}),
        (3, {"keep_graphs": True, "strategy": "separate"}),
        (2, {"keep_graphs": True, "strategy": "in-loop", "retain_graph": "always"}),
        (2, {"keep_graphs": False, "strategy": "sum", "retain_graph": "auto"})])
    plain, kept = records[0], records[3:6]
    assert kept[0] == plain and kept[0] != kept[1] != kept[2]   # keep graphs grows
    assert records[6] == plain and records[-1] == plain


@pytest.mark.parametrize("mode", ["detach", "detach_"])
def test_toggling_detach_mid_session(mode):
    records, _ = _same_as_walking_every_time([
        (2, {}), (2, {"detach": (1,), "detach_mode": mode}), (2, {"detach": (0, 2)}),
        (2, {"detach": ()}), (2, {"detach": (1,), "detach_mode": mode,
                                  "strategy": "separate", "retain_graph": "always"})])
    assert len(set(records)) > 1   # the structure did change
    assert records[6] == records[0]


def test_toggling_accumulation_and_retain_mid_session():
    records, _ = _same_as_walking_every_time([
        (2, {}), (2, {"accumulate": 4}), (2, {"accumulate": 4, "accumulate_mode": "sum-first"}),
        (2, {"accumulate": 4, "accumulate_mode": "sum-first", "keep_graphs": True}),
        (2, {"accumulate": 2, "keep_graphs": True, "accumulate_mode": "backward-each"}),
        (2, {"retain_graph": "always", "accumulate": 1, "keep_graphs": False}),
        (2, {"strategy": "separate", "retain_graph": "never"}),
        (2, {"strategy": "separate", "retain_graph": "auto", "batch_size": 16}),
        (2, {"loss_weights": (1.0, 0.5, 2.0), "retain_grad": True})])
    assert len({r for r in records if not isinstance(r, str)}) > 8
    assert any(isinstance(r, str) for r in records)   # retain never: the second backward


def test_sampled_probes_and_node_grad_hooks():
    _same_as_walking_every_time([(6, {"sample_every": 3}), (4, {"probes": "all"}),
                                 (3, {"probes": "none"}), (3, {"keep_graphs": True,
                                                               "probes": "default"})],
                                node_grads=True)


def test_rnn_truncated_and_never_truncated():
    rnn = BASE.replace(model="rnn")
    records, s = _same_as_walking_every_time([
        (3, {}), (2, {"accumulate": 2, "accumulate_mode": "sum-first"}),
        (2, {"accumulate": 1, "truncate": "never"}),
        (2, {"truncate": "never", "retain_graph": "always"}),
        (2, {"truncate": "never", "accumulate": 4, "accumulate_mode": "sum-first"}),
        (3, {"truncate": "every-step", "accumulate": 1, "retain_graph": "auto"})], rnn)
    assert any(isinstance(r, str) for r in records)   # never: into a freed graph
    # a hidden state chained to an earlier graph is never cached: it grows
    assert not any(CHAINED in key[2] for table in s._walks.tables.values() for key in table)
    assert records[-1] == records[1]


def test_rnn_never_truncated_sum_first_chains_within_the_step():
    """Micro-batch 2's h is micro-batch 1's h_T, both graphs alive: step 0 succeeds and
    counts both; the next step runs into step 0's freed graph."""
    cfg = BASE.replace(model="rnn", truncate="never", accumulate=2,
                       accumulate_mode="sum-first")
    records, s = _same_as_walking_every_time([(3, {})], cfg)
    every_step, _ = _run([(1, {})], False, cfg.replace(truncate="every-step"))
    assert not isinstance(records[0], str) and isinstance(records[1], str)
    assert records[0][2] >= every_step[0][2]
    assert not any(CHAINED in key[2] for table in s._walks.tables.values() for key in table)


def test_reset_drops_the_walks():
    s = Session(BASE)
    s.step()
    assert s._walks.tables
    s.set_config(BASE.replace(trunk_width=24))     # a fresh model: new parameters
    assert not s._walks.tables
    assert s.step() is not None
