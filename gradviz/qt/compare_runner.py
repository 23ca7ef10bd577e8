"""Runs `gradviz compare` for the window in its own process (the window never imports
torch nor waits): A is the current settings, B those settings with a config file's
changes on top; the result is compare.json read back as plain data."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, Signal

from ..engine.child import child_command
from ..plain.config.config import Config, ConfigError
from ..plain.config.config_toml import from_mapping, load_toml, to_toml
from ..plain.files.atomic_write import write_text


class CompareRunner(QObject):
    finished = Signal(object)    # compare.json's content (a dict: as Signal(dict) Qt would
                                 # turn it into a QVariantMap and sort its keys)
    failed = Signal(str)         # one line: what went wrong

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._process: QProcess | None = None
        self._folder: tempfile.TemporaryDirectory | None = None

    @property
    def running(self) -> bool:
        return self._process is not None

    def start(self, a: Config, b_path: str, steps: int) -> None:
        self.stop()
        try:
            b = from_mapping({k.replace("-", "_"): v for k, v in load_toml(b_path).items()}, a)
        except ConfigError as exc:
            self.failed.emit(str(exc))
            return
        self.start_configs(a, b, steps)

    def start_configs(self, a: Config, b: Config, steps: int) -> None:
        """Compare two configs (a toggle changed, a lesson's other slide)."""
        self.stop()
        a, b = a.replace(steps=steps), b.replace(steps=steps)   # the files win over flags
        self._folder = tempfile.TemporaryDirectory(prefix="gradviz-compare-")
        folder = Path(self._folder.name)
        write_text(folder / "A.toml", to_toml(a, "A: the window's settings when compared"))
        write_text(folder / "B.toml", to_toml(b, "B: what A is compared with"))
        process = QProcess(self)
        # isolated: nothing is imported from the folder gradviz was started in
        program, *arguments = child_command(
            "gradviz", "compare", str(folder / "A.toml"), str(folder / "B.toml"),
            "--steps", str(steps), "--out", str(folder / "out"))
        process.setProgram(program)
        process.setArguments(arguments)
        process.finished.connect(self._done)
        self._process = process
        process.start()

    def _done(self, code: int, status: QProcess.ExitStatus) -> None:
        process, self._process = self._process, None
        if process is None or self._folder is None:   # (both are set together)
            return
        out = Path(self._folder.name) / "out" / "compare.json"
        if code in (0, 1, 3) and out.exists():
            self.finished.emit(json.loads(out.read_text(encoding="utf-8")))
        else:
            err = bytes(process.readAllStandardError().data()).decode(errors="replace").strip()
            self.failed.emit((err.splitlines() or [f"gradviz compare exited {code}"])[-1])
        process.deleteLater()

    def stop(self) -> None:
        """Kill a comparison in progress (closing the window must not wait for it)."""
        if self._process is not None:
            process, self._process = self._process, None
            process.finished.disconnect(self._done)
            process.kill()
            process.waitForFinished(1000)
            process.deleteLater()
