"""Where the view goes when a slide's focus does not fit at the least label size, and
where a cut's label goes: the rules as plain numbers (plain.graph.graph_room)."""
from hypothesis import given
from hypothesis import strategies as st

from gradviz.plain.graph.graph_room import label_spot, segment_hits, window_start

# a top-down graph 1200 scene px tall: the input's box at the top, the heads' far below
INPUT, TRUNK = (0.0, 60.0), (100.0, 160.0)
HEADS = [(700.0, 760.0), (800.0, 860.0), (900.0, 960.0)]


def _whole(at, length, span):
    return span[0] >= at - 0.5 and span[1] <= at + length + 0.5


def test_a_focus_longer_than_the_view_is_framed_where_most_of_it_is_whole():
    # "changed in place" on the input, the trunk and three heads' boxes; a view 400
    # long holds the three heads, not the input side where the focus starts
    parts = [INPUT, TRUNK, *HEADS]
    at = window_start(400.0, parts, (-20.0, 1220.0))
    assert [p for p in parts if _whole(at, 400.0, p)] == HEADS


def test_of_equal_counts_the_view_nearest_the_focus_middle_wins():
    parts = [(0.0, 50.0), (500.0, 550.0), (1000.0, 1050.0)]   # one fits at a time
    at = window_start(100.0, parts, (-20.0, 1100.0))
    assert _whole(at, 100.0, parts[1])


def test_a_focus_that_fits_is_centred_and_the_view_stays_in_the_scene():
    at = window_start(600.0, [(100.0, 200.0)], (0.0, 400.0))
    assert at == 0.0   # the scene is shorter than the view: from its start
    at = window_start(200.0, [(500.0, 540.0)], (0.0, 2000.0))
    assert abs(at + 100.0 - 520.0) < 1e-9


@given(st.lists(st.tuples(st.floats(0, 2000), st.floats(1, 300)).map(
    lambda t: (t[0], t[0] + t[1])), min_size=1, max_size=10), st.floats(50, 900))
def test_no_start_holds_more_of_the_focus_whole(parts, length):
    bounds = (-20.0, 2320.0)
    at = window_start(length, parts, bounds)
    assert bounds[0] <= at <= max(bounds[0], bounds[1] - length)
    best = sum(_whole(at, length, p) for p in parts)
    for start in [p[0] for p in parts] + [p[1] - length for p in parts]:
        start = min(max(start, bounds[0]), bounds[1] - length)
        assert sum(_whole(start, length, p) for p in parts) <= best


def _overlap(a, b):
    return max(0, min(a[2], b[2]) - max(a[0], b[0])) * max(0, min(a[3], b[3]) - max(a[1], b[1]))


def test_a_cut_label_goes_beside_its_bar_where_no_box_is():
    # a diagonal bar between z (above left) and head 1 (below right); to the right of the
    # bar's right end stands head 1's box, which hid "det" of "detach_()"
    z, head1 = (100.0, 0.0, 260.0, 60.0), (230.0, 150.0, 400.0, 210.0)
    bar = [(260.0, 120.0), (200.0, 80.0), (230.0, 100.0)]
    x, y = label_spot((120.0, 30.0), bar, [z, head1], (0.0, 0.0, 600.0, 300.0))
    label = (x, y, x + 120.0, y + 30.0)
    assert _overlap(label, z) == 0 and _overlap(label, head1) == 0
    # beside the bar, not anywhere free
    assert min(abs(x - 266.0), abs(x + 120.0 - 194.0), abs(y + 30.0 - 74.0),
               abs(y - 126.0)) < 60


def test_a_cut_label_stays_in_the_drawing_when_it_can():
    # the bar at the drawing's right edge: right of it the label would be cut off
    x, y = label_spot((120.0, 30.0), [(590.0, 100.0)], [], (0.0, 0.0, 600.0, 300.0))
    assert x >= 0 and x + 120.0 <= 600.0 and 0 <= y and y + 30.0 <= 300.0


@given(st.lists(st.tuples(st.floats(0, 500), st.floats(0, 250)), min_size=0, max_size=6))
def test_the_label_covers_no_box_where_one_of_its_spots_is_free(corners):
    boxes = [(x, y, x + 80.0, y + 40.0) for x, y in corners]
    anchors = [(300.0, 150.0)]
    x, y = label_spot((100.0, 24.0), anchors, boxes, (0.0, 0.0, 600.0, 300.0))
    from gradviz.plain.graph.graph_room import label_candidates
    free = [c for c in label_candidates((100.0, 24.0), anchors, 6.0)
            if not any(_overlap(c, b) for b in boxes)]
    if free:
        assert not any(_overlap((x, y, x + 100.0, y + 24.0), b) for b in boxes)


def test_a_segment_hits_a_box_it_crosses_and_not_one_beside_it():
    box = (100.0, 100.0, 200.0, 150.0)
    assert segment_hits((50.0, 50.0), (150.0, 125.0), box)
    assert not segment_hits((50.0, 50.0), (96.0, 120.0), box)
    assert segment_hits((50.0, 50.0), (96.0, 120.0), box, pad=6.0)


def test_a_model_folds_once_it_does_not_fit_and_stays_folded_while_the_same():
    from gradviz.plain.graph.graph_room import fold_blocks
    assert fold_blocks(False, whole_legible=False, foldable=3, same_model=True)
    assert not fold_blocks(False, whole_legible=True, foldable=3, same_model=True)
    assert not fold_blocks(False, whole_legible=False, foldable=0, same_model=True)
    # folded, it fits: it stays folded (unfolded, it would not fit again)
    assert fold_blocks(True, whole_legible=True, foldable=3, same_model=True)
    # another model: decided afresh
    assert not fold_blocks(True, whole_legible=True, foldable=3, same_model=False)


def _cnn_like():
    """A trunk of one Conv2d-ReLU block and a Linear; a head of one Linear (as a CNN's
    model file records its calls: children first, each with its parent)."""
    from gradviz.plain.graph.graph_data import GRAD, OP, GraphData, GraphEdge, GraphNode, ModuleCall
    calls = [ModuleCall("trunk.0.0", "trunk.0.0", "Conv2d", "Conv2d 1→32 3×3", parent="trunk.0"),
             ModuleCall("trunk.0.1", "trunk.0.1", "ReLU", "ReLU", parent="trunk.0"),
             ModuleCall("trunk.0", "trunk.0", "Sequential", "Sequential", parent="trunk"),
             ModuleCall("trunk.1", "trunk.1", "Linear", "Linear 32→8", parent="trunk"),
             ModuleCall("trunk", "trunk", "Sequential", "Sequential"),
             ModuleCall("heads.0", "heads.0", "Linear", "Linear 8→1")]
    ops = [("h", "heads.0"), ("l", "trunk.1"), ("r", "trunk.0.1"), ("c", "trunk.0.0")]
    nodes = [GraphNode(i, OP, f"{i}Backward0", module=m) for i, m in ops]
    edges = [GraphEdge(a, b, GRAD) for (a, _), (b, _) in zip(ops, ops[1:])]
    return GraphData(nodes=nodes, edges=edges, modules=calls)


def test_a_block_of_layers_folds_into_one_box_named_by_its_layers():
    from gradviz.plain.graph.module_graph import module_graph
    from gradviz.plain.graph.module_runs import FOLD_PREFIX, CallTree, foldable_blocks
    graph = _cnn_like()
    assert foldable_blocks(CallTree(graph.modules)) == ["trunk.0"]   # not trunk itself
    unfolded = {n.label for n in module_graph(graph).nodes}
    assert {"trunk.0.0", "trunk.0.1", "trunk.1"} <= unfolded
    folded = module_graph(graph, fold=True)
    box = next(n for n in folded.nodes if n.id == FOLD_PREFIX + "trunk.0")
    assert (box.label, box.detail) == ("trunk.0", "Conv2d 1→32 3×3 · ReLU")
    assert not {"trunk.0.0", "trunk.0.1"} & {n.label for n in folded.nodes}
    # a double-click opens it again: its layers, each a box
    opened = module_graph(graph, frozenset({FOLD_PREFIX + "trunk.0"}), fold=True)
    assert {"trunk.0.0", "trunk.0.1"} <= {n.label for n in opened.nodes}


def test_the_focus_start_is_kept_where_it_holds_some_of_the_focus():
    # a view from the focus's start (its margin above it) too short for its first box:
    # it holds none of it; the start that holds the most is taken instead
    at = window_start(70.0, [INPUT, *HEADS], (-20.0, 1220.0), prefer=-40.0)
    assert any(_whole(at, 70.0, p) for p in [INPUT, *HEADS])
    assert window_start(130.0, [(0.0, 100.0), *HEADS], (-20.0, 1220.0), prefer=-40.0) > 600
    # from the start it holds the input and the trunk: kept, though the heads are more
    assert window_start(400.0, [INPUT, TRUNK, *HEADS], (-20.0, 1220.0), prefer=0.0) == 0.0
    # rows of equal boxes: from the start holds as many as any other, and cuts none there
    rows = [(92.0 * k, 92.0 * k + 89.0) for k in range(8)]
    assert window_start(200.0, rows, (-20.0, 760.0), prefer=0.0) == 0.0
