"""A backward sweep's timing, Qt-free: a slide's turn per box, the pace's share where it
sets none, and how long the engine holds a played backward phase for its sweep."""
import pytest

from gradviz.plain.graph.graph_data import GraphData, GraphNode
from gradviz.plain.graph.sweep_pace import (
    DRAW_MS,
    HOLD_MS,
    backward_hold_s,
    box_ms,
    paced_sweep_ms,
    tick_ms,
)
from gradviz.plain.lessons.lessons import LessonError, parse_lesson

SLIDE = '''
title = "t"
[[slides]]
title = "s"
narration = "n"
{keys}
'''


@pytest.mark.parametrize("boxes, total, turn, tick", [
    (8, 1200, 0, 150),     # no sweep pace: the pace's share spread over the boxes
    (8, 100, 0, 40),       # ... never faster than 40 ms a box
    (2, 4000, 0, 400),     # ... nor slower than 400 ms
    (8, 4000, 500, 500),   # a slide's own turn: 0.5 s a box, past the old 400 ms bound
    (20, 4000, 500, 200),  # more boxes than it was held for (the op view): faster,
])                         # the sweep still whole before the next graph
def test_one_boxs_turn(boxes, total, turn, tick):
    assert tick_ms(boxes, total, turn) == tick


def test_a_sweep_pace_is_boxes_a_second():
    assert (box_ms(2), box_ms(1), box_ms(25), box_ms(0)) == (500, 1000, 40, 0)


def _chain(sweeps):
    """Ops with no module calls: each op is its own box in the module view."""
    nodes = [GraphNode(id=f"n{i}", label=f"op{i}", kind="op") for i in range(6)]
    return GraphData(nodes=nodes, sweeps=sweeps)


def test_the_engine_holds_a_backward_phase_for_its_last_calls_sweep():
    graph = _chain([["n0", "n1", "n2", "n3", "n4", "n5"], ["n1", "n2", "n3"]])
    assert paced_sweep_ms(graph, 500) == 3 * 500     # the last call's three boxes
    assert backward_hold_s(graph, 500) == pytest.approx((1500 + HOLD_MS + DRAW_MS) / 1000)
    assert backward_hold_s(graph, 0) == 0.0          # no sweep pace: the delay alone
    assert backward_hold_s(_chain([]), 500) == 0.0   # nothing swept (no per-node hooks)


@pytest.mark.parametrize("keys, error", [
    ('play = "phases"\nsweep_pace = 0.5', "sweep_pace must be boxes per second, 1 to 25"),
    ('play = "phases"\nsweep_pace = "slow"', "sweep_pace must be boxes per second"),
    ('sweep_pace = 2', 'sweep_pace needs play = "phases"'),
    ('play = "phases"\nsweep_pase = 2', "did you mean 'sweep_pace'"),
])
def test_a_bad_sweep_pace_is_one_line_naming_the_slide(keys, error):
    with pytest.raises(LessonError, match="slide 1") as caught:
        parse_lesson("x", SLIDE.format(keys=keys))
    assert error in str(caught.value) and "\n" not in str(caught.value)


def test_a_slides_sweep_pace_is_read():
    lesson = parse_lesson("x", SLIDE.format(keys='play = "phases"\nsweep_pace = 2'))
    assert lesson.slides[0].sweep_pace == 2.0
    assert parse_lesson("x", SLIDE.format(keys="")).slides[0].sweep_pace == 0.0
