"""Native layout: every node and edge placed, readable geometry, cancellation, speed."""
from __future__ import annotations

import math
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.graph.graph_data import (
    CUT,
    GRAD,
    LOSS,
    PARAM,
    SAVED,
    TOTAL,
    GraphData,
    GraphEdge,
    GraphNode,
)
from gradviz.render import graphviz_program
from gradviz.render.dot import node_label, to_dot
from gradviz.render.graphviz_program import GraphvizProgram, RenderError, find_graphviz
from gradviz.render.layout import (
    GraphLayout,
    LayoutCancelled,
    layout_dot,
    layout_graph,
)

from render_helpers import drawn_text, laid_out

posix_only = pytest.mark.skipif(os.name == "nt", reason="fake programs are shell scripts")


@pytest.fixture(scope="module")
def deep_graph() -> GraphData:
    """About 1,000 nodes: a 193-layer trunk, saved tensors hidden."""
    session = Session(Config(trunk_depth=193))
    assert session.step() is not None
    graph = session.graph(show_saved=False)
    assert 950 <= len(graph.nodes) <= 1100
    return graph


def _triples(graph: GraphData) -> list[tuple[str, str, str]]:
    return [(e.src, e.dst, e.kind) for e in graph.edges]


def _overlapping(boxes, tol: float = 0.5) -> list[tuple]:
    """Pairs of boxes that intersect by more than tol points both ways (sweep over y)."""
    spans = sorted(((b.y - b.height / 2, b.y + b.height / 2, b.x - b.width / 2,
                     b.x + b.width / 2, name) for name, b in boxes.items()))
    hits = []
    for i, (_top, bottom, left, right, name) in enumerate(spans):
        for top2, _bottom2, left2, right2, name2 in spans[i + 1:]:
            if top2 > bottom - tol:
                break
            if min(right, right2) - max(left, left2) > tol:
                hits.append((name, name2))
    return hits


def _bezier(points, samples: int = 20):
    for i in range(0, len(points) - 1, 3):
        p0, c1, c2, p1 = points[i:i + 4]
        for k in range(samples + 1):
            t = k / samples
            a, b, c, d = (1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t * t * (1 - t), t ** 3
            yield (a * p0[0] + b * c1[0] + c * c2[0] + d * p1[0],
                   a * p0[1] + b * c1[1] + c * c2[1] + d * p1[1])


@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_every_node_has_a_box_and_every_edge_a_path(detach_graph, rankdir):
    assert "legend" not in layout_dot(detach_graph, rankdir)    # the Qt view draws its own
    result = layout_graph(detach_graph, rankdir)
    assert result.rankdir == rankdir
    assert list(result.nodes) == [n.id for n in detach_graph.nodes]
    assert [(e.src, e.dst, e.kind) for e in result.edges] == _triples(detach_graph)
    for box in result.nodes.values():
        assert box.width > 0 and box.height > 0
        assert -1 <= box.x - box.width / 2 and box.x + box.width / 2 <= result.width + 1
        assert -1 <= box.y - box.height / 2 and box.y + box.height / 2 <= result.height + 1
    for path in result.edges:
        assert len(path.points) >= 4 and (len(path.points) - 1) % 3 == 0
        assert all(math.isfinite(v) for p in path.points for v in p)
        # saved tensors hang off their op without an arrow; gradients and cuts have one
        assert (path.arrow_end is None) == (path.kind == SAVED)
        assert (path.label_pos is not None) == (path.kind == CUT)


def test_edges_between_the_same_pair_keep_their_kinds_and_order():
    graph = GraphData([GraphNode("a", PARAM, "w", shape=(2,)),
                       GraphNode("b", "op", "MmBackward0")],
                      [GraphEdge("a", "b", GRAD), GraphEdge("a", "b", CUT, "detach()"),
                       GraphEdge("a", "b", SAVED)])
    result = layout_graph(graph)
    assert [e.kind for e in result.edges] == [GRAD, CUT, SAVED]
    assert [e.label_pos is not None for e in result.edges] == [False, True, False]
    assert [e.arrow_end is not None for e in result.edges] == [True, True, False]


def test_boxes_are_sized_for_the_text_the_export_draws(detach_graph):
    result = layout_graph(detach_graph)
    drawn, _ = laid_out(to_dot(detach_graph, title="a title"))   # with legend and title
    for node in detach_graph.nodes:
        lines = drawn_text(drawn[node.id])
        assert lines == node_label(node).split("\n")
        box = result.nodes[node.id]
        widest = max(op["width"] for op in drawn[node.id]["_ldraw_"] if op.get("op") == "T")
        assert widest < box.width and box.width == pytest.approx(
            float(drawn[node.id]["width"]) * 72, abs=0.01)


@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_no_two_boxes_intersect(detach_graph, deep_graph, rankdir):
    assert _overlapping(layout_graph(detach_graph, rankdir).nodes) == []
    assert _overlapping(layout_graph(deep_graph, rankdir).nodes) == []


def test_top_down_puts_parameters_above_their_consumers_and_losses_lowest(detach_graph):
    result = layout_graph(detach_graph, "TB")
    y = {name: box.y for name, box in result.nodes.items()}
    for e in detach_graph.edges:   # forward direction runs down, params included
        assert y[e.src] < y[e.dst], (e.src, e.dst, e.kind)
    ends = {n.id for n in detach_graph.nodes if n.kind in (LOSS, TOTAL)}
    assert max(y, key=y.get) in ends
    assert min(y[n.id] for n in detach_graph.by_kind(LOSS)) > min(
        y[n.id] for n in detach_graph.by_kind(PARAM))


def test_left_to_right_puts_losses_rightmost(detach_graph):
    result = layout_graph(detach_graph, "LR")
    x = {name: box.x for name, box in result.nodes.items()}
    assert all(x[e.src] < x[e.dst] for e in detach_graph.edges)
    ends = {n.id for n in detach_graph.nodes if n.kind in (LOSS, TOTAL)}
    assert max(x, key=x.get) in ends
    assert min(x[n.id] for n in detach_graph.by_kind(LOSS)) > min(
        x[n.id] for n in detach_graph.by_kind(PARAM))


@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_the_cut_label_sits_beside_its_edge(detach_graph, rankdir):
    (cut,) = [e for e in layout_graph(detach_graph, rankdir).edges if e.kind == CUT]
    lx, ly = cut.label_pos
    nearest = min(math.dist((lx, ly), p) for p in _bezier(cut.points))
    assert nearest < 80     # " detach() " is ~83 pt wide at 22 pt: its centre is close


class _Recording(subprocess.Popen):
    started: list = []
    ready = threading.Event()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _Recording.started.append(self)
        _Recording.ready.set()


@pytest.fixture
def recording(monkeypatch):
    _Recording.started, _Recording.ready = [], threading.Event()
    monkeypatch.setattr(graphviz_program.subprocess, "Popen", _Recording)
    return _Recording


def test_cancelling_kills_the_engine_quickly_and_leaves_no_zombie(deep_graph, recording):
    cancel, set_at = threading.Event(), []

    def canceller():
        if recording.ready.wait(30):
            set_at.append(time.monotonic())
            cancel.set()

    thread = threading.Thread(target=canceller)
    thread.start()
    with pytest.raises(LayoutCancelled):
        layout_graph(deep_graph, cancel=cancel)
    raised_at = time.monotonic()
    thread.join()
    assert raised_at - set_at[0] < 2.0
    (proc,) = recording.started
    assert proc.returncode is not None            # waited for: not a zombie
    if sys.platform.startswith("linux"):
        assert proc.returncode < 0                # killed, not finished
        assert not Path(f"/proc/{proc.pid}").exists()


def test_a_cancel_set_before_the_layout_starts_no_process(detach_graph, recording):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(LayoutCancelled):
        layout_graph(detach_graph, cancel=cancel)
    assert recording.started == []


def test_layout_works_without_dot_on_path(empty_path, detach_graph):
    beside = Path(sys.executable).parent / "graphviz-pure"
    if not beside.exists() and not beside.with_suffix(".exe").exists():
        pytest.skip("graphviz-pure is not installed next to this Python")
    assert find_graphviz().name == "graphviz-pure"
    assert len(layout_graph(detach_graph).nodes) == len(detach_graph.nodes)


def _fake_program(directory: Path, body: str) -> GraphvizProgram:
    path = directory / "fake-dot"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return GraphvizProgram(str(path), "fake dot")


@posix_only
@pytest.mark.parametrize("body, words", [
    (f"{shutil.which('cat') or 'cat'} >/dev/null; echo not json", "could not read"),
    ('echo "Error: syntax error in line 1" >&2; exit 1', "fake dot failed (exit code 1)"),
    (f"exec {shutil.which('sleep') or 'sleep'} 10", "took longer than 0.3 s"),
    ('cat >/dev/null; echo \'{"bb": "0,0,10,10", "objects": [], "edges": []}\'', "no place"),
])
def test_engine_failures_are_one_line_render_errors(tmp_path, detach_graph, body, words):
    with pytest.raises(RenderError) as caught:
        layout_graph(detach_graph, program=_fake_program(tmp_path, body), timeout=0.3)
    assert words in str(caught.value) and "\n" not in str(caught.value)
    assert not isinstance(caught.value, LayoutCancelled)


def test_a_missing_program_is_a_render_error(detach_graph):
    with pytest.raises(RenderError, match="could not be started"):
        layout_graph(detach_graph, program=GraphvizProgram("/no/such/dot", "Graphviz dot"))


def test_an_empty_graph_needs_no_engine_and_a_bad_rankdir_is_refused():
    nowhere = GraphvizProgram("/no/such/dot", "x")
    assert layout_graph(GraphData(), program=nowhere) == GraphLayout(0, 0)
    with pytest.raises(ValueError, match="rankdir"):
        layout_graph(GraphData(), rankdir="sideways")
