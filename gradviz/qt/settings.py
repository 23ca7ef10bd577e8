"""What the app remembers between launches: the last config, theme, zoom, pace and the
window layout, in a small JSON file that gradviz writes and reads itself.

Nothing here goes through QSettings or pickle: PySide6's QSettings turns an
`@Variant(... PySide::PyObjectWrapper ...)` value back into a Python object with pickle,
so a crafted settings file could run any command when the app starts. The file may
still be anything (corrupt, huge, hand-edited, hostile), so every value is checked on
load: a bad one is replaced by its default with one warning line and the rest are kept.
Saving is atomic (a temporary file, fsync, rename), so a crash or a full disk never
leaves half a file, and never writes over a file that is not gradviz's (settings_file).
"""
from __future__ import annotations

import base64
import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QStandardPaths

from ..plain.config.config import SHOWN_PATH_CHARS, Config, shown
from ..plain.files.atomic_write import write_text
from ..plain.window.settings_values import (
    DEFAULT_THEME,
    MAX_BYTES,
    MAX_RECENT,
    MAX_TRUSTED,
    VERSION,
    ZOOM_RANGE,
    read_values,
    warn,
)
from ..plain.window.window_model import PACES_MS
from .settings_file import beside, merge, one_at_a_time, read_document, remove_killed_writes

__all__ = ["AppSettings", "Remembered", "MAX_BYTES", "MAX_RECENT", "MAX_TRUSTED", "VERSION",
           "ZOOM_RANGE", "warn"]

FILE_NAME = "settings.json"


@dataclass
class Remembered:
    config: Config
    theme: str = DEFAULT_THEME
    zoom: float = 1.0
    pace_ms: int = PACES_MS[0]   # the run bar's pace, one of PACES_MS
    geometry: QByteArray | None = None
    window_state: QByteArray | None = None
    # "sha256 path" of each model file the user agreed to run: plain strings, which
    # only spare the question; nothing here makes a file run (only --model or Open
    # model… does)
    trusted_models: tuple[str, ...] = ()
    # File > Open Recent, newest first: paths only; opening one asks, as a drop does,
    # before a model file runs (recent_files.py)
    recent_files: tuple[str, ...] = ()


def default_path() -> Path:
    base = (QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppConfigLocation)
            or str(Path.home()))
    return Path(base) / FILE_NAME


class AppSettings:
    """The settings file. A file at the path that is not ours (not JSON, not an object,
    no or another version) is never written over: ours go beside it (beside()), and if
    that one is not ours either, nothing is saved. A save writes only the keys this
    instance changed since it loaded, into what is on disk then, so another instance's
    changes to other keys, and keys a newer version added, survive."""

    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_path()
        self.target: Path | None = self.path   # where save() writes; None: nowhere
        self._refused = ""                       # why self.path is not ours
        self._loaded: dict | None = None         # what load() read; None: never loaded

    def _named(self, path: Path | None = None) -> str:
        return shown(str(path or self.path), SHOWN_PATH_CHARS)

    def _choose_target(self) -> dict | None:
        """Our document at the path, or beside it when the path holds someone else's
        file (then self.target and self._refused say so); None where there is none."""
        document, problem = read_document(self.path)
        self.target, self._refused = self.path, ""
        if problem is None:
            return document
        self._refused = f"{self._named()} {problem}"
        other = beside(self.path)
        document, other_problem = read_document(other)
        self.target = None if other_problem is not None else other
        return document

    def load(self, fallback: Config) -> Remembered:
        """What was saved; fallback and defaults where nothing (or something unusable) was,
        with one warning line per unusable value."""
        remembered = Remembered(fallback)
        with one_at_a_time(self.path):
            remove_killed_writes(self.path)
            document = self._choose_target()
        # nothing saved yet: what this window starts with is its base, so a save writes
        # only what it changed, not its defaults over another window's first save
        self._loaded = document or _document(remembered)
        if self._refused:
            warn(f"{self._refused}; it is left as it is, "
                 + (f"and this session's settings are read from and saved to "
                    f"{self._named(self.target)}" if self.target else
                    f"and so is {self._named(beside(self.path))}: settings are not saved")
                 + ("" if document else "; using defaults"))
        if document is None:
            return remembered
        for key, value in read_values(document, fallback).items():
            if key in ("geometry", "window_state") and value is not None:
                value = QByteArray(value)
            setattr(remembered, key, value)
        return remembered

    # ---- writing -----------------------------------------------------------------------
    def save(self, r: Remembered) -> bool:
        """Merge r's changed keys into the file and write it atomically; on failure warn
        once and keep the old file. True if saved."""
        with contextlib.suppress(OSError):   # a folder to lock; else the write says why
            self.path.parent.mkdir(parents=True, exist_ok=True)
        with one_at_a_time(self.path):
            return self._save_locked(r)

    def _save_locked(self, r: Remembered) -> bool:
        old_target = self.target
        remove_killed_writes(self.path)
        disk = self._choose_target() or {}
        if self.target is None:
            warn(f"not saved: {self._refused}, and so is {self._named(beside(self.path))}; "
                 "both are left as they are")
            return False
        base = self._loaded if self.target == old_target else {}
        try:
            merged, clashes = merge(disk, base, _document(r))
            text = json.dumps(merged, indent=2) + "\n"
            _write_atomically(self.target, text)
        except (OSError, ValueError, RecursionError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            warn(f"cannot save to {self._named(self.target)} ({reason}); "
                 "this session's settings are not remembered")
            return False
        self._loaded = json.loads(text)
        if self._refused:
            warn(f"saved to {self._named(self.target)}: {self._refused} and is left as it is")
        if clashes:
            warn(f"another gradviz changed {', '.join(clashes)} in {self._named(self.target)} "
                 "since this one started; saved this one's")
        return True


def _document(r: Remembered) -> dict[str, Any]:
    """r as the file holds it (plain JSON values: what merge() compares)."""
    document: dict[str, Any] = {
        "version": VERSION, "config": r.config.to_dict(), "theme": r.theme,
        "zoom": float(r.zoom), "pace_ms": int(r.pace_ms)}
    if r.trusted_models:
        document["trusted_models"] = list(r.trusted_models[-MAX_TRUSTED:])
    if r.recent_files:
        document["recent_files"] = list(r.recent_files[:MAX_RECENT])
    for key in ("geometry", "window_state"):
        data = getattr(r, key)
        if data is not None and not data.isEmpty():
            document[key] = base64.b64encode(bytes(data.data())).decode("ascii")
    return json.loads(json.dumps(document, allow_nan=False))


def _write_atomically(path: Path, text: str) -> None:
    """Readers see the old file or the new one, never a part: write a temporary file in
    the same folder (a rename is atomic only within one file system), flush it to disk,
    then rename it over the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, text)
