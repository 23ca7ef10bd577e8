"""A slide's facts (facts = true): what hovering the focused box shows, with the narration
(a clicker has no mouse); only for a focus that is one box, refused in one line
otherwise, and the box found in either view of the graph."""
import pytest

from gradviz.plain.graph.graph_data import JUNCTION, OP, GraphData, GraphNode
from gradviz.plain.graph.graph_focus import focused_box
from gradviz.plain.lessons.lessons import LessonError, find_lesson, parse_lesson

SLIDE = '''title = "t"
[[slides]]
title = "first"
narration = "n"
'''


def test_facts_are_shown_for_the_junction_and_refused_for_any_other_focus():
    lesson = parse_lesson("t", SLIDE + 'focus = "junction"\nfacts = true\n')
    assert lesson.slides[0].facts and lesson.slides[0].focus == "junction"
    assert not parse_lesson("t", SLIDE).slides[0].facts
    for extra, said in (('facts = true\n', "it needs focus = 'junction' (got '')"),
                        ('focus = "cut"\nfacts = true\n', "(got 'cut')"),
                        ('focus = "junction"\nfacts = "yes"\n', "facts must be true or false")):
        with pytest.raises(LessonError) as refused:
            parse_lesson("t", SLIDE + extra)
        assert said in str(refused.value) and "\n" not in str(refused.value)


def test_lesson_06s_first_slide_shows_z_s_facts():
    slide = find_lesson("leaves-and-grad").slides[0]
    assert slide.facts and slide.focus == "junction"


def test_the_focused_box_is_the_junction_or_the_op_that_made_z():
    z = GraphNode("j", JUNCTION, "z", tensor="z", requires_grad=True, is_leaf=False)
    op = GraphNode("o", OP, "TanhBackward0", tensor="z")
    other = GraphNode("p", OP, "AddmmBackward0")
    assert focused_box(GraphData(nodes=[other, op, z]), "junction") is z
    assert focused_box(GraphData(nodes=[other, op]), " Junction ") is op
    assert focused_box(GraphData(nodes=[other]), "junction") is None
    assert focused_box(GraphData(nodes=[other, op, z]), "cut") is None
