"""A lesson's narration is untrusted Markdown: shown without raw HTML, without loading
any image or resource (a real PNG, /dev/zero, a FIFO), without following a link in
place, and refused in one line naming the slide when it is too big or too deep."""
import os
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QEvent, QPoint, Qt, QUrl
from PySide6.QtGui import QColor, QHelpEvent, QImage, QTextCursor, QTextDocument
from PySide6.QtWidgets import QApplication, QTextBrowser, QToolTip

from gradviz.plain.config.config import Config
from gradviz.plain.lessons.lessons import Slide, bundled_names, find_lesson
from gradviz.plain.lessons.narration_limits import MAX_NESTING
from gradviz.qt import safe_markdown
from gradviz.qt.safe_markdown import InertDocument, has_images, tooltips
from gradviz.qt.widgets.narration_view import NarrationBrowser

RED = (255, 0, 0)


def slide(narration: str, title: str = "Attack") -> Slide:
    return Slide(title, Config(), narration)


@pytest.fixture
def requests(monkeypatch):
    """Every resource Qt asks the view or its documents for (there should be none)."""
    asked = []

    def record(owner):
        def load(self, kind, url):
            asked.append((owner, url.toString()))
            return None
        return load
    monkeypatch.setattr(InertDocument, "loadResource", record("document"))
    monkeypatch.setattr(NarrationBrowser, "loadResource", record("browser"))
    return asked


@pytest.fixture
def view(narration_view):
    return narration_view


def show(view, narration: str, index: int = 1, count: int = 3, title: str = "Attack"):
    view.show_slide("A hostile lesson", slide(narration, title), index, count)
    document = view.text.document()
    document.setTextWidth(view.text.viewport().width())
    document.size()                     # lays the whole document out, as painting does
    view.text.viewport().grab()         # ...and paints it


def red_pixels(view) -> int:
    image = view.text.viewport().grab().toImage().convertToFormat(QImage.Format_RGB32)
    pixels = np.frombuffer(image.constBits(), np.uint8).reshape(
        image.height(), image.bytesPerLine() // 4, 4)
    return int(np.sum((pixels[..., 2] == 255) & (pixels[..., 1] == 0) & (pixels[..., 0] == 0)))


@pytest.fixture
def red_png(tmp_path, monkeypatch):
    """A real 200x120 pure-red PNG, also reachable by a relative name from the cwd."""
    path = tmp_path / "secret.png"
    image = QImage(200, 120, QImage.Format_RGB32)
    image.fill(QColor(*RED))
    assert image.save(str(path))
    assert not QImage(str(path)).isNull()          # Qt could load it, were it asked
    monkeypatch.chdir(tmp_path)
    return path


@pytest.mark.parametrize("markdown", [
    "![the secret]({url})", "![the secret](secret.png)", "![the secret]({path})",
    "[![the secret]({url})](https://example.org)", "<img src=\"{path}\" alt=\"x\">",
    "<img src=secret.png width=400 height=300>", "<table background=\"{path}\"><tr><td>x",
    "<div style=\"background-image: url({path})\">x</div>", "![the secret][ref]\n\n[ref]: {url}"])
def test_a_local_image_is_never_loaded_or_drawn(view, red_png, requests, markdown):
    text = markdown.format(url=QUrl.fromLocalFile(str(red_png)).toString(), path=red_png)
    show(view, f"**Before** {text} after.")
    assert view.problem is None
    assert not has_images(view.text.document())
    assert requests == []
    assert red_pixels(view) == 0
    shown = view.text.toPlainText()
    assert "Before" in shown and "after." in shown
    if markdown.startswith(("!", "[!")):
        assert "the secret" in shown                # the image's alt text, as words
    else:
        assert "<" in shown                         # raw HTML is shown as typed


def test_the_red_check_sees_an_image_qt_draws(view, red_png):
    """The check above can fail: the same PNG in an ordinary QTextDocument is drawn red."""
    document = QTextDocument()
    document.setMarkdown(f"![x]({red_png})")
    view.text.setDocument(document)
    assert red_pixels(view) > 1000


class FifoWatch:
    """A FIFO whose opening for reading is noticed without anyone blocking: a writer
    thread waits in open(); a reader that opens it lets the writer in, which closes at
    once, so the reader sees an empty file and goes on."""

    def __init__(self, path):
        self.path, self.opened = str(path), threading.Event()
        os.mkfifo(self.path)
        self.thread = threading.Thread(target=self._write, daemon=True)
        self.thread.start()

    def _write(self):
        fd = os.open(self.path, os.O_WRONLY)
        self.opened.set()
        os.close(fd)

    def was_opened(self) -> bool:
        seen = self.opened.is_set()
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)   # free the writer
        self.thread.join(timeout=600)
        os.close(fd)
        return seen


def test_the_fifo_watch_sees_a_reader(tmp_path):
    watch = FifoWatch(tmp_path / "fifo.png")
    with open(watch.path, "rb") as f:               # what Qt's image loader would do
        assert f.read() == b""
    assert watch.opened.wait(timeout=600)
    assert watch.was_opened()


@pytest.mark.parametrize("name", ["![pipe]({path})", "![pipe](fifo.png)",
                                  "![pipe]({url})", "[![pipe](fifo.png)](fifo.png)"])
def test_a_fifo_as_an_image_is_never_opened(view, tmp_path, monkeypatch, requests, name):
    watch = FifoWatch(tmp_path / "fifo.png")
    monkeypatch.chdir(tmp_path)
    show(view, name.format(path=watch.path, url=QUrl.fromLocalFile(watch.path).toString()))
    assert not watch.was_opened()
    assert requests == [] and "pipe" in view.text.toPlainText()


@pytest.mark.parametrize("name", ["/dev/zero", "file:///dev/zero", "/dev/urandom"])
def test_dev_zero_as_an_image_is_never_read(view, requests, name):
    show(view, f"![endless]({name}) and more")
    assert requests == [] and not has_images(view.text.document())
    assert view.text.toPlainText() == "endless and more"


@pytest.mark.parametrize("url", ["file:///etc/hostname", "file:///etc/passwd", "http://x/y",
                                 "https://example.org/", "qrc:/x.png", "x.png", "/etc/hostname"])
def test_load_resource_answers_nothing(view, url):
    for kind in (QTextDocument.ImageResource, QTextDocument.HtmlResource,
                 QTextDocument.StyleSheetResource, QTextDocument.MarkdownResource):
        assert view.text.loadResource(kind, QUrl(url)) is None
        assert view.text.document().loadResource(kind, QUrl(url)) is None


def link_point(view, words: str) -> QPoint:
    """A point inside the first letters of `words` in the view (a link's text)."""
    document = view.text.document()
    found = document.find(words)
    assert not found.isNull()
    cursor = QTextCursor(document)
    cursor.setPosition(found.selectionStart() + 2)
    rect = view.text.cursorRect(cursor)
    return QPoint(rect.x() - 3, rect.center().y())


def click_link(qtbot, view, words: str) -> QUrl:
    with qtbot.waitSignal(view.text.anchorClicked, timeout=5000) as clicked:
        qtbot.mouseClick(view.text.viewport(), Qt.LeftButton, pos=link_point(view, words))
    return clicked.args[0]


@pytest.mark.parametrize("target", ["file:///etc/hostname", "/etc/hostname", "hostname",
                                    "../etc/passwd", "file:///etc/passwd"])
def test_a_clicked_local_link_shows_its_target_and_keeps_the_narration(
        qtbot, view, tmp_path, monkeypatch, target):
    (tmp_path / "hostname").write_text("THE FILE'S OWN TEXT\n")
    monkeypatch.chdir(tmp_path)
    opened = []
    view.open_url = opened.append
    show(view, f"**Notice:** read [the local file here]({target}) now.")
    before = view.text.toPlainText()
    url = click_link(qtbot, view, "the local file here")
    assert url.toString() == target
    assert view.text.toPlainText() == before
    assert "THE FILE'S OWN TEXT" not in view.text.toPlainText()
    assert view.text.source().isEmpty()               # nothing was navigated to
    assert view.link_note.isVisible() and view.link_note.textFormat() == Qt.PlainText
    assert view.link_note.text() == (f"Link: {target} (not opened: gradviz opens only "
                                     "http and https links)")
    assert opened == []


def hover(browser, point: QPoint) -> str:
    """The tooltip a pause of the mouse at point shows ('' for none)."""
    QToolTip.hideText()
    event = QHelpEvent(QEvent.ToolTip, point, browser.viewport().mapToGlobal(point))
    QApplication.sendEvent(browser.viewport(), event)
    return QToolTip.text() if QToolTip.isVisible() else ""


TITLED = '**Notice:** [the titled link]({url} "<img src={png} width=400 height=300>") here.'


def test_a_link_title_is_no_tooltip(qtbot, view, red_png, requests):
    show(view, TITLED.format(url="https://example.org", png=red_png))
    assert tooltips(view.text.document()) == []
    assert hover(view.text, link_point(view, "the titled link")) == ""
    assert requests == []


def test_the_hover_check_sees_a_tooltip_qt_shows(qtbot, view, red_png):
    """The check above can fail: an ordinary browser shows the title, as HTML."""
    browser = QTextBrowser()
    qtbot.addWidget(browser)
    browser.resize(700, 300)
    browser.show()
    qtbot.waitExposed(browser)
    browser.setMarkdown(TITLED.format(url="https://example.org", png=red_png))
    document = browser.document()
    cursor = QTextCursor(document)
    cursor.setPosition(document.find("the titled link").selectionStart() + 2)
    rect = browser.cursorRect(cursor)
    assert "<img src=" in hover(browser, QPoint(rect.x() - 3, rect.center().y()))
    QToolTip.hideText()


def refusal_line(index, count, title, problem):
    return f"Slide {index + 1} of {count} ({title}): its narration is not shown: {problem}."


def test_a_63_kb_table_is_refused_in_one_line_naming_the_slide(view, requests):
    row = "| " + " | ".join("cell" for _ in range(8)) + " |\n"
    table = "| " + " | ".join(f"h{c}" for c in range(8)) + " |\n|" + "---|" * 8 + "\n"
    table += row * (63_000 // len(row))
    assert len(table) >= 63_000
    show(view, table, index=1, count=3, title="A `big` table")
    expected = refusal_line(1, 3, "A big table",
                            f"it is {len(table):,} characters long; a slide's narration "
                            "may have at most 4,000")
    assert view.problem == expected
    assert view.text.toPlainText() == expected
    assert "\n" not in expected
    document = view.text.document()
    assert document.blockCount() == 1 and QTextCursor(document).currentTable() is None


@pytest.mark.parametrize("depth", [20, 30])
def test_deep_nesting_is_refused_in_one_line_naming_the_slide(view, depth):
    nested = "".join("  " * i + "- level\n" for i in range(depth))
    quoted = "> " * depth + "| a | b |\n" + "> " * depth + "|---|---|\n"
    for text in (nested, quoted):
        show(view, text, index=0, count=2)
        assert view.problem == refusal_line(
            0, 2, "Attack", f"it nests lists or quotes {depth} levels deep; a narration "
            f"may nest them at most {MAX_NESTING} deep")
        assert view.text.toPlainText() == view.problem


@pytest.mark.parametrize("depth", [20, 30])
def test_nested_html_tables_are_shown_as_typed_not_laid_out(view, depth):
    text = "<table><tr><td>" * depth + "deep" + "</td></tr></table>" * depth
    show(view, text)
    document = view.text.document()
    assert view.problem is None
    assert all(QTextCursor(b).currentTable() is None for b in blocks(document))
    assert "<table><tr><td>" in view.text.toPlainText()


def blocks(document):
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()


def test_the_document_structure_is_checked_too(monkeypatch):
    """Behind the text check, what Qt parsed is measured: with the text check off, a
    deep list is still refused."""
    monkeypatch.setattr(safe_markdown, "narration_problem", lambda text: None)
    document, problem = safe_markdown.markdown_document("- " * 12 + "x")
    assert problem == (f"it nests lists or quotes 12 levels deep; a narration may nest "
                       f"them at most {MAX_NESTING} deep")
    assert document.isEmpty()


def test_bundled_narrations_look_as_before(view):
    """Each bundled slide renders as Qt's own Markdown renders it, and within the limits."""
    for name in bundled_names():
        lesson = find_lesson(name)
        for i, s in enumerate(lesson.slides):
            view.show_slide(lesson.title, s, i, len(lesson.slides))
            assert view.problem is None
            plain = QTextDocument()
            plain.setDefaultFont(view.text.font())
            plain.setMarkdown(s.narration)
            assert view.text.document().toHtml() == plain.toHtml(), (name, i)
            assert view.text.toPlainText() == plain.toPlainText()


def test_the_title_and_lesson_name_show_literally(view, red_png):
    attack = "<img src=secret.png width=400 height=300>"
    view.show_slide(attack, slide("Fine.", title=attack), 0, 1)
    assert attack in view.heading.text().replace("&lt;", "<").replace("&gt;", ">")
    assert "<img" not in view.heading.text()
    assert view.heading.sizeHint().height() < 150       # two lines of text, no picture


MARKDOWNISH = st.lists(st.sampled_from(
    list("ab *_`#>-|[]()!<>:/\\.\n\t=\"'") +
    ["![", "](", "file:///etc/hostname", "/dev/zero", "x.png", "<img src=x.png>",
     "http://example.org", "<table>", '"<b>t</b>")', "[l](u 't')",
     "background-image:url(x.png)", "- ", "> ", "1. ",
     "| a |", "|---|", "```", "&lt;", "\u202e", "\x00"]), max_size=120).map("".join)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(MARKDOWNISH, st.text(max_size=300)))
def test_any_narration_renders_without_raising_or_loading(view, requests, text):
    show(view, text)
    assert requests == []
    assert not has_images(view.text.document()) and tooltips(view.text.document()) == []
    assert view.problem is None or "\n" not in view.problem


def test_a_lesson_file_with_a_huge_table_is_refused_in_one_line_naming_the_slide(
        qtbot, shared_window, tmp_path, monkeypatch):
    """Lesson loading checks the narration limits the view enforces, so the lecturer
    hears of it when opening the file, not from a blank slide mid-lecture."""
    from gradviz.qt import lesson_mode
    row = "| " + " | ".join("cell" for _ in range(8)) + " |\n"
    table = row * (62_000 // len(row))
    path = tmp_path / "hostile.toml"
    path.write_text('title = "Hostile"\n[[slides]]\ntitle = "Calm"\nnarration = "**Fine.**"\n'
                    f'[[slides]]\ntitle = "Frozen"\nnarration = """\n{table}"""\n')
    w = shared_window()
    monkeypatch.setattr(lesson_mode.QFileDialog, "getOpenFileName",
                        lambda *args, **kwargs: (str(path), ""))
    warned = []
    monkeypatch.setattr(lesson_mode, "warn", lambda parent, title, text: warned.append(text))
    w.lessons.open_file()
    chars = len(table.strip())               # the lesson keeps its text stripped
    assert warned == [f"lesson file '{path}', slide 2: the narration cannot be shown: it is "
                      f"{chars:,} characters long; a slide's narration may have at most "
                      f"4,000"]
    assert w.lessons.player.lesson is None   # nothing of it shown
