"""Which framing best_framing picks, on made-up costs: the text size the user asked for
is kept unless a smaller one is needed to show a box at all, or, beside a focus, to
clear the panel's edges of a dimmed neighbour."""
from PySide6.QtCore import QPointF

from gradviz.qt.widgets.graph_framing import best_framing


def _cost_cutting_a_name_from(start: float, whole_below: float = 0.0):
    """A view that cuts one name at start and at every larger scale and none smaller
    (a system dot's rows against the panel's height, after Ctrl+=); no box whole at or
    above whole_below."""
    def cost(scale: float, _middle: QPointF) -> tuple[int, int, int, int]:
        whole = 0 if scale >= whole_below > 0 else -3
        return 0, int(scale >= start * 0.999), whole, int(scale >= start * 0.999)
    return cost


def _pick(start, least, cost, shrink_to_clear):
    scale, _middle = best_framing(start, least, lambda s: QPointF(0, 0), cost,
                                  shrink_to_clear=shrink_to_clear)
    return scale


def test_without_a_focus_ctrl_plus_is_not_undone_to_clear_the_edges():
    start, least = 1.3, 1.0        # the text 1.3 times larger; 14 px at scale 1
    cost = _cost_cutting_a_name_from(start)
    assert _pick(start, least, cost, shrink_to_clear=False) >= start
    # beside a focus, a dimmed neighbour cut at every larger size: smaller clears it
    assert _pick(start, least, cost, shrink_to_clear=True) < start


def test_smaller_where_no_larger_size_shows_a_box_whole():
    start, least = 1.3, 1.0
    cost = _cost_cutting_a_name_from(start, whole_below=1.2)
    for shrink_to_clear in (False, True):
        scale = _pick(start, least, cost, shrink_to_clear)
        assert least * 0.999 <= scale < 1.2
