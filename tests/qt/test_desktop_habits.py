"""Desktop habits, driven as a user does: files dropped on the window (a lesson, settings,
a model file that asks first, a recorded run's folder, a file of no kind refused in one
line), File > Open Recent (it lists, opens, drops a gone file, refuses a stranger's
entry), the window's icon. (Open Recent across a restart: test_settings_security.py's
relaunch; `gradviz FILE` launched for real: test_screenshot_mode.py.)"""
import json
import shutil

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from gradviz.plain.config.config import Config
from gradviz.plain.config.model_names import model_path
from gradviz.qt import file_menu as file_menu_module
from gradviz.qt.settings import AppSettings

from model_question import Answer
from waits import WAIT_MS

LESSON = ('title = "Dropped"\n[[slides]]\ntitle = "one"\nnarration = "hi"\n'
          '[slides.config]\nsteps = 7\n')


@pytest.fixture
def files(tmp_path):
    (tmp_path / "mine.toml").write_text(LESSON)
    (tmp_path / "fast.toml").write_text("lr = 0.0125\n")
    with model_path("deep_supervision") as example:   # a real model file, copied as a user's
        shutil.copy(example, tmp_path / "my_net.py")
    (tmp_path / "notes.txt").write_text("hello\n")
    return tmp_path


@pytest.fixture
def warned(monkeypatch):
    """The File menu's one-line message boxes, caught instead of shown."""
    lines: list[str] = []
    monkeypatch.setattr(file_menu_module, "warn", lambda parent, title, text: lines.append(text))
    return lines


@pytest.fixture
def w(qtbot, shared_window):
    """The module's window (conftest's shared_window) on the built-in model and the default
    settings, with nothing in Open Recent; back on the built-in model after the test."""
    window = shared_window()
    window.file_menu.recent.paths = []
    window.file_menu.recent.refresh()
    yield window
    if window.model.model_name:
        window.findChild(QAction, "builtInModelAction").trigger()
        qtbot.waitUntil(lambda: window.model.model_name == "", timeout=WAIT_MS)


def _mime(*urls: QUrl) -> QMimeData:
    mime = QMimeData()
    mime.setUrls(list(urls))
    return mime


def drop(window, *paths) -> bool:
    """Drag files over the window and drop them, as a file manager does; whether the
    window took the drop."""
    mime = _mime(*(QUrl.fromLocalFile(str(p)) for p in paths))
    where = window.rect().center()
    enter = QDragEnterEvent(where, Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(window, enter)
    if not enter.isAccepted():
        return False
    event = QDropEvent(QPointF(where), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(window, event)
    return event.isAccepted()


def test_a_dropped_lesson_opens(qtbot, w, files):
    assert drop(w, files / "mine.toml")
    qtbot.waitUntil(lambda: w.model.lesson == "mine", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: w.engine.session.config.steps == 7, timeout=WAIT_MS)


def test_dropped_settings_reach_the_engine(qtbot, w, files):
    assert drop(w, files / "fast.toml")
    qtbot.waitUntil(lambda: w.engine.session.config.lr == 0.0125, timeout=WAIT_MS)


def test_a_dropped_model_file_asks_before_it_runs(qtbot, w, files):
    generation = w.model.generation
    answer = Answer(QMessageBox.Cancel)
    assert drop(w, files / "my_net.py")
    qtbot.waitUntil(lambda: answer.asked == 1, timeout=WAIT_MS)
    assert w.model.generation == generation and w.model.model_name == ""   # nothing ran
    answer.button = QMessageBox.Open
    assert drop(w, files / "my_net.py")
    qtbot.waitUntil(lambda: w.model.model_name == "my_net.py", timeout=WAIT_MS)
    assert answer.asked == 2


def test_a_dropped_file_of_no_kind_is_refused_in_one_line(qtbot, w, files, warned):
    config = w.model.requested
    assert drop(w, files / "notes.txt")
    qtbot.waitUntil(lambda: len(warned) == 1, timeout=WAIT_MS)
    assert warned == [f"{str(files / 'notes.txt')!r} is not a lesson or settings file "
                      "(.toml) or a model file (.py)"]
    assert w.model.requested == config and w.file_menu.recent.paths == []


def test_of_several_dropped_files_the_first_opens_and_the_status_says_so(
        qtbot, w, files, warned):
    assert drop(w, files / "fast.toml", files / "notes.txt")
    qtbot.waitUntil(lambda: w.engine.session.config.lr == 0.0125, timeout=WAIT_MS)
    assert w.phase_label.text().startswith(
        f"2 files dropped: opening the first, {files / 'fast.toml'}; drop one at a time")
    assert warned == []


def test_a_dropped_folder_opens_as_a_recorded_run(qtbot, w, tmp_path):
    from test_open_run import _record, _totals, _writer
    _writer(tmp_path / "run").add_step(_record(0), 1)
    assert drop(w, tmp_path / "run")
    qtbot.waitUntil(lambda: len(w.file_menu.run_windows) == 1, timeout=WAIT_MS)
    run = w.file_menu.run_windows[0]
    qtbot.waitUntil(lambda: _totals(run) == [3.0], timeout=WAIT_MS)
    run.close()
    w.file_menu.run_windows.clear()     # the module's window: the next test's count


def test_a_web_address_is_not_taken(qtbot, w):
    mime = _mime(QUrl("https://example.com/a.py"))   # kept: the event does not own it
    enter = QDragEnterEvent(QPoint(5, 5), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    QApplication.sendEvent(w, enter)
    assert not enter.isAccepted()


def _recent_texts(w) -> list[str]:
    menu = w.file_menu.recent.menu
    menu.aboutToShow.emit()           # as opening the submenu does
    return [a.text() for a in menu.actions()]


def test_open_recent_lists_newest_first_and_opens(qtbot, w, files, warned):
    assert not w.file_menu.recent.menu.isEnabled()    # nothing opened yet
    w.file_menu.open_config(str(files / "fast.toml"))
    w.lessons.open_file(str(files / "mine.toml"))
    qtbot.waitUntil(lambda: w.model.lesson == "mine", timeout=WAIT_MS)
    assert _recent_texts(w) == [f"&1 {files / 'mine.toml'}", f"&2 {files / 'fast.toml'}"]
    w.lessons.controller.leave()
    # the settings from before the lesson come back (one message to the engine): in force
    # before the next change, whose answer the window would otherwise take for theirs
    qtbot.waitUntil(lambda: not w.model.in_lesson and not w.model.waiting
                    and w.engine.session.config == w.model.confirmed, timeout=WAIT_MS)
    w.model.requested = Config()
    qtbot.waitUntil(lambda: w.engine.session.config.lr == Config().lr, timeout=WAIT_MS)
    w.file_menu.recent.menu.actions()[1].trigger()      # the settings, from the list
    qtbot.waitUntil(lambda: w.engine.session.config.lr == 0.0125, timeout=WAIT_MS)
    assert _recent_texts(w)[0] == f"&1 {files / 'fast.toml'}"   # now the newest
    assert warned == []


def test_a_recent_file_that_is_gone_is_dropped_with_a_note(qtbot, w, files):
    w.file_menu.open_config(str(files / "fast.toml"))
    w.lessons.open_file(str(files / "mine.toml"))
    (files / "fast.toml").unlink()
    assert _recent_texts(w) == [f"&1 {files / 'mine.toml'}"]
    assert w.phase_label.text() == (f"Open Recent: dropped {files / 'fast.toml'}: "
                                    "the file is gone")


def test_a_recent_model_file_asks_again_once_edited(qtbot, w, files):
    answer = Answer(QMessageBox.Open)
    w.file_menu.open_model(str(files / "my_net.py"))
    qtbot.waitUntil(lambda: w.model.model_name == "my_net.py", timeout=WAIT_MS)
    assert answer.asked == 1
    with open(files / "my_net.py", "a") as f:
        f.write("# edited\n")
    answer.button = QMessageBox.Cancel
    generation = w.model.generation
    w.file_menu.recent.menu.actions()[0].trigger()
    assert answer.asked == 2 and w.model.generation == generation


def test_a_stranger_s_recent_entries_are_refused_in_one_line(tmp_path, files, capsys):
    path = tmp_path / "settings.json"
    good = str(files / "fast.toml")
    path.write_text(json.dumps({"version": 2, "recent_files": [good, 7, {"x": 1}, ""]}))
    remembered = AppSettings(path).load(Config())
    assert remembered.recent_files == (good,)
    assert capsys.readouterr().err == ("gradviz: settings: recent_files: dropped 7 and 2 more "
                                       "from Open Recent: not a file's path\n")
    path.write_text(json.dumps({"version": 2, "recent_files": "/etc/passwd"}))
    assert AppSettings(path).load(Config()).recent_files == ()
    assert capsys.readouterr().err == ("gradviz: settings: recent_files '/etc/passwd' is not "
                                       "a list; Open Recent starts empty\n")


def test_the_window_shows_gradviz_s_icon(w):
    assert not w.windowIcon().isNull()
    assert w.windowIcon().pixmap(32, 32).toImage().pixelColor(16, 16).alpha() > 0
