"""The module view of a captured graph, checked against plain PyTorch: which autograd
nodes each module call made (told apart by their creation order, _sequence_nr, between
markers a forward pre-hook and hook place), the module paths, the cut, the states."""
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.graph.graph_data import (
    CUT,
    DETACHED,
    EARLIER,
    FREED,
    GRAD,
    JUNCTION,
    LOSS,
    MODULE,
    OP,
    PARAM,
    STALE,
    GraphData,
    GraphEdge,
    GraphNode,
    ModuleCall,
)
from gradviz.plain.graph.graph_focus import focus_ids
from gradviz.plain.graph.module_graph import JUNCTION_ID, module_graph

from core_reference import (
    RefNet,
    batch,
    loss_k,
    made_nodes,
    norm,
    ref_net,
    sequence_marker,
    snapshot,
    weighted_sum,
    weights,
)

BASE = Config(device="cpu", heads=3, batch_size=32, sample_every=1)


def _leaf_paths(net: nn.Module) -> set[str]:
    return {n for n, m in net.named_modules() if n and not list(m.children())}


def _ops_by_module(net: nn.Module, x, targets) -> dict[str, list[str]]:
    """Plain PyTorch: {module path: sorted names of the autograd nodes its call made},
    nodes assigned by their sequence number lying between the call's two markers."""
    spans, handles = {}, []
    for name, m in net.named_modules():
        if name and not list(m.children()):
            handles.append(m.register_forward_pre_hook(
                lambda mod, inp, name=name: spans.__setitem__(name, [sequence_marker(), None])))
            handles.append(m.register_forward_hook(
                lambda mod, inp, out, name=name: spans[name].__setitem__(1, sequence_marker())))
    try:
        z = net.trunk(x)
        losses = [loss_k(k, head(z), t) for k, (head, t) in enumerate(zip(net.heads, targets))]
    finally:
        for h in handles:
            h.remove()
    found: dict[str, list[str]] = {name: [] for name in spans}
    for fn in made_nodes(losses):
        nr = fn._sequence_nr()
        for name, (lo, hi) in spans.items():
            if lo < nr < hi:
                found[name].append(type(fn).__name__)
    return {name: sorted(ops) for name, ops in found.items()}


def _graph(cfg, steps=1, **graph_kw):
    s = Session(cfg)
    for _ in range(steps):
        assert s.step() is not None, s.error
    return s, s.graph(show_saved=False, **graph_kw)


def _box(view, path):
    return next(n for n in view.nodes if n.kind == MODULE and n.label == path)


def _ops_of(graph: GraphData, box: GraphNode) -> list[str]:
    members = set(box.members)
    return sorted(n.label for n in graph.nodes if n.id in members and n.kind == OP)


# ---- which module made which op ----------------------------------------------------
def test_one_box_per_leaf_module_call_holding_exactly_the_ops_it_made():
    s, g = _graph(BASE)
    view = module_graph(g)
    net = RefNet(BASE.heads, BASE.trunk_width, BASE.trunk_depth)
    assert {n.label for n in view.by_kind(MODULE)} == _leaf_paths(net)
    init = snapshot(Session(BASE))
    x, targets = batch(s, 0, BASE.batch_size)
    want = _ops_by_module(ref_net(BASE, init), x, targets)
    for path, ops in want.items():
        assert _ops_of(g, _box(view, path)) == ops, path


def test_parameters_fold_into_their_module_and_sizes_read_from_the_weights():
    s, g = _graph(BASE)
    view = module_graph(g)
    assert not view.by_kind(PARAM)           # every leaf is in its module's box
    by_id = {n.id: n for n in g.nodes}
    for name, p in zip(s.param_names, s.params):
        path = name.rpartition(".")[0]
        box = _box(view, path)
        assert name in {by_id[m].label for m in box.members}
        if name.endswith(".weight"):             # Linear(in, out): weight is (out, in)
            assert box.detail == f"Linear {p.shape[1]}→{p.shape[0]}"
    assert _box(view, "trunk.1").detail == "Tanh"


def test_every_op_sits_in_exactly_one_box_and_boxes_link_the_forward_order():
    _, g = _graph(BASE)
    view = module_graph(g)
    owners: dict[str, list[str]] = {}
    for box in view.nodes:
        for m in box.members:
            owners.setdefault(m, []).append(box.id)
    ops = [n.id for n in g.nodes if n.kind == OP]
    assert all(len(owners.get(op, [])) == 1 for op in ops)
    links = {(e.src, e.dst) for e in view.edges if e.kind == GRAD}
    ids = {n.label: n.id for n in view.nodes}
    for a, b in (("trunk.0", "trunk.1"), ("trunk.1", "trunk.2"), ("heads.1.0", "heads.1.1")):
        assert (ids[a], ids[b]) in links
    assert (ids["trunk.2"], JUNCTION_ID) in links
    for k in range(BASE.heads):
        assert (JUNCTION_ID, ids[f"heads.{k}.0"]) in links
        assert (ids[f"heads.{k}.2"], ids[f"head{k}"]) in links
    assert all(e.src != e.dst for e in view.edges)


def test_loss_boxes_hold_the_loss_functions_ops():
    s, g = _graph(BASE)
    view = module_graph(g)
    for k in range(BASE.heads):
        loss = next(n for n in view.by_kind(LOSS) if n.label == f"head{k}")
        out = torch.zeros(4, 1 if k % 2 == 0 else 3, requires_grad=True)
        target = torch.zeros(4, 1) if k % 2 == 0 else torch.zeros(4, dtype=torch.long)
        fn, want = loss_k(k, out, target).grad_fn, []
        while fn is not None and fn.next_functions:   # the plain loss's own nodes
            want.append(type(fn).__name__)
            fn = fn.next_functions[0][0]
        assert _ops_of(g, loss) == sorted(want)


# ---- the junction, the cut, the states ------------------------------------------------
def test_detach_cut_runs_from_z_to_the_detached_heads_first_module():
    _, g = _graph(BASE.replace(detach=(1,)))
    view = module_graph(g)
    ids = {n.label: n.id for n in view.nodes}
    cuts = [e for e in view.edges if e.kind == CUT]
    assert [(e.src, e.dst, e.label) for e in cuts] == [(JUNCTION_ID, ids["heads.1.0"],
                                                        "detach()")]
    into_head1 = {e.kind for e in view.edges if e.dst == ids["heads.1.0"]}
    assert into_head1 == {CUT}                    # no gradient edge crosses the cut
    assert _box(view, "heads.1.0").heads_reaching == (1,)
    assert view.node(JUNCTION_ID).heads_reaching == (0, 2)


def test_freed_after_backward_and_changed_in_place_after_the_step():
    s = Session(BASE.replace(strategy="separate"))
    phases = []
    while "backward" not in phases:
        phases.append(s.advance_phase().name)
    view = module_graph(s.graph(show_saved=False))
    # separate, retain auto: every backward but the last retains the whole graph
    assert {b.state for b in view.by_kind(MODULE)} == {"alive"}
    assert s.step() is not None
    view = module_graph(s.graph(show_saved=False))
    # the last backward (head 2's) freed what it ran through; heads 0 and 1 stay
    # retained, and optimizer.step() changed the weights they saved
    assert [_box(view, p).state for p in ("trunk.0", "trunk.2", "heads.2.0", "heads.2.2")] \
        == [FREED] * 4
    assert [_box(view, p).state for p in ("heads.0.0", "heads.1.2")] == [STALE] * 2
    assert _box(view, "heads.0.1").state != STALE        # Tanh saved its output, no weight

    # plain PyTorch: a weight a retained graph saved, changed by the step, fails backward
    net = RefNet(1, 4, 1)
    out = net.heads[0](net.trunk(torch.ones(2, 8)))
    out.sum().backward(retain_graph=True)
    with torch.no_grad():
        net.heads[0][2].weight.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    s = Session(BASE.replace(strategy="sum", retain_graph="always"))
    assert s.step() is not None
    view = module_graph(s.graph(show_saved=False))
    assert _box(view, "heads.0.2").state == STALE     # its saved weight moved


def test_junction_box_tells_retain_grad_and_detach_in_place():
    _, g = _graph(BASE.replace(retain_grad=True))
    z = module_graph(g).node(JUNCTION_ID)
    assert z.kind == JUNCTION and z.has_grad and not z.is_leaf
    s = Session(BASE.replace(detach=(2,), detach_mode="detach_"))
    assert s.step() is None and "detached in-place" in s.error.message   # PyTorch's own
    view = module_graph(s.graph(show_saved=False))
    assert view.node(JUNCTION_ID).is_leaf
    # heads 0 and 1 saved z before z.detach_(): their first Linear is what broke
    assert [_box(view, f"heads.{k}.0").state == DETACHED for k in range(3)] == [True, True, False]
    (cut,) = [e for e in view.edges if e.kind == CUT]
    assert (cut.src, cut.dst, cut.label) == (JUNCTION_ID, _box(view, "heads.2.0").id,
                                             "detach_()")


def test_junction_box_gradient_is_the_plain_dtotal_dz():
    cfg = BASE.replace(loss_weights=(0.5, 2.0, 1.0))
    s = Session(cfg)
    s.track_node_grads = True
    init = snapshot(s)
    assert s.step() is not None
    view = module_graph(s.graph(show_saved=False))
    x, targets = batch(s, 0, cfg.batch_size)
    net = ref_net(cfg, init)
    z = net.trunk(x)
    losses = [loss_k(k, h(z), t) for k, (h, t) in enumerate(zip(net.heads, targets))]
    (dz,) = torch.autograd.grad(weighted_sum(weights(cfg), losses), z)
    assert view.node(JUNCTION_ID).grad_norm == pytest.approx(norm(dz), rel=1e-5)


def test_rnn_time_steps_are_one_box_each_and_the_truncation_a_cut():
    s, g = _graph(BASE.replace(model="rnn"), steps=2)
    view = module_graph(g)
    labels = [n.label for n in view.by_kind(MODULE)]
    seq = s.data.x.shape[1] // s.model.trunk.ih.in_features     # time steps of the input
    assert sorted(lb for lb in labels if lb.startswith("trunk, step")) == \
        sorted(f"trunk, step {t}" for t in range(seq))
    assert "trunk.readout" in labels
    step0 = _box(view, "trunk, step 0")
    # each step's box holds that step's ih, hh and tanh(ih + hh), and both weights
    by_id = {n.id: n for n in g.nodes}
    assert {by_id[m].module for m in step0.members if by_id[m].kind == OP} == {
        "trunk.ih@0", "trunk.hh@0", "trunk@0"}
    assert {"trunk.ih.weight", "trunk.hh.weight"} <= {by_id[m].label for m in step0.members}
    links = {(e.src, e.dst) for e in view.edges if e.kind == GRAD}
    for t in range(seq - 1):
        assert (_box(view, f"trunk, step {t}").id, _box(view, f"trunk, step {t + 1}").id) in links
    (before,) = view.by_kind(EARLIER)
    (cut,) = [e for e in view.edges if e.kind == CUT]
    assert (cut.src, cut.dst) == (before.id, step0.id)
    opened = module_graph(g, expanded={"trunk@1"})
    assert "trunk, step 1" not in {n.label for n in opened.nodes}
    assert sum(n.label == "AddmmBackward0" and n.module.endswith("@1")
               for n in opened.nodes) == 2


def test_rnn_state_carried_without_truncation_reaches_the_step_before_as_one_edge():
    s = Session(BASE.replace(model="rnn", truncate="never", retain_graph="always"))
    s.step()
    s.step()   # fails at backward: the graph of step 0 is still drawn behind step 1's
    view = module_graph(s.graph(show_saved=False))
    (before,) = view.by_kind(EARLIER)
    assert len(before.members) > 5
    out_of_before = [e for e in view.edges if e.src == before.id]
    assert [(e.dst, e.kind) for e in out_of_before] == [(_box(view, "trunk, step 0").id,
                                                         GRAD)]


def test_an_expanded_box_shows_its_ops_in_place():
    _, g = _graph(BASE)
    view = module_graph(g, expanded={"trunk.0"})
    labels = {n.label for n in view.nodes}
    assert "trunk.0" not in labels and {"AddmmBackward0", "trunk.0.weight"} <= labels
    ids = {n.label: n.id for n in view.nodes}
    assert (ids["trunk.0.weight"], ids["TBackward0"]) in {(e.src, e.dst) for e in view.edges}


# ---- any graph at all -----------------------------------------------------------------
@st.composite
def _graphs(draw):
    n = draw(st.integers(1, 14))
    calls = [ModuleCall(f"c{i}", f"m{i}", "Linear", "Linear 1→1") for i in range(3)]
    kinds = st.sampled_from([OP, OP, PARAM, LOSS, "input", "saved", "total"])
    nodes = []
    for i in range(n):
        kind = draw(kinds)
        module = draw(st.sampled_from(["", "c0", "c1", "c2", "nope"]))
        label = f"m{module[1:]}.weight" if kind == PARAM else f"x{i}"
        nodes.append(GraphNode(f"n{i}", kind, label, module=module,
                               tensor="z" if i == 0 and kind == OP else ""))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1),
                      st.sampled_from([GRAD, GRAD, "saved", CUT]))
    edges = [GraphEdge(f"n{a}", f"n{b}", k) for a, b, k in draw(st.lists(pairs, max_size=25))]
    return GraphData(nodes, edges, calls), draw(st.sets(st.sampled_from(["c0", "c1"])))


@settings(max_examples=200, deadline=None)
@given(_graphs())
def test_any_graph_gets_a_consistent_module_view(case):
    graph, expanded = case
    view = module_graph(graph, expanded)
    ids = [n.id for n in view.nodes]
    assert len(ids) == len(set(ids))
    assert all(e.src in ids and e.dst in ids and e.src != e.dst for e in view.edges)
    seen = [m for box in view.nodes for m in box.members]
    assert len(seen) == len(set(seen))          # no op drawn twice


# ---- what a slide can focus on --------------------------------------------------------
def test_focus_names_pick_the_boxes_a_slide_is_about():
    s, g = _graph(BASE.replace(strategy="separate", detach=(1,)))
    view = module_graph(g)
    ids = {n.label: n.id for n in view.nodes}
    assert focus_ids(view, "cut") == {JUNCTION_ID, ids["heads.1.0"]}
    assert focus_ids(view, " Head 2 ") == {ids[p] for p in
                                           ("heads.2.0", "heads.2.1", "heads.2.2", "head2")}
    assert focus_ids(view, "junction") >= {JUNCTION_ID, ids["trunk.2"], ids["heads.0.0"]}
    assert {view.node(i).label for i in focus_ids(view, "trunk")} == {
        "trunk.0", "trunk.1", "trunk.2", "z"}
    changed = {n.id for n in view.by_kind(MODULE) if n.state == STALE}
    assert changed and focus_ids(view, "changed") == changed
    assert focus_ids(view, "") == set()
    # detach_() after head 0 saved z: the cut, and head 0's box it changed under it
    failed = Session(BASE.replace(detach=(1,), detach_mode="detach_"))
    assert failed.step() is None and "detached in-place" in failed.error.message
    in_place = module_graph(failed.graph(show_saved=False))
    assert {in_place.node(i).label for i in focus_ids(in_place, "cut")} == {
        "z", "heads.1.0", "heads.0.0"}
    assert _box(in_place, "heads.0.0").state == DETACHED
    with pytest.raises(ValueError) as err:
        focus_ids(view, "the moon")
    assert "\n" not in str(err.value) and "cut" in str(err.value)

    _, g = _graph(BASE.replace(model="rnn"), steps=2)
    rnn = module_graph(g)
    (before,) = rnn.by_kind(EARLIER)
    assert {before.id, _box(rnn, "trunk, step 0").id} <= focus_ids(rnn, "state")
