"""The Code panel: the loop of the config it is given, and Copy as script copies the
whole program that loop is the end of."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton

from gradviz.plain.config.config import Config
from gradviz.plain.program.loop_code import loop_code
from gradviz.plain.program.script import script_text
from gradviz.qt.widgets.code_view import CodeView


def test_copy_as_script_copies_the_program_of_the_config(qtbot):
    view = CodeView()
    qtbot.addWidget(view)
    button = view.findChild(QPushButton, "copyScriptButton")
    assert button is not None and not button.isEnabled()   # no config yet
    cfg = Config(strategy="separate", accumulate=2, detach=(1,))
    view.set_config(cfg)
    assert view.code() == loop_code(cfg)
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.LeftButton)
    copied = QApplication.clipboard().text()
    assert copied == script_text(cfg)
    assert copied.endswith(view.code())
    view.set_config(cfg.replace(strategy="in-loop"))
    qtbot.mouseClick(button, Qt.LeftButton)
    assert "total += term" in QApplication.clipboard().text()


def _marked(view: CodeView) -> list[str]:
    return [m.cursor.block().text() for m in view.text.extraSelections()]


def test_a_change_of_settings_marks_the_lines_it_changed_and_only_those(qtbot):
    view = CodeView()
    qtbot.addWidget(view)
    view.set_config(Config())
    assert _marked(view) == []                 # the first loop: nothing to compare with
    view.set_config(Config(detach=(1,)))
    marked = _marked(view)
    assert any("z.detach()" in line for line in marked)
    unchanged = ("torch.manual_seed", "optimizer.step()", "total.backward()",
                 "optimizer.zero_grad()")
    assert not any(word in line for line in marked for word in unchanged)
    assert "marked" in view.title.text()
    view.set_config(Config(detach=(1,), strategy="separate"))
    marked = _marked(view)
    assert any("term.backward(" in line for line in marked)
    assert not any("z.detach()" in line for line in marked)   # last time's change


def test_the_changed_line_is_scrolled_into_view_in_a_short_panel(qtbot):
    view = CodeView()
    qtbot.addWidget(view)
    view.resize(700, 130)                      # Code as a short dock below the plots
    view.show()
    qtbot.waitExposed(view)
    view.set_config(Config())
    view.set_config(Config(retain_grad=True))  # a change near the end of the loop
    marks = view.text.extraSelections()       # held: the marks' cursors belong to it
    assert marks and all(
        view.text.viewport().rect().contains(view.text.cursorRect(m.cursor))
        for m in marks)                        # the whole change in view: it fits
    assert view.text.verticalScrollBar().value() > 0      # it had to scroll to get there
    view.set_config(Config(retain_grad=True, zero_grad=False))   # one near the top
    marks = view.text.extraSelections()
    first = view.text.cursorRect(marks[0].cursor)
    assert view.text.viewport().rect().contains(first)


def test_the_marks_follow_the_theme(qtbot):
    from gradviz.qt.theme import DARK
    view = CodeView()
    qtbot.addWidget(view)
    view.set_config(Config())
    view.set_config(Config(detach=(1,)))
    marks = view.text.extraSelections()
    light = marks[0].format.background().color().name()
    view.apply_theme(DARK)
    marks = view.text.extraSelections()
    dark = marks[0].format.background().color().name()
    assert light != dark


def test_in_a_narrow_dock_the_title_has_a_line_of_its_own(qtbot):
    view = CodeView()
    qtbot.addWidget(view)
    view.resize(330, 300)       # Code beside What happened on a 1024-px screen
    view.show()
    view.set_config(Config())
    view.set_config(Config(detach=(1,)))   # the longer title, with the marked note
    qtbot.waitUntil(lambda: view.title_above() and
                    view.title.geometry().bottom() <= view.copy_button.geometry().top())
    lines = view.title.height() / view.title.fontMetrics().lineSpacing()
    assert lines < 3.5, view.title.text()        # beside the buttons: seven lines
    view.resize(1200, 300)
    qtbot.waitUntil(lambda: not view.title_above())


@pytest.mark.parametrize("height", [260, 200])   # ~4 rows of code: the stage at 1024x768
@pytest.mark.parametrize("lesson, index, key", [
    ("one-pass-or-k", 4, "z.data.mul_(0.5)"),
    ("aggregate-conflicts", 1, "jac_to_grad(trunk_params, UPGrad())"),
])
def test_a_slides_key_line_is_in_view_where_its_whole_change_is_not(qtbot, lesson, index,
                                                                      key, height):
    """At 1024x768 after Ctrl+= twice the stage's Code panel showed four or five lines
    from the first changed one: lesson 12 slide 5's `z.data.mul_(0.5)` and lesson 13
    slide 2's mtl_backward / jac_to_grad were below the fold."""
    from gradviz.plain.lessons.lessons import find_lesson
    slides = find_lesson(lesson).slides
    view = CodeView()
    qtbot.addWidget(view)
    view.set_wrapped(True)                     # as on the stage
    view.set_text_scale(1.3225)
    view.resize(380, height)
    view.show()
    qtbot.waitExposed(view)
    view.set_config(slides[index - 1].config)
    view.set_config(slides[index].config)
    text = view.text
    document = text.document()
    line = next(b for b in range(document.blockCount())
                if key in document.findBlockByNumber(b).text())
    assert line in view.changed
    layout = document.documentLayout()
    first, last = (layout.blockBoundingRect(document.findBlockByNumber(n))
                   for n in (view.changed[0], view.changed[-1]))
    assert last.bottom() - first.top() > text.viewport().height()   # not all of it fits
    shown = text.verticalScrollBar().value()
    rect = layout.blockBoundingRect(document.findBlockByNumber(line))
    # the line's first row (its call; a long comment wraps below it) in view
    row = text.fontMetrics().height()
    assert shown <= rect.top() and rect.top() + row <= shown + text.viewport().height()
