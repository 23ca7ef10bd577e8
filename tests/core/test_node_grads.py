"""Per-node and per-edge gradient norms of the last backward, checked against plain PyTorch
(torch.autograd.grad on a reference network built from the session's initial weights),
and the hooks that measure them: never on AccumulateGrad nodes, never piling up."""
import pytest
import torch

from gradviz.core.node_grads import NodeGradProbe
from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import (
    batch,
    loss_k,
    micro_batches,
    norm,
    ref_net,
    snapshot,
    weighted_sum,
    weights,
)

BASE = Config(device="cpu", heads=3, batch_size=32, probes="default", sample_every=1)
REL = 1e-5
DETACHED_IN_PLACE = "detached in-place"


# ---- plain PyTorch reference ----------------------------------------------------------
def _ref(cfg, init, x, targets):
    """(net, z, [head output], [L_k]) written out, head outputs kept for autograd.grad."""
    net = ref_net(cfg, init)
    z = net.trunk(x)
    outs = [head(z) for head in net.heads]
    return net, z, outs, [loss_k(k, o, t) for k, (o, t) in enumerate(zip(outs, targets))]


def _param_grads(net, target):
    names, params = zip(*net.named_parameters())
    grads = torch.autograd.grad(target, params, retain_graph=True, allow_unused=True)
    return {n: 0.0 if g is None else norm(g) for n, g in zip(names, grads)}


# ---- reading the captured graph -------------------------------------------------------
def _below(g, node_id):
    """Ids of the nodes whose gradient edges feed node_id (its inputs, forward sense)."""
    return [e.src for e in g.edges if e.dst == node_id and e.kind == "grad"]


def _loss(g, k):
    return next(n for n in g.by_kind("loss") if n.label == f"head{k}")


def _head_output_op(g, k):
    """The last head Linear's node: first AddmmBackward below head k's loss."""
    stack = [_loss(g, k).id]
    while stack:
        node = g.node(stack.pop())
        if node.label == "AddmmBackward0" and node is not _loss(g, k):
            return node
        stack.extend(_below(g, node.id))
    raise AssertionError("no head output node")


def _junction_edges(g, heads):
    """{k: edge from the trunk's last op (z's node) into head k's first op}."""
    out = {}
    for e in g.edges:
        src, dst = g.node(e.src), g.node(e.dst)
        if e.kind == "grad" and len(src.heads_reaching) == heads and len(dst.heads_reaching) == 1 \
                and src.kind == "op":
            out[dst.heads_reaching[0]] = e
    return out


def _params(g):
    return {n.label: n for n in g.by_kind("param")}


def _tracked(cfg):
    s = Session(cfg)
    s.track_node_grads = True
    return s, snapshot(s)


# ---- the numbers ----------------------------------------------------------------------
def test_sum_node_and_edge_norms_are_the_plain_pytorch_gradients():
    cfg = BASE.replace(strategy="sum", loss_weights=(0.5, 2.0, 1.0))
    s, init = _tracked(cfg)
    assert s.step() is not None, s.error
    g = s.graph()

    x, targets = batch(s, 0, cfg.batch_size)
    net, z, outs, losses = _ref(cfg, init, x, targets)
    total = weighted_sum(weights(cfg), losses)
    dz, *rest = torch.autograd.grad(total, [z, *outs, *losses], retain_graph=True)
    douts, dlosses = rest[:cfg.heads], rest[cfg.heads:]

    junction = _junction_edges(g, cfg.heads)
    assert sorted(junction) == list(range(cfg.heads))
    z_node = g.node(junction[0].src)
    assert z_node.grad_norm == pytest.approx(norm(dz), rel=REL)          # dTotal/dz
    for k in range(cfg.heads):
        loss = _loss(g, k)
        assert loss.grad_norm == pytest.approx(norm(dlosses[k]), rel=REL)   # = w_k
        (loss_fn,) = _below(g, loss.id)
        assert g.node(loss_fn).grad_norm == pytest.approx(norm(dlosses[k]), rel=REL)
        assert _head_output_op(g, k).grad_norm == pytest.approx(norm(douts[k]), rel=REL)
        (dz_k,) = torch.autograd.grad(weights(cfg)[k] * losses[k], z, retain_graph=True)
        assert junction[k].grad_norm == pytest.approx(norm(dz_k), rel=REL)
    for name, want in _param_grads(net, total).items():
        node = _params(g)[name]
        assert node.grad_norm == pytest.approx(want, rel=REL), name
        # each parameter has one consumer here: its edge carries the whole gradient
        (edge,) = [e for e in g.edges if e.src == node.id]
        assert edge.grad_norm == pytest.approx(want, rel=REL), name


def test_separate_shows_only_the_last_backward():
    cfg = BASE.replace(strategy="separate", loss_weights=(0.5, 2.0, 1.0))
    s, init = _tracked(cfg)
    for expected in ("zero_grad", "forward", "backward", "backward"):
        assert s.advance_phase().name == expected
    g = s.graph()   # after backward 2 of 3: head1's

    measured = [n for n in g.nodes if n.kind in ("op", "param", "loss")]
    assert {n.heads_reaching for n in measured} >= {(0,), (1,), (2,), (0, 1, 2)}
    for n in measured:
        if n.heads_reaching in ((0,), (2,)):
            assert n.grad_norm == 0.0, (n.label, n.heads_reaching)
        elif n.heads_reaching == (1,):
            assert n.grad_norm > 0.0, n.label
    for e in g.edges:
        if e.kind == "grad" and set(g.node(e.dst).heads_reaching) <= {0, 2}:
            assert e.grad_norm == 0.0

    # parameters show what this backward sent, not the .grad both backwards summed into
    x, targets = batch(s, 0, cfg.batch_size)
    net, _, _, losses = _ref(cfg, init, x, targets)
    want = _param_grads(net, weights(cfg)[1] * losses[1])
    for name, node in _params(g).items():
        assert node.grad_norm == pytest.approx(want[name], rel=REL, abs=1e-12), name
    trunk = dict(zip(s.param_names, s.params))["trunk.0.weight"]
    assert norm(trunk.grad) > _params(g)["trunk.0.weight"].grad_norm   # head0's is in .grad

    s.advance_phase()   # backward 3 of 3: head1 now received nothing
    g = s.graph()
    assert all(n.grad_norm == 0.0 for n in g.nodes if n.heads_reaching == (1,) and n.kind == "op")
    assert all(n.grad_norm > 0.0 for n in g.nodes if n.heads_reaching == (2,) and n.kind == "op")


def test_accumulate_shows_the_last_micro_batch():
    cfg = BASE.replace(accumulate=2)
    s, init = _tracked(cfg)
    assert s.step() is not None, s.error
    x, targets = micro_batches(s, 0, cfg.batch_size, 2)[-1]
    net, _, _, losses = _ref(cfg, init, x, targets)
    want = _param_grads(net, 0.5 * weighted_sum(weights(cfg), losses))   # scaled by 1/N
    for name, node in _params(s.graph()).items():
        assert node.grad_norm == pytest.approx(want[name], rel=REL), name


def test_all_heads_detached_the_trunk_receives_zero():
    cfg = BASE.replace(detach=(0, 1, 2), detach_mode="detach")
    s, _ = _tracked(cfg)
    assert s.step() is not None, s.error
    g = s.graph()
    trunk = [n for n in g.by_kind("param") if n.label.startswith("trunk.")]
    assert trunk and all(n.grad_norm == 0.0 for n in trunk)
    heads = [n for n in g.by_kind("param") if n.label.startswith("heads.")]
    assert all(n.grad_norm > 0.0 for n in heads)
    assert all(e.grad_norm is None for e in g.edges if e.kind in ("cut", "saved"))
    assert all(n.grad_norm is None for n in g.nodes if n.kind in ("saved", "input"))


# ---- on and off -----------------------------------------------------------------------
def test_tracking_off_measures_nothing():
    s = Session(BASE)
    assert s.track_node_grads is False
    s.step()
    g = s.graph()
    assert all(n.grad_norm is None for n in g.nodes)
    assert all(e.grad_norm is None for e in g.edges)


def test_probes_all_tracks_node_grads():
    s = Session(BASE.replace(probes="all"))
    assert s.step() is not None
    ops = s.graph().by_kind("op")
    assert ops and all(n.grad_norm is not None and n.grad_norm > 0 for n in ops)


def test_detach_in_place_lesson_still_raises_with_tracking():
    s, _ = _tracked(BASE.replace(detach=(1,), detach_mode="detach_"))
    assert s.step() is None
    assert DETACHED_IN_PLACE in s.error.message
    s.graph()   # the failed step's graph can still be drawn


# ---- hooks: never on parameters, never piling up --------------------------------------
def _hooks_on(node) -> int:
    """How many post-hooks node holds (ours excluded): one we add, counted, removed."""
    handle = node.register_hook(lambda grad_inputs, grad_outputs: None)
    count = len(handle.hooks_dict_ref()) - 1
    handle.remove()
    return count


def _accumulate_grad(p):
    return torch.autograd.graph.get_gradient_edge(p).node


@pytest.mark.parametrize("cfg", [BASE, BASE.replace(strategy="separate", accumulate=2),
                                 BASE.replace(keep_graphs=True)])
def test_hooks_never_touch_parameters_and_never_pile_up(cfg):
    s, _ = _tracked(cfg)
    counts = set()
    while s.step_index < 200:
        phase = s.advance_phase()
        assert phase.event is None, phase.event
        if phase.name == "backward" and s.step_index % 20 == 0:
            assert all(_hooks_on(_accumulate_grad(p)) == 0 for p in s.params)
        if phase.step_done:
            counts.add(s._node_grads.handle_count)
    assert len(counts) == 1 and counts.pop() > 0


def test_release_removes_every_hook():
    w = torch.randn(3, 3, requires_grad=True)
    probe = NodeGradProbe()
    y = (torch.randn(2, 3) @ w).tanh().sum()
    probe.watch([y.grad_fn])
    tanh = y.grad_fn.next_functions[0][0]
    assert probe.handle_count == 3 and _hooks_on(tanh) == 1
    assert _hooks_on(_accumulate_grad(w)) == 0
    probe.watch([(torch.randn(2, 3) @ w).sum().grad_fn])   # the next micro-batch
    assert _hooks_on(tanh) == 0 and probe.handle_count == 2
    probe.release()
    assert probe.handle_count == 0


def test_at_full_speed_only_sampled_steps_hook_the_graph():
    """The app raises sample_floor while training flat out: per-node hooks then cost a
    fifth of the speed, so only the sampled steps carry them."""
    s = Session(BASE)
    s.track_node_grads = True
    s.sample_floor = 4
    measured = []
    for _ in range(8):
        assert s.step() is not None, s.error
        ops = s.graph().by_kind("op")
        measured.append(all(n.grad_norm is not None for n in ops))
        assert s.node_grads_current == measured[-1]
    assert measured == [True, False, False, False, True, False, False, False]


def test_without_tracking_every_graph_is_current():
    s = Session(BASE)
    s.sample_floor = 4
    for _ in range(2):
        s.step()
        assert s.node_grads_current
