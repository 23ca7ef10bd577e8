"""The settings file's text and values, checked: a file that is not gradviz settings of
this version is told apart (and left be), and each value of one that is (any JSON a hand
or a hostile file put there) is used, or replaced by its default with one warning line."""
from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
import sys
from typing import Any

from ..config.config import Config, ConfigError, shown
from ..config.config_toml import from_mapping
from ..records.events import first_line
from .window_model import PACES_MS, THEME_NAMES, ZOOM_RANGE

VERSION = 2
MAX_BYTES = 1024 * 1024          # a settings file is a few KB; more is not one of ours
MAX_LAYOUT_CHARS = 256 * 1024    # base64 of a saved geometry/state (a few hundred bytes)
DEFAULT_THEME = "light"


def warn(message: str) -> None:
    """One line on stderr: settings problems never stop the app."""
    try:
        print(f"gradviz: settings: {message}", file=sys.stderr, flush=True)
    except (OSError, ValueError):   # a terminal closed under us (SIGHUP): save all the same
        pass


def parse_document(data: bytes) -> tuple[dict | None, str | None]:
    """(our settings document, None), or (None, why not) for bytes that are not gradviz
    settings of this version (at most MAX_BYTES + 1 of a file's bytes)."""
    if len(data) > MAX_BYTES:
        return None, f"is over {MAX_BYTES // 1024} KB, too big to be gradviz settings"
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        return None, "is not UTF-8 text"
    except RecursionError:                   # json recurses once per nesting level
        return None, "nests values too deeply to be gradviz settings"
    except ValueError as exc:                # JSONDecodeError, or an int of 5000 digits
        return None, f"is not valid JSON ({shown(first_line(exc))})"
    if not isinstance(document, dict):
        return None, f"holds {type(document).__name__}, not a JSON object"
    version = document.get("version")
    if isinstance(version, bool) or version != VERSION:
        return None, ("has no version" if "version" not in document else
                      f"is version {shown(version)}, not {VERSION}")
    return document, None


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
    if isinstance(value, str) and value in THEME_NAMES:
        return value
    warn(f"theme {shown(value)} is not one of {', '.join(THEME_NAMES)}; using {DEFAULT_THEME}")
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


def _layout(key: str, value: Any) -> bytes | None:
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
                return data
            problem = "is empty"
    warn(f"{key} {shown(value)} {problem}; using the first-launch layout")
    return None


def read_values(document: dict, fallback: Config) -> dict[str, Any]:
    """The values of our document that this version uses, each checked (a bad one is
    its default, with one warning line), by the name of what the app remembers; the
    window layouts as bytes."""
    values: dict[str, Any] = {}
    if "config" in document:
        values["config"] = _config(document["config"], fallback)
    if "theme" in document:
        values["theme"] = _theme(document["theme"])
    if "zoom" in document:
        values["zoom"] = _zoom(document["zoom"])
    if "pace_ms" in document:
        values["pace_ms"] = _pace_ms(document["pace_ms"])
    elif "speed" in document:
        values["pace_ms"] = _old_speed(document["speed"])
    for key in ("geometry", "window_state"):
        if key in document:
            values[key] = _layout(key, document[key])
    if "trusted_models" in document:
        values["trusted_models"] = _trusted(document["trusted_models"])
    if "recent_files" in document:
        values["recent_files"] = _recent(document["recent_files"])
    return values
