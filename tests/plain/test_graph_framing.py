"""snap_start: where a view's edges fall so that they cut through no box of the graph
(a box whole in view or wholly out), the slide's focus kept whole."""
from hypothesis import given
from hypothesis import strategies as st

from gradviz.plain.graph.graph_focus import snap_start

# rows of a top-down module graph: 89 px boxes (badge included), 3 px apart
ROWS = [(92.0 * k, 92.0 * k + 89.0) for k in range(8)]


def _cut(at: float, length: float, spans) -> list:
    return [(a, b) for a, b in spans
            if a < at + length and b > at and not (a >= at - 0.5 and b <= at + length + 0.5)]


def test_a_box_cut_at_the_top_is_shown_whole_or_not_at_all():
    # 2.5 rows tall, starting in the middle of row 1 (its name above the view's top)
    at = snap_start(140.0, 190.0, ROWS, [], (-20.0, 760.0))
    assert len(_cut(140.0, 190.0, ROWS)) == 2       # rows 1 and 3, where it started
    assert len(_cut(at, 190.0, ROWS)) <= 1 and abs(at - 140.0) <= 89.0
    # a length the rows fit: no box cut at all
    at = snap_start(140.0, 3 * 92.0 - 1, ROWS, [], (-20.0, 760.0))
    assert _cut(at, 3 * 92.0 - 1, ROWS) == []


def test_the_focus_whole_at_the_start_stays_whole():
    # the view shows rows 0 and 1 whole and cuts row 2: the focus is row 0, so the view
    # may not move down to show row 2 whole
    at = snap_start(0.0, 230.0, ROWS, [ROWS[0]], (-20.0, 760.0))
    assert at <= ROWS[0][0] + 0.5
    assert _cut(at, 230.0, ROWS[:1]) == []


spans = st.lists(st.tuples(st.floats(0, 1000), st.floats(1, 200)).map(
    lambda t: (t[0], t[0] + t[1])), max_size=12)


@given(spans, st.floats(-50, 1050), st.floats(20, 600))
def test_the_view_stays_in_the_scene_and_moves_little(boxes, start, length):
    lo, hi = -20.0, 1220.0
    at = snap_start(start, length, boxes, boxes[:2], (lo, hi))
    assert lo <= at <= max(lo, hi - length)
    clamped = min(max(start, lo), max(lo, hi - length))
    reach = max([length / 4] + [b - a for a, b in boxes])
    assert abs(at - clamped) <= reach + 1e-6
    # never more boxes cut than where it started
    assert len(_cut(at, length, boxes)) <= len(_cut(clamped, length, boxes)) or \
        sum(map(lambda k: k in _cut(at, length, boxes), boxes[:2])) < \
        sum(map(lambda k: k in _cut(clamped, length, boxes), boxes[:2]))


def test_a_box_half_a_pixel_past_an_edge_counts_as_whole():
    # (a name drawn 0.5 px past the view's edge is read whole: no shift for it)
    assert snap_start(0.0, 100.0, [(0.0, 100.5)], [], (-1000.0, 1000.0)) == 0.0
    assert snap_start(0.0, 100.0, [(-0.5, 50.0)], [], (-1000.0, 1000.0)) == 0.0
