"""render.style: the one place that decides strokes and how a byte count reads."""
from __future__ import annotations

import math

import pytest

from gradviz.plain.graph.graph_data import CUT, GRAD, LOSS, OP, SAVED_EDGE, TOTAL
from gradviz.render import style


@pytest.mark.parametrize("largest, unit", [(0, "B"), (1023, "B"), (33_028, "KiB"),
                                           (5 * 2 ** 20, "MiB"), (3 * 2 ** 30, "GiB"),
                                           (math.nan, "B")])
def test_byte_unit(largest, unit):
    assert style.byte_unit(largest)[0] == unit


@pytest.mark.parametrize("n, text", [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"),
                                     (33_028, "32.3 KiB"), (5 * 2 ** 20, "5.0 MiB")])
def test_format_bytes(n, text):
    assert style.format_bytes(n) == text


def test_node_borders():
    one, shared, dead = (style.node_border(OP, h) for h in ((2,), (0, 1), ()))
    assert (one.colour, one.dash) == (style.head_colour(2), style.SOLID)
    assert (shared.colour, shared.width) == (style.SHARED_COLOUR, style.SHARED_WIDTH)
    assert (dead.colour, dead.dash) == (style.DEAD_COLOUR, style.DOTTED)
    for kind in (LOSS, TOTAL):
        for heads in ((0,), (0, 1), ()):
            assert style.node_border(kind, heads).width >= style.LOSS_MIN_WIDTH


def test_edge_strokes():
    assert style.edge_stroke(CUT, ()).dash == style.DASHED
    assert style.edge_stroke(CUT, ()).colour == style.CUT_COLOUR
    assert style.edge_stroke(SAVED_EDGE, ()).dash == style.DOTTED
    assert not style.has_arrow(SAVED_EDGE) and style.has_arrow(GRAD) and style.has_arrow(CUT)
    dead = style.edge_stroke(GRAD, ())
    assert (dead.colour, dead.dash) == (style.DEAD_COLOUR, style.DOTTED)
    shared = style.edge_stroke(GRAD, (0, 2))
    assert shared.lines == (style.head_colour(0), style.head_colour(2))
    assert shared.colour == style.SHARED_COLOUR
    assert style.edge_stroke(GRAD, (1,)).lines == (style.head_colour(1),)
