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
import binascii
import contextlib
import dataclasses
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QStandardPaths

from ..plain.atomic_write import write_text
from ..plain.config import SHOWN_PATH_CHARS, Config, ConfigError, from_mapping, shown
from ..plain.window_model import PACES_MS
from .settings_file import (
    MAX_BYTES,
    VERSION,
    beside,
    merge,
    one_at_a_time,
    read_document,
    remove_killed_writes,
)
from .theme import THEMES

__all__ = ["AppSettings", "Remembered", "MAX_BYTES", "VERSION", "ZOOM_RANGE"]

FILE_NAME = "settings.json"
MAX_LAYOUT_CHARS = 256 * 1024    # base64 of a saved geometry/state (a few hundred bytes)
ZOOM_RANGE = (0.6, 3.0)          # what Theme.zoomed allows
DEFAULT_THEME = "light"


def warn(message: str) -> None:
    """One line on stderr: settings problems never stop the app."""
    try:
        print(f"gradviz: settings: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):   # a terminal closed under us (SIGHUP): save all the same
        pass


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


# ---- reading -------------------------------------------------------------------------
def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_CONFIG_KEYS = frozenset(f.name for f in dataclasses.fields(Config)) | {"no_scale",
                                                                        "no_zero_grad"}


def _config(value: Any, fallback: Config) -> Config:
    if not isinstance(value, dict):
        warn(f"config {shown(value)} is not a JSON object; using the default config")
        return fallback
    unknown = [key for key in value if str(key).replace("-", "_") not in _CONFIG_KEYS]
    if unknown:   # a newer version's keys: not used here, and kept in the file on save
        warn(f"config has keys this version does not know ({shown(', '.join(unknown))}); "
             "they are kept in the file but not used")
        value = {k: v for k, v in value.items() if k not in unknown}
    try:
        return from_mapping(value, Config())
    except ConfigError as exc:
        warn(f"config: {exc}; using the default config")
    # from_mapping is meant to raise only ConfigError; anything else from a hostile
    # value (float() of a 400-digit int, a too-deep repr) must not stop the app either
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        warn(f"config is unusable ({type(exc).__name__}); using the default config")
    return fallback


def _theme(value: Any) -> str:
    if isinstance(value, str) and value in THEMES:
        return value
    warn(f"theme {shown(value)} is not one of {', '.join(THEMES)}; using {DEFAULT_THEME}")
    return DEFAULT_THEME


def _zoom(value: Any) -> float:
    low, high = ZOOM_RANGE
    if not _is_number(value):
        warn(f"zoom {shown(value)} is not a number; using 1.0")
    elif not (math.isfinite(value) and low <= value <= high):
        warn(f"zoom {shown(value)} is not between {low:g} and {high:g}; using 1.0")
    else:
        return float(value)
    return 1.0


def _pace_ms(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in PACES_MS:
        warn(f"pace_ms {shown(value)} is not one of the run bar's paces "
             f"({', '.join(map(str, PACES_MS))}); using {PACES_MS[0]}")
        return PACES_MS[0]
    return value


def _old_speed(value: Any) -> int:
    """A file from before pace_ms kept the pace slider's position as "speed"."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < len(PACES_MS):
        warn(f"speed {shown(value)} is not a position of the run bar's pace slider "
             f"(0 to {len(PACES_MS) - 1}); using {PACES_MS[0]} ms")
        return PACES_MS[0]
    return PACES_MS[value]


MAX_TRUSTED = 200          # remembered model files (the newest are kept)
MAX_TRUSTED_CHARS = 4200   # a sha256 and a path


def _trusted(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(
            isinstance(v, str) and 0 < len(v) <= MAX_TRUSTED_CHARS for v in value):
        warn("trusted_models is not a list of strings; Open model… asks again")
        return ()
    return tuple(value[-MAX_TRUSTED:])


MAX_RECENT = 8             # File > Open Recent's entries
MAX_PATH_CHARS = 4096      # PATH_MAX on Linux


def _recent(value: Any) -> tuple[str, ...]:
    """The paths Open Recent lists; an entry that is not a path string is dropped with
    one line, the rest are kept."""
    if not isinstance(value, list):
        warn(f"recent_files {shown(value)} is not a list; Open Recent starts empty")
        return ()
    kept = tuple(v for v in value if isinstance(v, str) and 0 < len(v) <= MAX_PATH_CHARS
                 and "\0" not in v)
    bad = [v for v in value if v not in kept]
    if bad:
        more = f" and {len(bad) - 1} more" if len(bad) > 1 else ""
        warn(f"recent_files: dropped {shown(bad[0])}{more} from Open Recent: "
             "not a file's path")
    return kept[:MAX_RECENT]


def _layout(key: str, value: Any) -> QByteArray | None:
    """A base64 string back to the bytes saveGeometry/saveState made. Whether Qt accepts
    them is only known when the window tries them (MainWindow warns then)."""
    problem = None
    if not isinstance(value, str):
        problem = "is not a base64 string"
    elif len(value) > MAX_LAYOUT_CHARS:
        problem = f"is over {MAX_LAYOUT_CHARS // 1024} KB"
    else:
        try:
            data = base64.b64decode(value.encode("ascii"), validate=True)
        except (UnicodeEncodeError, binascii.Error, ValueError):
            problem = "is not valid base64"
        else:
            if data:
                return QByteArray(data)
            problem = "is empty"
    warn(f"{key} {shown(value)} {problem}; using the first-launch layout")
    return None


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
        if "config" in document:
            remembered.config = _config(document["config"], fallback)
        if "theme" in document:
            remembered.theme = _theme(document["theme"])
        if "zoom" in document:
            remembered.zoom = _zoom(document["zoom"])
        if "pace_ms" in document:
            remembered.pace_ms = _pace_ms(document["pace_ms"])
        elif "speed" in document:
            remembered.pace_ms = _old_speed(document["speed"])
        for key in ("geometry", "window_state"):
            if key in document:
                setattr(remembered, key, _layout(key, document[key]))
        if "trusted_models" in document:
            remembered.trusted_models = _trusted(document["trusted_models"])
        if "recent_files" in document:
            remembered.recent_files = _recent(document["recent_files"])
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
