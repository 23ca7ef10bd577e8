"""Where the graph panel's key goes on a small screen, and how much of the screen the
first launch gives the graph: plain numbers (plain.graph.graph_key_fold, plain.window.dock_room)."""
import pytest

from gradviz.plain.graph.graph_key_fold import CANVAS_LEAST, key_folds
from gradviz.plain.window.dock_room import BOTTOM_SHARE, bottom_share, graph_beside


def test_the_key_folds_where_neither_below_nor_beside_leaves_three_rows_of_boxes():
    # the first window at 1024x768 before: a 450x215 panel under its caption, its key
    # 86 px below (the graph kept 129 px: 2 boxes of 18) or 157 px beside (293 px left)
    assert key_folds(450, 215, below=86, beside=157)
    # the graph's dock as the first window now has it: the key beside leaves 366 px
    assert not key_folds(608, 274, below=110, beside=242)
    # a tall panel keeps it below, a wide low one beside
    assert not key_folds(500, 500, below=120, beside=175)
    assert not key_folds(900, 210, below=84, beside=300)
    # the least room grows with the text: what fits at the normal size folds at 150%
    assert not key_folds(*CANVAS_LEAST, below=0, beside=0)
    assert key_folds(*CANVAS_LEAST, below=0, beside=0, zoom=1.5)


@pytest.mark.parametrize("screen, bottom, graph", [
    ((1024, 768), 0.5, 600),     # a projector: the graph 60% of the row it shares
    ((1280, 720), 0.5, 600),
    ((1366, 768), 0.5, 600),
    ((1920, 1080), BOTTOM_SHARE, None)])   # a large screen: as the docks are
def test_a_small_screen_gives_the_graph_half_the_height_and_most_of_its_row(screen,
                                                                            bottom, graph):
    assert bottom_share(*screen) == bottom
    assert graph_beside(*screen, row=1000) == graph
