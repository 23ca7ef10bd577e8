"""What the app remembers between launches: the last config, theme, zoom, speed and the
window layout. Typed, versioned, in an INI file whose path tests can choose."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, QStandardPaths

from ..core.config import Config, ConfigError, from_mapping

VERSION = 1


@dataclass
class Remembered:
    config: Config
    theme: str = "light"
    zoom: float = 1.0
    speed: int = 0
    geometry: QByteArray | None = None
    window_state: QByteArray | None = None


def default_path() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.AppConfigLocation) or str(Path.home())
    return Path(base) / "gradviz.ini"


class AppSettings:
    def __init__(self, path: str | Path | None = None):
        self.path = Path(path) if path else default_path()
        self._qs = QSettings(str(self.path), QSettings.IniFormat)

    def load(self, fallback: Config) -> Remembered:
        """What was saved, or fallback where nothing (or something unusable) was."""
        qs = self._qs
        if qs.value("version", 0, int) != VERSION:
            return Remembered(fallback)
        try:
            config = from_mapping(json.loads(qs.value("config", "{}", str)), fallback)
        except (ConfigError, ValueError, TypeError):
            config = fallback
        theme = qs.value("theme", "light", str)
        return Remembered(
            config=config,
            theme=theme if theme in ("light", "dark") else "light",
            zoom=min(3.0, max(0.6, qs.value("zoom", 1.0, float))),
            speed=qs.value("speed", 0, int),
            geometry=qs.value("geometry", None),
            window_state=qs.value("window_state", None))

    def save(self, r: Remembered) -> None:
        qs = self._qs
        qs.setValue("version", VERSION)
        data = r.config.to_dict()
        qs.setValue("config", json.dumps(data))
        qs.setValue("theme", r.theme)
        qs.setValue("zoom", float(r.zoom))
        qs.setValue("speed", int(r.speed))
        if r.geometry is not None:
            qs.setValue("geometry", r.geometry)
        if r.window_state is not None:
            qs.setValue("window_state", r.window_state)
        qs.sync()
