"""Lessons: TOML files of slides, each a config, narration, panels, pace and when to stop,
plus the promises its narration makes, written so that a run can check them.

A lesson file is plain data, validated on load; a bad value is a one-line LessonError.
Promises ("expect" tables) name a measured quantity and what it does over the slide's
steps, e.g. { grows = "saved_bytes" } or { error = "backward through the graph" }.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .config import Config, ConfigError, from_mapping, parse_toml, read_config_text, shown

PANELS = ("loss", "grad_norms", "global_norm", "junction", "cosine", "memory", "graph",
          "code", "events")
LAYOUTS = ("side-by-side", "stacked", "tabs")
PLAYS = ("steps", "phases")            # what Play advances by: whole steps, or phases
MAX_PACE = 1000                        # steps per second
MAX_PHASE_PACE = 20                    # phases per second (each one's graph is drawn)
MAX_SLIDES = 30
MAX_STOP = 10_000
# the promises a narration can make: key -> what its value names
PROMISES = ("error", "no_error", "grows", "flat", "zero", "positive", "negative", "absent",
            "ends_negative", "ends_positive", "small",
            "decreases", "not_decreasing", "ratio", "below", "about", "same_gradients_as")


class LessonError(ValueError):
    """A lesson file that cannot be used; str() is one line for the user."""


@dataclass(frozen=True)
class Slide:
    title: str
    config: Config
    narration: str
    panels: tuple[str, ...] = ("loss", "graph")
    layout: str = "side-by-side"
    pace: float = 20.0                 # steps (or phases) per second; 0 = as fast as it goes
    play: str = "steps"                # "phases": Play animates forward, each backward…
    stop: int | str = 30               # steps, or "error": until PyTorch raises
    expect: tuple[dict, ...] = ()

    @property
    def steps(self) -> int:
        return self.stop if isinstance(self.stop, int) else self.config.steps


@dataclass(frozen=True)
class Lesson:
    name: str                          # what `--lesson` takes: the file's stem
    title: str
    slides: tuple[Slide, ...] = field(default_factory=tuple)


def _text(where: str, data: dict, key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise LessonError(f"{where}: {key} must be some text (got {shown(value)})")
    return value.strip()


_CROSS_SLIDE = {"ratio": ("of", "slide", "is"), "below": ("metric", "slide"),
                "about": ("metric", "slide", "times")}


def _promise(where: str, item: Any, slides: int) -> dict:
    if not isinstance(item, dict) or len(item) != 1 or next(iter(item)) not in PROMISES:
        raise LessonError(f"{where}: each expect entry is one of {', '.join(PROMISES)} "
                          f"(got {shown(item)})")
    (kind, value), = item.items()
    if kind in _CROSS_SLIDE:
        keys = _CROSS_SLIDE[kind]
        ok = isinstance(value, dict) and set(value) == set(keys) and \
            isinstance(value["slide"], int) and 1 <= value["slide"] <= slides
    elif kind == "same_gradients_as":
        ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= slides
    elif kind == "no_error":
        ok = value is True
    else:
        ok = isinstance(value, str) and bool(value)
    if not ok:
        raise LessonError(f"{where}: the expect entry {shown(item)} is malformed")
    return dict(item)


def _slide(where: str, data: Any, base: Config, slides: int) -> Slide:
    if not isinstance(data, dict):
        raise LessonError(f"{where} must be a table")
    try:
        config = from_mapping(data.get("config", {}), base)
    except (ConfigError, AttributeError) as exc:
        raise LessonError(f"{where}: {exc}")
    panels = data.get("panels", ["loss", "graph"])
    if not isinstance(panels, list) or not panels or any(p not in PANELS for p in panels):
        raise LessonError(f"{where}: panels must be a list of {', '.join(PANELS)}")
    layout = data.get("layout", "side-by-side")
    if layout not in LAYOUTS:
        raise LessonError(f"{where}: layout must be one of {', '.join(LAYOUTS)}")
    play = data.get("play", "steps")
    if play not in PLAYS:
        raise LessonError(f"{where}: play must be \"steps\" or \"phases\" (got {shown(play)})")
    pace = data.get("pace", 20 if play == "steps" else 1)
    number = not isinstance(pace, bool) and isinstance(pace, (int, float)) and math.isfinite(pace)
    if play == "phases" and not (number and 0 < pace <= MAX_PHASE_PACE):
        raise LessonError(f"{where}: with play = \"phases\", pace must be phases per second, "
                          f"above 0 up to {MAX_PHASE_PACE} (got {shown(pace)})")
    if not (number and 0 <= pace <= MAX_PACE):
        raise LessonError(f"{where}: pace must be steps per second, 0 to {MAX_PACE} "
                          f"(0: as fast as it goes; got {shown(pace)})")
    stop = data.get("stop", 30)
    if stop != "error" and (isinstance(stop, bool) or not isinstance(stop, int)
                            or not 1 <= stop <= MAX_STOP):
        raise LessonError(f"{where}: stop must be a step count (1-{MAX_STOP}) or \"error\"")
    expect = data.get("expect", [])
    if not isinstance(expect, list):
        raise LessonError(f"{where}: expect must be a list of promises")
    return Slide(_text(where, data, "title"), config, _text(where, data, "narration"),
                 tuple(panels), layout, float(pace), play, stop,
                 tuple(_promise(where, e, slides) for e in expect))


def parse_lesson(name: str, text: str) -> Lesson:
    data = parse_toml(text, f"lesson {name}")
    slides = data.get("slides")
    if not isinstance(slides, list) or not 1 <= len(slides) <= MAX_SLIDES:
        raise LessonError(f"lesson {name}: give 1 to {MAX_SLIDES} [[slides]]")
    base = Config()
    try:
        base = from_mapping(data.get("config", {}), base)   # shared by every slide
    except (ConfigError, AttributeError) as exc:
        raise LessonError(f"lesson {name}: {exc}")
    return Lesson(name, _text(f"lesson {name}", data, "title"),
                  tuple(_slide(f"lesson {name}, slide {i + 1}", s, base, len(slides))
                        for i, s in enumerate(slides)))


def load_lesson(path: str | Path) -> Lesson:
    path = Path(path)
    try:
        return parse_lesson(path.stem, read_config_text(path))
    except ConfigError as exc:
        raise LessonError(str(exc))


def bundled_names() -> list[str]:
    """The lessons that ship with gradviz, in their order (file names sort as taught)."""
    folder = resources.files("gradviz.resources") / "lessons"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def find_lesson(name: str) -> Lesson:
    """A bundled lesson by name (with or without its number), or a lesson file's path."""
    if name.endswith(".toml") or "/" in name or "\\" in name:
        return load_lesson(name)
    names = bundled_names()
    match = [n for n in names if n == name or n.split("-", 1)[-1] == name]
    if not match:
        raise LessonError(f"no lesson named {shown(name)} (gradviz lessons lists them)")
    folder = resources.files("gradviz.resources") / "lessons"
    return parse_lesson(match[0], (folder / f"{match[0]}.toml").read_text(encoding="utf-8-sig"))
