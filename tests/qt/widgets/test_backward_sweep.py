"""The backward pass animated in the order the autograd engine ran it: recorded here by
the test's own hooks on the graph's nodes, independently of gradviz's probe."""
import torch
from graph_panels import shown_graph_view

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.graph.graph_data import JUNCTION, LOSS, MODULE
from gradviz.plain.graph.module_graph import module_graph
from gradviz.qt.widgets.backward_sweep import WAITING

from waits import WAIT_MS

SEPARATE = Config(device="cpu", batch_size=16, strategy="separate", probes="all")


def _nodes_below(roots):
    """Every autograd node below roots but the leaves' AccumulateGrad (the test's walk)."""
    seen, stack, out = set(), [t.grad_fn for t in roots if t.grad_fn is not None], []
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        if type(fn).__name__ != "AccumulateGrad":
            out.append(fn)
        stack.extend(nxt for nxt, _ in fn.next_functions)
    return out


def _run_recording(config: Config):
    """One step phase by phase; the order each backward call ran the nodes in, as
    torch's hooks on them report it, and the session's graph after the last call."""
    session = Session(config)
    sweeps, handles, calls = [[]], [], 0
    while calls < config.heads:   # separate: one backward call per loss
        phase = session.advance_phase()
        if phase.name == "forward":
            for fn in _nodes_below(session.root_tensors()):
                handles.append(fn.register_hook(
                    lambda grads_in, grads_out, fn=fn: sweeps[-1].append(fn.name())))
        calls += phase.name == "backward"
        sweeps.append([])   # what fires in the next phase
    graph = session.graph(show_saved=False)   # after the last backward call
    for h in handles:
        h.remove()
    return [s for s in sweeps if s], graph


def test_each_backward_calls_order_is_the_one_the_autograd_engine_ran():
    torch.manual_seed(0)
    recorded, graph = _run_recording(SEPARATE)
    assert len(recorded) == 3 and len(graph.sweeps) == 3     # one per loss, separate
    labels = {n.id: n.label for n in graph.nodes}
    assert [[labels[i] for i in sweep] for sweep in graph.sweeps] == recorded


def test_the_module_view_lights_each_box_at_its_first_ops_turn(qtbot):
    recorded, graph = _run_recording(SEPARATE)
    boxes = module_graph(graph)
    view = shown_graph_view(qtbot, (1000, 700))
    assert view.module_view
    view.animate_next_backward(400)
    view.show_graph(graph, "after backward 3 of 3")
    qtbot.waitUntil(lambda: view.sweep.running, timeout=WAIT_MS)
    first = view.sweep.order[0]
    assert view.canvas.nodes[view.sweep.order[-1]].opacity() == WAITING   # still to come
    qtbot.waitUntil(lambda: not view.sweep.running, timeout=WAIT_MS)
    lit = view.sweep.lit
    by_id = {n.id: n for n in boxes.nodes}
    # in the order of each box's first op in the test's own record of the third call
    # (the op ids of the third call, position by position the test's own record: the
    # test above checks that they are)
    assert len(graph.sweeps[-1]) == len(recorded[-1])
    ran = graph.sweeps[-1]

    def first_turn(box_id):
        members = set(by_id[box_id].members)
        turns = [i for i, op in enumerate(ran) if op in members]
        return min(turns) if turns else None
    turns = [first_turn(b) for b in lit if by_id[b].kind != JUNCTION]
    assert turns == sorted(turns) and None not in turns
    # separate, third call: head 2's loss first, through z, down to the trunk's first layer
    assert by_id[first].kind == LOSS and 2 in by_id[first].heads_reaching
    assert "z" in lit and by_id[lit[-1]].label.startswith("trunk.0")
    assert not any(by_id[b].kind == MODULE and b.startswith(("heads.0", "heads.1"))
                   for b in lit)
    assert all(item.opacity() == 1.0 for item in view.canvas.nodes.values())  # restored
