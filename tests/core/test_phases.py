"""Single-stepping: the phases of a step in order, and the graph between them (what a
non-retained backward frees, what a retained one keeps)."""
import pytest
import torch

from gradviz.core.autograd_walk import ALIVE, STALE
from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import batch, forward, ref_net, snapshot, weighted_sum, weights

BASE = Config(device="cpu", heads=3, batch_size=32, probes="default", sample_every=1)


def _phases(cfg):
    s = Session(cfg)
    phases = []
    while True:
        p = s.advance_phase()
        assert p.event is None, p.event
        phases.append(p)
        if p.step_done:
            return s, phases


def test_separate_with_three_heads_has_three_backward_phases():
    s, phases = _phases(BASE.replace(strategy="separate"))
    assert [p.name for p in phases] == ["zero_grad", "forward", "backward", "backward",
                                        "backward", "optimizer step"]
    assert [p.step_done for p in phases] == [False] * 5 + [True]
    assert all(p.step == 0 for p in phases)
    for i, p in enumerate(phases[2:5]):
        assert f"{i + 1} of 3" in p.detail and f"head{i}" in p.detail
    assert s.step_index == 1 and not s.in_step


def test_zero_grad_off_has_no_zero_grad_phase():
    _, phases = _phases(BASE.replace(zero_grad=False))
    assert [p.name for p in phases] == ["forward", "backward", "optimizer step"]


def test_accumulate_two_runs_forward_and_backward_twice():
    _, phases = _phases(BASE.replace(accumulate=2))
    assert [(p.name, p.micro_batch) for p in phases] == [
        ("zero_grad", 0), ("forward", 0), ("backward", 0), ("forward", 1), ("backward", 1),
        ("optimizer step", 0)]


def test_phases_then_step_finish_the_same_step():
    s = Session(BASE)
    s.advance_phase()
    s.advance_phase()
    record = s.step()
    assert record.step == 0 and s.step_index == 1
    assert s.step().step == 1


def _ops_with_saved(graph):
    """Op node ids that have saved-tensor children (kind saved or input)."""
    saved_kinds = {n.id for n in graph.nodes if n.kind in ("saved", "input")}
    return {e.dst for e in graph.edges if e.src in saved_kinds}


@pytest.mark.parametrize("retain,freed", [("never", True), ("auto", True),
                                          ("always", False)])
def test_graph_marks_what_a_backward_freed(retain, freed):
    s = Session(BASE.replace(retain_graph=retain))
    assert s.advance_phase().name == "zero_grad"
    assert s.advance_phase().name == "forward"
    before = s.graph()
    saving = _ops_with_saved(before)
    labels = {before.node(i).label for i in saving}
    assert {"AddmmBackward0", "TanhBackward0", "MseLossBackward0",
            "NllLossBackward0"} <= labels
    assert not any(n.freed for n in before.nodes)
    phase = s.advance_phase()
    assert phase.name == "backward"
    after = s.graph()
    by_label = {n.id: n for n in after.nodes}
    for node_id in saving:
        node = by_label[node_id]
        assert node.label == before.node(node_id).label  # same traversal order, same ids
        assert node.freed is freed, (node.label, node.state)
    # ops that saved nothing (the adds of the total, weight transposes) are never freed
    for n in after.by_kind("op"):
        if n.id not in saving:
            assert not n.freed, n.label


def test_freed_marks_agree_with_pytorch():
    """A node the graph calls freed really refuses a second backward in plain PyTorch."""
    s = Session(BASE.replace(strategy="separate", retain_graph="never"))
    s.advance_phase(), s.advance_phase()
    p = s.advance_phase()
    assert "head0" in p.detail
    g = s.graph()
    freed = {n.label for n in g.by_kind("op") if n.freed}
    assert "MseLossBackward0" in freed
    # head0's branch and the trunk are freed; head1's loss node is not
    assert any(n.label == "NllLossBackward0" and not n.freed for n in g.by_kind("op"))
    p = s.advance_phase()
    assert p.event is not None and "second time" in p.event.message


def test_a_retained_graph_goes_stale_at_the_optimizer_step():
    """After optimizer.step() changed the weights in place, the retained graph's nodes
    that saved a weight (every Linear whose input needs a gradient: all but the first
    trunk layer) can no longer be used, and plain PyTorch refuses a backward through them."""
    cfg = BASE.replace(retain_graph="always")
    s = Session(cfg)
    init = snapshot(s)
    assert s.step() is not None
    ops = s.graph().by_kind("op")
    stale = [n.label for n in ops if n.state == STALE]
    linears_saving_a_weight = (cfg.trunk_depth - 1) + 2 * cfg.heads
    assert stale == ["AddmmBackward0"] * linears_saving_a_weight
    assert all(n.state == ALIVE for n in ops if n.state != STALE)

    net = ref_net(cfg, init)
    x, targets = batch(s, 0, cfg.batch_size)
    total = weighted_sum(weights(cfg), forward(net, x, targets)[1])
    total.backward(retain_graph=True)
    torch.optim.SGD(net.parameters(), lr=cfg.lr).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        total.backward()


def test_gradient_norms_on_all_sampled_or_no_steps():
    """A second session beside the first (a pinned B, gradviz compare) measures fewer
    gradient norms; the ones it measures are the plain .grad norms."""
    seen = {}
    for when in ("all", "sampled", "none"):
        s = Session(Config(device="cpu", sample_every=3))
        s.grad_norm_steps = when
        got = []
        for _ in range(6):
            r = s.step()
            got.append(r.grad_norms is not None)
            if r.grad_norms is not None:
                name, p = s.param_names[0], s.params[0]
                assert abs(r.grad_norms[name] - float(torch.linalg.vector_norm(p.grad))) \
                    <= 1e-6 * max(1.0, r.grad_norms[name])
        seen[when] = got
    assert seen == {"all": [True] * 6, "sampled": [True, False, False] * 2, "none": [False] * 6}
