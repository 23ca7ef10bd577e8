"""Dialogs that carry outside text: a lesson's web link asks before it opens (and opens
only on yes), and warnings quoting a lesson or settings file show it as plain text."""
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer, QUrl
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QMessageBox

from gradviz.plain.config.config import Config
from gradviz.plain.lessons.lessons import Slide
from gradviz.qt import lesson_mode

ATTACK = "<img src=secret.png width=400 height=300>"


class ModalAnswer:
    """Presses `button` on the next message box, as a user would, once it is up (it
    runs its own event loop, so a timer looks for it); `seen` holds what each said."""

    def __init__(self, button):
        self.button, self.seen = button, []
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._poll)
        self.timer.start()

    def _poll(self) -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and box.isVisible():
            self.timer.stop()
            self.seen.append((box.objectName(), box.textFormat(), box.text()))
            box.button(self.button).click()


@pytest.fixture
def view(narration_view):
    return narration_view


def click_words(qtbot, view, words: str) -> None:
    """Click inside the first letters of `words` (a link's text) with the mouse."""
    document = view.text.document()
    found = document.find(words)
    assert not found.isNull()
    cursor = QTextCursor(document)
    cursor.setPosition(found.selectionStart() + 2)
    rect = view.text.cursorRect(cursor)
    with qtbot.waitSignal(view.text.anchorClicked, timeout=5000):
        qtbot.mouseClick(view.text.viewport(), Qt.LeftButton,
                         pos=QPoint(rect.x() - 3, rect.center().y()))


def show_link(view, target: str) -> str:
    view.show_slide("Links", Slide("Read more", Config(), f"See [the article here]({target})."),
                    0, 1)
    return view.text.toPlainText()


@pytest.mark.parametrize("target", ["https://example.org/autograd", "http://example.org/x?a=1"])
def test_a_web_link_opens_in_the_browser_only_after_yes(qtbot, view, target):
    before = show_link(view, target)
    answer = ModalAnswer(QMessageBox.Open)
    click_words(qtbot, view, "the article here")
    assert answer.seen == [("openLinkQuestion", Qt.PlainText,
                            f"Open this link from the lesson in your web browser?\n\n{target}")]
    assert view.opened == [QUrl(target)]
    assert view.text.toPlainText() == before          # the narration stays, not blanked
    assert view.link_note.text() == f"Link: {target}"


def test_a_web_link_declined_opens_nothing_and_keeps_the_narration(qtbot, view):
    before = show_link(view, "https://example.org/autograd")
    answer = ModalAnswer(QMessageBox.Cancel)
    click_words(qtbot, view, "the article here")
    assert len(answer.seen) == 1
    assert view.opened == []
    assert view.text.toPlainText() == before
    assert view.text.source().isEmpty()


@pytest.mark.parametrize("target", ["file:///etc/hostname", "javascript:alert(1)",
                                    "ftp://example.org/x", "mailto:a@example.org"])
def test_other_links_ask_nothing_and_open_nothing(qtbot, view, target):
    before = show_link(view, target)
    answer = ModalAnswer(QMessageBox.Open)
    click_words(qtbot, view, "the article here")
    answer.timer.stop()
    assert answer.seen == [] and view.opened == []
    assert view.text.toPlainText() == before


def test_a_link_with_markup_in_its_target_is_asked_about_as_plain_text(qtbot, view):
    target = "https://example.org/%3Cimg%20src=x.png%3E"
    show_link(view, target)
    answer = ModalAnswer(QMessageBox.Cancel)
    click_words(qtbot, view, "the article here")
    (name, text_format, text), = answer.seen
    assert text_format == Qt.PlainText and target in text


def test_a_bad_lesson_file_is_reported_as_plain_text(qtbot, shared_window, tmp_path,
                                                      monkeypatch):
    lesson = tmp_path / "hostile.toml"
    lesson.write_text(f'title = "x"\n[[slides]]\ntitle = "t"\nnarration = "n"\n'
                      f'config = {{ device = "{ATTACK}" }}\n')
    w = shared_window()
    monkeypatch.setattr(lesson_mode.QFileDialog, "getOpenFileName",
                        lambda *args, **kwargs: (str(lesson), ""))
    answer = ModalAnswer(QMessageBox.Ok)
    w.lessons.open_file()
    (name, text_format, text), = answer.seen
    assert name == "plainWarning" and text_format == Qt.PlainText
    assert ATTACK in text and text.startswith("lesson file ")
    assert "slide 1, config: device must be" in text


def test_a_settings_file_with_a_hostile_device_is_refused_as_plain_text(qtbot, shared_window,
                                                                         tmp_path):
    path = tmp_path / "hostile.toml"
    path.write_text(f'device = "{ATTACK}"\nheads = 5\n')
    w = shared_window()
    size = w.size()
    answer = ModalAnswer(QMessageBox.Ok)
    w.file_menu.open_config(str(path))
    (name, text_format, text), = answer.seen
    assert text_format == Qt.PlainText
    assert text == ("device must be auto, cpu, cuda, cuda:N, mps, meta, xpu or hpu "
                    f"(got '{ATTACK}')")
    assert w.controls.config().heads == Config().heads     # nothing of the file applied
    # not grown by the 9999-px image (a layout pass may still bring an offscreen window
    # up to its own least size, a few pixels more than the 800 px screen)
    assert w.width() <= max(size.width(), w.minimumSizeHint().width()) + 10
    assert w.height() <= max(size.height(), w.minimumSizeHint().height()) + 10
