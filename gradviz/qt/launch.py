"""Open the desktop app: settings, command-line config, the window, and the
--screenshot mode (train N steps, save a PNG of the window, exit)."""
from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..commands.options import config_from_args, fail, take_model_file
from ..exit_codes import EXIT_OK, EXIT_WINDOW_FAILED
from ..plain.config.config import Config
from .crash_exit import CrashExit
from .display import display_problem, invisible_notice

if TYPE_CHECKING:
    from PySide6.QtCore import QTimer

SETTINGS_ENV = "GRADVIZ_SETTINGS"  # a JSON file's path; tests and kiosks point it elsewhere
CTRL_C_POLL_MS = 200


class CtrlC:
    """Ctrl+C in the terminal, a `kill` (SIGTERM) and a closed terminal or a logout
    (SIGHUP) quit the way closing the window does (settings saved), with exit status
    128 + the signal's number (130 for Ctrl+C) and no traceback. Python runs a signal
    handler only between bytecodes, and Qt's event loop is C++: a timer lets the handler
    run, and acts on the flag it sets from the GUI thread (the handler itself may
    interrupt any code, so it touches nothing of Qt's). The same signal a second time
    ends the process at once."""

    # SIGHUP is POSIX only: Windows has no such signal
    SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                    if hasattr(signal, name))

    def __init__(self) -> None:
        self.pressed = False
        self.signum = signal.SIGINT
        self._previous: dict = {}
        self._timer: QTimer | None = None
        for signum in self.SIGNALS:
            if signum != signal.SIGINT and signal.getsignal(signum) is signal.SIG_IGN:
                continue   # `nohup gradviz` asked to outlive the terminal
            try:
                self._previous[signum] = signal.signal(signum, self._handle)
            except (ValueError, OSError):   # not the main thread (an embedding): leave it
                pass

    def _handle(self, signum, frame) -> None:
        self.pressed, self.signum = True, signum
        signal.signal(signum, signal.SIG_DFL)

    @property
    def exit_status(self) -> int:
        return 128 + int(self.signum)   # what shells report for a command ended by it

    def watch(self, close: Callable[[], object]) -> None:
        """Call close() on the GUI thread within CTRL_C_POLL_MS of one of the signals."""
        from PySide6.QtCore import QTimer

        timer = self._timer = QTimer()

        def poll() -> None:
            if self.pressed:
                timer.stop()
                close()
        timer.timeout.connect(poll)
        timer.start(CTRL_C_POLL_MS)

    def restore(self) -> None:
        if self._timer is not None:
            self._timer.stop()
        for signum, previous in self._previous.items():
            if previous is not None:
                signal.signal(signum, previous)


def _check_display() -> None:
    """Say in one line what is missing, before Qt aborts the process over it."""
    problem = display_problem(os.environ, sys.platform)
    if problem is not None:
        fail(problem)


def _say_if_invisible(args) -> None:
    """An offscreen window is never seen: say so, else the app seems to hang."""
    notice = invisible_notice(os.environ, args.screenshot)
    if notice is not None:
        print(notice, file=sys.stderr, flush=True)


def quiet_offscreen_warnings() -> None:
    """The offscreen plugin warns about a feature it lacks on every window; that noise
    would bury the one-line messages users are promised."""
    from PySide6.QtCore import qInstallMessageHandler

    def handler(mode, context, message):
        if "propagateSizeHints" not in message:
            sys.stderr.write(message + "\n")
    qInstallMessageHandler(handler)


def load_settings():
    """The settings file (GRADVIZ_SETTINGS, else settings.json in the user's config
    folder) and what it remembers, checked value by value."""
    from .settings import AppSettings
    settings = AppSettings(os.environ.get(SETTINGS_ENV) or None)
    return settings, settings.load(Config())


def launch(args) -> int:
    if args.screenshot is not None and not str(args.screenshot).strip():
        fail("gradviz: --screenshot needs a file name, e.g. --screenshot shot.png")
    _check_display()
    _check_torch()
    ctrl_c = CtrlC()   # before the slow imports: a Ctrl+C during them is handled too
    try:
        return _open(args, ctrl_c)
    finally:
        ctrl_c.restore()
        # What is still alive now lives until the process ends, and the interpreter's
        # exit collects garbage over all of it several times (~340k objects with torch,
        # Qt and pyqtgraph: about half a second after the window has gone). Frozen
        # objects are skipped by those collections.
        gc.freeze()


def _check_torch() -> None:
    """The engine trains with torch: where this Python has none, one line says how to
    install it, before any window opens on an engine that cannot start. Looked up, not
    imported: the window's process never imports torch."""
    import importlib.util

    from ..plain.text.torch_missing import torch_missing_words
    if importlib.util.find_spec("torch") is None:
        fail(f"gradviz: {torch_missing_words()}")


def _lesson(args):
    """(the lesson --lesson names, the index of its slide :N names) or None; a bad name,
    file or slide is one line and exit 2."""
    if getattr(args, "lesson", None) is None:
        return None
    from ..plain.lessons.lesson_at import find_lesson_at
    from ..plain.lessons.lessons import LessonError
    try:
        return find_lesson_at(args.lesson)
    except LessonError as exc:
        fail(f"gradviz: {exc}")


def _deck(args):
    """The deck --deck names, or None; a bad one is one line (the file, the slide and
    the key) and exit 2."""
    if getattr(args, "deck", None) is None:
        return None
    if getattr(args, "lesson", None) is not None:
        fail("gradviz: --lesson and --deck both name what to play; give one of them")
    if args.screenshot is not None:
        fail("gradviz: --screenshot takes a lesson's slide (--lesson NAME:N), not a deck")
    from ..plain.lessons.decks import find_deck
    from ..plain.lessons.lessons import LessonError
    try:
        return find_deck(args.deck)
    except LessonError as exc:
        fail(f"gradviz: {exc}")


def _model_path(args) -> str | None:
    """The model file --model names (a path or a bundled example's name), taken out of
    args so that the config never holds it; None for mlp, rnn or no --model. Only its
    path goes on: the engine's process runs it. A name that is neither: one line, exit 2."""
    from ..plain.config.config import ConfigError
    from ..plain.config.model_names import model_path
    value = take_model_file(args)
    if value is None:
        return None
    try:
        with model_path(value) as path:
            return str(path.resolve())
    except ConfigError as exc:
        fail(f"gradviz: {exc}")


def named_files(args) -> list[str]:
    """The files --lesson, --deck, --config and --model (or a bare FILE) name, as typed: Open
    Recent lists them. A bundled lesson's, preset's or example's name is no file here."""
    from pathlib import Path

    from ..plain.config.model_names import is_model_file
    from ..plain.lessons.lesson_at import split_slide
    lesson = getattr(args, "lesson", None)
    typed = [split_slide(lesson)[0] if isinstance(lesson, str) else None,
             getattr(args, "deck", None), getattr(args, "config", None)]
    model = getattr(args, "model", None)
    typed += [model] if isinstance(model, str) and is_model_file(model) else []
    files = []
    for value in typed:
        try:
            if isinstance(value, str) and Path(value).is_file():
                files.append(value)
        except (OSError, ValueError):   # too long, or a NUL in it: no file
            pass
    return files


def _open(args, ctrl_c: CtrlC) -> int:
    quiet_offscreen_warnings()
    # PySide6 before pyqtgraph: it binds to the first Qt imported, so the sort keeps this order
    from PySide6.QtWidgets import QApplication

    # isort: split
    import pyqtgraph  # noqa: F401

    from .main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("gradviz")   # names the default settings folder
    app.setOrganizationName("gradviz")
    settings, remembered = load_settings()
    opened = named_files(args)
    lesson = _lesson(args)
    deck = _deck(args)
    model = _model_path(args)
    given = [k for k in vars(args)
             if k not in ("command", "screenshot", "config", "lesson", "deck")]
    if args.config or given:
        remembered.config = config_from_args(
            args, base=Config() if args.config else remembered.config)
    if ctrl_c.pressed:
        return ctrl_c.exit_status
    if args.screenshot is not None:
        from .screenshot import take_screenshot
        return take_screenshot(app, remembered, settings, remembered.config.steps,
                               args.screenshot, interrupted=lambda: ctrl_c.pressed,
                               lesson=lesson, model_path=model)
    _say_if_invisible(args)
    window = MainWindow(remembered, settings, model_path=model)
    for path in reversed(opened):
        window.file_menu.recent.add(path)
    window.show()
    if lesson is not None:
        window.lessons.open(*lesson)
    if deck is not None:
        window.lessons.open_deck(deck)
    ctrl_c.watch(window.close)
    crash = CrashExit(app.exit).install()
    try:
        app.exec()
    finally:
        crash.restore()
    window.dispose()   # now, not at interpreter exit (see MainWindow.dispose)
    if crash.failed:
        return EXIT_WINDOW_FAILED
    return ctrl_c.exit_status if ctrl_c.pressed else EXIT_OK
