"""What the app remembers between launches: the last config, theme, zoom, pace and the
window layout, in a small JSON file that gradviz writes and reads itself.

Nothing here goes through QSettings or pickle: PySide6's QSettings turns an
`@Variant(... PySide::PyObjectWrapper ...)` value back into a Python object with pickle,
so a crafted settings file could run any command when the app starts. The file may
still be anything (corrupt, huge, hand-edited, hostile), so every value is checked on
load: a bad one is replaced by its default with one warning line and the rest are kept.
Saving is atomic (a temporary file, fsync, rename), so a crash or a full disk never
leaves half a file.
"""
from __future__ import annotations

import base64
import binascii
import json
import math
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QStandardPaths

from ..core.atomic_write import write_text
from ..core.config import Config, ConfigError, from_mapping, shown
from ..core.events import first_line
from .run_bar import DELAYS_MS
from .theme import THEMES

VERSION = 2
FILE_NAME = "settings.json"
MAX_BYTES = 1024 * 1024          # a settings file is a few KB; more is not one of ours
MAX_LAYOUT_CHARS = 256 * 1024    # base64 of a saved geometry/state (a few hundred bytes)
ZOOM_RANGE = (0.6, 3.0)          # what Theme.zoomed allows
SPEED_RANGE = (0, len(DELAYS_MS) - 1)   # the run bar's pace slider
DEFAULT_THEME = "light"


def warn(message: str) -> None:
    """One line on stderr: settings problems never stop the app."""
    print(f"gradviz: settings: {message}", file=sys.stderr, flush=True)


@dataclass
class Remembered:
    config: Config
    theme: str = DEFAULT_THEME
    zoom: float = 1.0
    speed: int = 0
    geometry: QByteArray | None = None
    window_state: QByteArray | None = None


def default_path() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.AppConfigLocation) or str(Path.home())
    return Path(base) / FILE_NAME


# ---- reading -------------------------------------------------------------------------
def _read_document(path: Path) -> dict | None:
    """The file's JSON object, or None (after one warning) when there is no usable one."""
    name = shown(str(path))
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):   # a FIFO or /dev/zero would block or never end
            warn(f"{name} is not a regular file; using defaults")
            return None
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None                          # a first launch
    except OSError as exc:
        warn(f"cannot read {name} ({exc.strerror or exc}); using defaults")
        return None
    if len(data) > MAX_BYTES:
        warn(f"{name} is over {MAX_BYTES // 1024} KB, too big to be gradviz settings; "
             "using defaults")
        return None
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        warn(f"{name} is not UTF-8 text; using defaults")
        return None
    except RecursionError:                   # json recurses once per nesting level
        warn(f"{name} nests values too deeply to be gradviz settings; using defaults")
        return None
    except ValueError as exc:                # JSONDecodeError, or an int of 5000 digits
        warn(f"{name} is not valid JSON ({shown(first_line(exc))}); using defaults")
        return None
    if not isinstance(document, dict):
        warn(f"{name} holds {type(document).__name__}, not a JSON object; using defaults")
        return None
    return document


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _config(value: Any, fallback: Config) -> Config:
    if not isinstance(value, dict):
        warn(f"config {shown(value)} is not a JSON object; using the default config")
        return fallback
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


def _speed(value: Any) -> int:
    low, high = SPEED_RANGE
    if isinstance(value, bool) or not isinstance(value, int):
        warn(f"speed {shown(value)} is not a whole number; using {low}")
    elif not low <= value <= high:
        warn(f"speed {shown(value)} is not between {low} and {high}; using {low}")
    else:
        return value
    return low


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
    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_path()

    def load(self, fallback: Config) -> Remembered:
        """What was saved; fallback and defaults where nothing (or something unusable) was,
        with one warning line per unusable value."""
        remembered = Remembered(fallback)
        document = _read_document(self.path)
        if document is None:
            return remembered
        version = document.get("version")
        if isinstance(version, bool) or version != VERSION:
            what = "has no version" if "version" not in document else \
                f"is version {shown(version)}, not {VERSION}"
            warn(f"{shown(str(self.path))} {what}; using defaults")
            return remembered
        if "config" in document:
            remembered.config = _config(document["config"], fallback)
        if "theme" in document:
            remembered.theme = _theme(document["theme"])
        if "zoom" in document:
            remembered.zoom = _zoom(document["zoom"])
        if "speed" in document:
            remembered.speed = _speed(document["speed"])
        for key in ("geometry", "window_state"):
            if key in document:
                setattr(remembered, key, _layout(key, document[key]))
        return remembered

    # ---- writing -----------------------------------------------------------------------
    def save(self, r: Remembered) -> bool:
        """Write r atomically; on failure warn once and keep the old file. True if saved."""
        document: dict[str, Any] = {
            "version": VERSION, "config": r.config.to_dict(), "theme": r.theme,
            "zoom": float(r.zoom), "speed": int(r.speed)}
        for key in ("geometry", "window_state"):
            data = getattr(r, key)
            if data is not None and not data.isEmpty():
                document[key] = base64.b64encode(bytes(data.data())).decode("ascii")
        try:
            text = json.dumps(document, indent=2, allow_nan=False) + "\n"
            _write_atomically(self.path, text)
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            warn(f"cannot save to {shown(str(self.path))} ({reason}); "
                 "this session's settings are not remembered")
            return False
        return True


def _write_atomically(path: Path, text: str) -> None:
    """Readers see the old file or the new one, never a part: write a temporary file in
    the same folder (a rename is atomic only within one file system), flush it to disk,
    then rename it over the old one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, text)
