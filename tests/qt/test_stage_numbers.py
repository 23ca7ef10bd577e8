"""Issue 45, item 4: every point of a slide visible without a mouse, its numbers read from
the back row. In the window at 1024x768, driven as a lecturer does (PageDown, Ctrl+=):
what hovering z showed on lesson 06's first slide is under its graph; lesson 14's "above
zero" is a number beside its next slide's exact zero; the digits lesson 13's narration
points at (the matrix's, the line under it, the figures) have capitals 14 px high at
least, also after Ctrl+= twice."""
import warnings

import pytest
import torch
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics

from gradviz.plain.lessons.lessons import find_lesson

from shared_window import shared_window_fixture, window_fixture  # noqa: F401
from waits import WAIT_MS

BODY_CAP_PX = 14   # the narration's capitals at 1024x768, at the normal text size


def projector(w) -> None:
    """The window at 1024x768 whatever the offscreen screen's size (800x600): drawn as
    for a picture, which the screen fitting leaves as it is."""
    w.drawn_off_screen = True
    w.resize(1024, 768)
    assert (w.width(), w.height()) == (1024, 768)


def cap(widget_or_font) -> int:
    font = widget_or_font.font() if hasattr(widget_or_font, "font") else widget_or_font
    return QFontMetrics(font).capHeight()


def pytorch_non_leaf_warning() -> str:
    """PyTorch's own first sentence when a non-leaf's .grad is read (plain PyTorch)."""
    z = torch.ones(2, requires_grad=True) * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert z.grad is None
    return str(caught[0].message).split(". ")[0]


@pytest.mark.parametrize("presses", [0, 2])
def test_what_hovering_z_showed_is_said_on_lesson_06s_first_slide(qtbot, window, presses):
    """It told the hall to hover z for PyTorch's own warning. Now z's facts and that
    warning are said with the narration, at its size and whole with it (under the graph
    after Ctrl+= twice, they left the graph a strip of boxes: the stage places them as
    the narration's)."""
    w = window
    projector(w)
    w.lessons.open_named("leaves-and-grad")
    for _ in range(presses):
        qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
    slide = find_lesson("leaves-and-grad").slides[0]
    assert "hover" not in slide.narration          # nothing asks the hall for a mouse
    narration = w.lessons.narration
    facts = narration.facts
    qtbot.waitUntil(lambda: facts.isVisible() and "PyTorch:" in facts.text(),
                    timeout=WAIT_MS)
    text = facts.text()
    assert text.splitlines()[0] == "z: requires_grad=True · not a leaf · .grad is None"
    assert pytorch_non_leaf_warning() in text
    # read as the narration is, whole with it, inside its rect on the stage
    qtbot.waitUntil(lambda: w.lessons.stage.placement.narration_whole
                    and facts.height() >= facts.heightForWidth(facts.width()),
                    timeout=WAIT_MS)
    assert cap(facts) >= BODY_CAP_PX and facts.font() == narration.text.font()
    assert narration.rect().contains(facts.geometry())
    # the next slide (z.retain_grad()) says none: its narration says what the box does
    qtbot.keyClick(w, Qt.Key_PageDown)
    qtbot.waitUntil(lambda: w.model.slide == 1, timeout=WAIT_MS)
    assert not facts.isVisible()


def image_number(w) -> str:
    """The number in lesson 14's figure of the image head's push at z ("…" until then)."""
    line = next((t for t in w.lessons.narration.figures.text().splitlines()
                 if t.startswith("image head's push")), "")
    return line.rsplit(" ", 1)[-1]


def test_lesson_14s_above_zero_is_a_number_beside_its_next_slides_exact_zero(qtbot,
                                                                            window):
    """On the chart the image head's push (about 0.001 beside the quadrant head's 0.07)
    lay along 0 as the next slide's exact zero does."""
    w = window
    projector(w)
    w.lessons.open_named("cnn-two-heads")
    qtbot.waitUntil(lambda: image_number(w)[:1].isdigit(), timeout=WAIT_MS)
    above = image_number(w)
    assert float(above) > 0 and above != "0.0000"
    assert cap(w.lessons.narration.figures) >= BODY_CAP_PX
    qtbot.keyClick(w, Qt.Key_PageDown)
    qtbot.waitUntil(lambda: w.model.slide == 1 and image_number(w) == "0.0000",
                    timeout=WAIT_MS)


@pytest.mark.parametrize("presses", [0, 2])
def test_the_digits_lesson_13s_narration_points_at_are_read_from_the_back(qtbot, window,
                                                                          presses):
    """13/1 at 1024x768: the matrix's numbers had capitals 11 px high (7 after Ctrl+=
    twice), the line under it ("trunk step 0.161", "head1: loss −0.0049") 8 px. Now 14 at
    least, also after Ctrl+= twice (the matrix's font steps down, never below the
    narration's normal size, where the larger one has no room)."""
    w = window
    projector(w)
    w.lessons.open_named("aggregate-conflicts")
    for _ in range(presses):
        qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)
    cosine = w.cosine
    # played to its stop: the step's readout under the matrix, head 1's line in it
    qtbot.waitUntil(lambda: not w.model.running and "head1: loss" in cosine.update_line.text(),
                    timeout=WAIT_MS)
    stage = w.lessons.stage

    def settled() -> bool:
        numbers = cosine._texts[0][1].textItem.font()
        return (stage.placement is not None and cap(numbers) >= BODY_CAP_PX
                and cap(cosine.update_line) >= BODY_CAP_PX)
    qtbot.waitUntil(settled, timeout=WAIT_MS)
    assert cap(w.lessons.narration.figures) >= BODY_CAP_PX
    # the line under the matrix whole, in the panel
    line = cosine.update_line
    assert line.height() >= line.heightForWidth(line.width())
    assert cosine.rect().contains(line.geometry())
