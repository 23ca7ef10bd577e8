"""What the window shows and asks for, as one GUI-free model whose fields announce their
changes (psygnal, as napari and ndv keep theirs): the window, its lessons, Compare and the
screen fitting observe it and change it, instead of reaching into each other's widgets.
"Why did this change?" then has one place to look: who set the field.

Plain data only (no Qt, no torch): it is read by tests without a window.
"""
from __future__ import annotations

from dataclasses import dataclass

from psygnal import evented

from .config import Config

PLAY_MODES = ("steps", "phases")   # what Play advances by


@evented
@dataclass
class WindowModel:
    requested: Config = Config()          # what the settings ask the engine for
    confirmed: Config = Config()          # what the engine says is in force
    zoom: float = 1.0                     # the text size (Ctrl+= / Ctrl+-)
    pace_ms: int = 0                      # the pause between steps, or phases
    play_mode: str = "steps"              # "phases": Play goes phase by phase
    running: bool = False                 # the engine is playing
    lesson: str | None = None             # the open lesson's name (None: free mode)
    slide: int | None = None              # its slide on screen, from 0
    panels: tuple[str, ...] = ()          # the slide's panels on the stage, main first
    pinned_b: Config | None = None        # Compare's B beside A (None: not comparing)

    @property
    def in_lesson(self) -> bool:
        return self.lesson is not None

    @property
    def waiting(self) -> bool:
        """The engine has not yet confirmed what the settings ask for."""
        return self.requested != self.confirmed
