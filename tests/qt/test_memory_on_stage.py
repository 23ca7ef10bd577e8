"""The memory chart on a lesson's stage, in the whole window: its node count's plot as
high as its bytes' where the node count is the slide's point (lesson 03's kept graphs,
at 1024x768 after Ctrl+= twice, the back row's size), and as the chart splits itself on
a slide about the bytes. The rule is tests/plain/test_memory_rows.py's (no window)."""
from PySide6.QtCore import Qt

from gradviz.plain.lessons.lessons import find_lesson
from gradviz.qt.theme import TEXT_STEP

from shared_window import shared_window_fixture, window_fixture  # noqa: F401


def _heights(chart) -> tuple[float, float]:
    """The bytes plot's and the nodes plot's drawing heights (their axes aside)."""
    return chart.plot.getViewBox().height(), chart.nodes_plot.getViewBox().height()

def _placed(w, name: str) -> bool:
    """The stage placed the slide's panel name where its placement says."""
    placement, slot = w.lessons.stage.placement, w.lessons.stage.slots.get(name)
    if placement is None or name not in placement.panels or slot is None:
        return False
    r = placement.panels[name]
    return slot.geometry().getRect() == (r.x, r.y, r.w, r.h)

def test_the_node_count_is_as_high_as_the_bytes_where_it_is_the_slides_point(qtbot, window):
    w, chart = window, window.memory
    w.drawn_off_screen = True   # laid out as on a 1024x768 screen, not the offscreen one
    w.resize(1024, 768)
    for _ in range(2):
        qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
    qtbot.waitUntil(lambda: abs(w.model.zoom - TEXT_STEP ** 2) < 1e-6)
    # slide 2: the kept graphs' node count climbs while their saved bytes stay flat
    w.lessons.open(find_lesson("leaky-graphs"), 1)
    qtbot.waitUntil(lambda: _placed(w, "memory") and not chart.side_by_side
                    and min(_heights(chart)) > 0
                    and abs(_heights(chart)[0] - _heights(chart)[1]) < 1.5)
    assert list(w.lessons.stage.placement.panels)[0] == "memory"   # the main panel
    bytes_high, nodes_high = _heights(chart)
    assert nodes_high >= bytes_high - 1
    # (split as on any slide, the nodes drew in a fifth of the chart's height)
    assert nodes_high > 0.3 * chart.plot_widget.height()
    # a slide about the bytes (lesson 09's peak, one pass against k): as the chart
    # splits itself, the bytes the larger
    w.lessons.open(find_lesson("accumulation"), 1)
    qtbot.waitUntil(lambda: _placed(w, "memory") and chart.nodes_share is None
                    and not chart.side_by_side and min(_heights(chart)) > 0
                    and _heights(chart)[1] < _heights(chart)[0])
    bytes_high, nodes_high = _heights(chart)
    assert nodes_high < 0.5 * bytes_high
