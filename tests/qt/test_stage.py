"""The lesson stage with every bundled slide's real narration, at a projector's room and
text sizes: the narration whole (its text never scrolled), every panel inside the stage
and none over another."""
import pytest
from PySide6.QtWidgets import QWidget

from gradviz.core.lessons import bundled_names, find_lesson
from gradviz.qt.stage import Stage
from gradviz.qt.theme import LIGHT, TEXT_STEP
from gradviz.qt.widgets.narration_view import NarrationView

# the stage's room in a maximised window on a 1024x768 and a 1280x720 screen
ROOMS = [(1020, 660), (1276, 612)]
SLIDES = [(name, i) for name in bundled_names() for i in range(len(find_lesson(name).slides))]


@pytest.fixture(scope="module")
def stage(qapp):
    narration = NarrationView()
    stage = Stage(narration)
    stage.panel_widgets = {}
    yield stage
    stage.deleteLater()


@pytest.mark.parametrize("room", ROOMS)
@pytest.mark.parametrize("presses", [0, 2])    # normal text, and Ctrl+= twice
def test_every_slide_is_whole_on_the_stage(qtbot, stage, room, presses):
    theme = LIGHT.zoomed(TEXT_STEP ** presses)
    stage.narration.apply_theme(theme)
    stage.resize(*room)
    stage.show()
    qtbot.waitExposed(stage)
    cut = []
    for name, index in SLIDES:
        lesson = find_lesson(name)
        slide = lesson.slides[index]
        stage.narration.show_slide(lesson.title, slide, index, len(lesson.slides))
        panels = [(p, stage.panel_widgets.setdefault(p, QWidget()), None) for p in slide.panels]
        stage.show_slide(panels, slide.layout, theme.zoom, stage.narration.height_for_width)
        qtbot.waitUntil(lambda: stage.narration.text.viewport().width() > 0)
        text = stage.narration.text
        if text.document().size().height() > text.viewport().height() + 1:
            cut.append((name, index + 1))
        parts = [stage.slots[p].geometry() for p in slide.panels] + [stage.narration.geometry()]
        for i, a in enumerate(parts):
            assert stage.rect().contains(a), (name, index, a)
            assert not any(a.intersects(b) for b in parts[i + 1:]), (name, index)
    assert cut == []
