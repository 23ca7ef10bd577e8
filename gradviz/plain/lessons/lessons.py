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

from ..config.config import SHOWN_PATH_CHARS, Config, ConfigError, shown
from ..config.config_toml import from_mapping, parse_toml
from ..graph.graph_data import GraphData
from ..graph.graph_focus import focus_ids
from ..graph.sweep_pace import LEAST_SWEEP_PACE, MOST_SWEEP_PACE
from .lesson_figures import Figure, parse_figures
from .lesson_format import (
    LESSON_KEYS,
    SLIDE_KEYS,
    LessonError,
    did_you_mean,
    is_count,
    is_number,
    refuse_unknown,
    refuse_unknown_settings,
)
from .lesson_models import compared_files, model_file_of, refuse_built_in_keys
from .lesson_promises import COMPARED, check_promise, promised_metrics
from .lesson_references import Reference, parse_references
from .narration_limits import narration_problem

PANELS = ("loss", "grad_norms", "global_norm", "junction", "cosine", "memory", "graph",
          "code", "events")
LAYOUTS = ("side-by-side", "stacked", "tabs")
PLAYS = ("steps", "phases")            # what Play advances by: whole steps, or phases
# what a slide keeps of the slide before it: nothing, or its lines, dashed, on the same
# axes (32 KiB beside 8 KiB; 3x, 2x, 1x beside the sum), so the room compares by eye
KEEPS = ("nothing", "ghost")
# the focus names that frame one box, whose facts a slide can show (facts = true)
FACTS_FOCUS = ("junction",)
MAX_PACE = 1000                        # steps per second
MAX_PHASE_PACE = 20                    # phases per second (each one's graph is drawn)
MAX_SLIDES = 30
MAX_STOP = 10_000
# stop = "error" runs until PyTorch raises, or config.steps (up to 10**9): a check
# gives up after this many steps, and the promise that it errors is then broken
MAX_ERROR_STEPS = 1000
MAX_LESSON_BYTES = 256 * 1024          # 30 slides of narration fit many times over


@dataclass(frozen=True)
class Slide:
    title: str
    config: Config
    narration: str
    panels: tuple[str, ...] = ("loss", "graph")
    layout: str = "side-by-side"
    pace: float = 20.0                 # steps (or phases) per second; 0 = as fast as it goes
    play: str = "steps"                # "phases": Play animates forward, each backward…
    # boxes per second of each backward call's sweep over the graph (play = "phases";
    # each backward phase is held until its sweep is drawn); 0: within the pace
    sweep_pace: float = 0.0
    stop: int | str = 30               # steps, or "error": until PyTorch raises
    expect: tuple[dict, ...] = ()
    # PageDown plays the slide it enters (a clicker sends no Space); false: it waits
    autoplay: bool = True
    # what the graph frames, the rest dimmed (plain.graph.graph_focus): "cut", "head 1", ...
    focus: str = ""
    # what hovering the focused box shows (z's facts, PyTorch's own warning), shown with
    # the narration: a clicker has no mouse, and 06/1 said "hover z" to a hall
    facts: bool = False
    keep: str = "nothing"              # "ghost": the slide before's lines stay, dashed
    # lines drawn on its charts at a value it names (plain.lessons.lesson_references)
    reference: tuple[Reference, ...] = ()
    # the one or two numbers its point rests on, drawn large (plain.lessons.lesson_figures)
    figures: tuple[Figure, ...] = ()
    # a model file that ships with gradviz, by name ("cnn_two_heads"); "": the built-in
    model_file: str = ""

    @property
    def steps(self) -> int:
        """How many steps the slide runs: its stop, or for "error" its config's steps, at
        most MAX_ERROR_STEPS (where a check gives up waiting for the error)."""
        return self.stop if isinstance(self.stop, int) else \
            min(self.config.steps, MAX_ERROR_STEPS)

    @property
    def named_metrics(self) -> tuple[str, ...]:
        """The measured quantities its promises and figures name, each once, in the
        order named: what its point rests on."""
        names = [m for promise in self.expect for m in promised_metrics(promise)]
        return tuple(dict.fromkeys(names + [f.metric for f in self.figures]))


@dataclass(frozen=True)
class Lesson:
    name: str                          # what `--lesson` takes: the file's stem
    title: str
    slides: tuple[Slide, ...] = field(default_factory=tuple)
    source: str = ""                   # what messages call it: "lesson file 'x.toml'"


def title_text(title: str) -> str:
    """A slide's title as plain text (the window's title bar): no Markdown backticks."""
    return title.replace("`", "") if title.count("`") % 2 == 0 else title


def _text(where: str, data: dict, key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise LessonError(f"{where}: {key} must be some text (got {shown(value)})")
    return value.strip()


def _config(where: str, data: dict, base: Config, base_file: str = "") -> tuple[Config, str]:
    """The config a table gives on base, and the model file it trains (base_file unless
    it names its own model; "": the built-in model)."""
    table = data.get("config", {})
    if not isinstance(table, dict):
        raise LessonError(f"{where}: config must be a table of settings, such as "
                          f"{{ heads = 3 }} (got {shown(table)})")
    refuse_unknown_settings(f"{where}, config", table)
    model_file, table = model_file_of(f"{where}, config", table, base_file)
    refuse_built_in_keys(f"{where}, config", table, model_file)
    try:
        return from_mapping(table, base), model_file
    except (ConfigError, AttributeError, TypeError) as exc:
        raise LessonError(f"{where}, config: {exc}") from exc


def _panels(where: str, data: dict) -> tuple[str, ...]:
    panels = data.get("panels", ["loss", "graph"])
    if not isinstance(panels, list) or not panels:
        raise LessonError(f"{where}: panels must be a list of {', '.join(PANELS)} "
                          f"(got {shown(panels)})")
    for panel in panels:
        if panel not in PANELS:
            hint = did_you_mean(panel, PANELS) if isinstance(panel, str) else ""
            raise LessonError(f"{where}: panels must be a list of {', '.join(PANELS)} "
                              f"(got {shown(panel)}{hint})")
    if len(set(panels)) != len(panels):
        raise LessonError(f"{where}: panels names a panel twice ({', '.join(panels)})")
    return tuple(panels)


def _pace(where: str, data: dict, play: str) -> float:
    pace = data.get("pace", 20 if play == "steps" else 1)
    number = is_number(pace) and math.isfinite(pace)
    if play == "phases" and not (number and 0 < pace <= MAX_PHASE_PACE):
        raise LessonError(f"{where}: with play = \"phases\", pace must be phases per second, "
                          f"above 0 up to {MAX_PHASE_PACE} (got {shown(pace)})")
    if not (number and 0 <= pace <= MAX_PACE):
        raise LessonError(f"{where}: pace must be steps per second, 0 to {MAX_PACE} "
                          f"(0: as fast as it goes; got {shown(pace)})")
    return float(pace)


def _sweep_pace(where: str, data: dict, play: str) -> float:
    if "sweep_pace" not in data:
        return 0.0
    pace = data["sweep_pace"]
    if play != "phases":
        raise LessonError(f"{where}: sweep_pace needs play = \"phases\" (a backward call "
                          f"is swept on the graph only when its phase is played)")
    if not (is_number(pace) and LEAST_SWEEP_PACE <= pace <= MOST_SWEEP_PACE):
        raise LessonError(f"{where}: sweep_pace must be boxes per second, "
                          f"{LEAST_SWEEP_PACE} to {MOST_SWEEP_PACE} (2: half a second a box;"
                          f" got {shown(pace)})")
    return float(pace)


def _choice(where: str, data: dict, key: str, options: tuple[str, ...]) -> str:
    value = data.get(key, options[0])
    if value not in options:
        hint = did_you_mean(value, options) if isinstance(value, str) else ""
        raise LessonError(f"{where}: {key} must be one of "
                          f"{', '.join(f'{o!r}' for o in options)} (got {shown(value)}{hint})")
    return value


def _slide_fields(where: str, data: Any, base: Config, base_file: str) -> dict:
    """Everything of a slide but its promises, which need every slide's config."""
    if not isinstance(data, dict):
        raise LessonError(f"{where} must be a table (got {shown(data)})")
    refuse_unknown(where, data, SLIDE_KEYS)
    play = _choice(where, data, "play", PLAYS)
    stop = data.get("stop", 30)
    if stop != "error" and not (is_count(stop) and 1 <= stop <= MAX_STOP):
        raise LessonError(f"{where}: stop must be a step count (1-{MAX_STOP}) or \"error\" "
                          f"(got {shown(stop)})")
    if not isinstance(data.get("expect", []), list):
        raise LessonError(f"{where}: expect must be a list of promises, such as "
                          f"[{{ no_error = true }}] (got {shown(data['expect'])})")
    narration = _text(where, data, "narration")
    problem = narration_problem(narration)   # the window would refuse to show it
    if problem:
        raise LessonError(f"{where}: the narration cannot be shown: {problem}")
    config, model_file = _config(where, data, base, base_file)
    return dict(title=_text(where, data, "title"), config=config, model_file=model_file,
                narration=narration, panels=_panels(where, data),
                layout=_choice(where, data, "layout", LAYOUTS),
                pace=_pace(where, data, play), play=play,
                sweep_pace=_sweep_pace(where, data, play), stop=stop,
                autoplay=_flag(where, data, "autoplay", True), focus=_focus(where, data),
                facts=_facts(where, data), keep=_choice(where, data, "keep", KEEPS))


def _focus(where: str, data: dict) -> str:
    value = data.get("focus", "")
    try:
        if not isinstance(value, str):
            raise ValueError(f"focus must be a name such as \"cut\" (got {shown(value)})")
        focus_ids(GraphData(), value)   # the name is known, whatever the graph
    except ValueError as exc:
        raise LessonError(f"{where}: {exc}") from None
    return value


def _facts(where: str, data: dict) -> bool:
    """facts = true: what hovering the focused box shows, with the narration; only for a
    focus that is one box (the junction z)."""
    facts = _flag(where, data, "facts", False)
    if facts and data.get("focus") not in FACTS_FOCUS:
        raise LessonError(f"{where}: facts shows the focused box's facts: it needs focus = "
                          f"{' or '.join(repr(f) for f in FACTS_FOCUS)} "
                          f"(got {shown(data.get('focus', ''))})")
    return facts


def _flag(where: str, data: dict, key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise LessonError(f"{where}: {key} must be true or false (got {shown(value)})")
    return value


def parse_lesson(name: str, text: str, source: str | None = None) -> Lesson:
    """A lesson from its TOML text, validated whole before anything runs; LessonError (one
    line, naming the source, the slide and the key) if any part is not usable. source:
    what messages call the lesson (default: lesson NAME)."""
    where = source or f"lesson {name}"
    try:
        data = parse_toml(text, where)
    except ConfigError as exc:
        raise LessonError(str(exc)) from exc
    refuse_unknown(where, data, LESSON_KEYS)
    slides = data.get("slides")
    if not isinstance(slides, list) or not 1 <= len(slides) <= MAX_SLIDES:
        raise LessonError(f"{where}: give 1 to {MAX_SLIDES} [[slides]] (got {shown(slides)})")
    title = _text(where, data, "title")
    base, base_file = _config(where, data, Config())   # shared by every slide
    fields = [_slide_fields(f"{where}, slide {i + 1}", s, base, base_file)
              for i, s in enumerate(slides)]
    configs = [f["config"] for f in fields]
    files = [f["model_file"] for f in fields]
    if fields[0]["keep"] == "ghost":
        raise LessonError(f"{where}, slide 1: keep = \"ghost\" keeps the slide before's "
                          "lines, and slide 1 has none before it")
    stops = [Slide(**f).steps for f in fields]
    return Lesson(name, title, tuple(
        Slide(**f, expect=_promises(f"{where}, slide {i + 1}", slides[i], i, configs, files),
              reference=parse_references(f"{where}, slide {i + 1}", slides[i], i, configs,
                                         f["panels"], stops),
              figures=parse_figures(f"{where}, slide {i + 1}", slides[i], i, configs, stops))
        for i, f in enumerate(fields)), where)


def _promises(where: str, data: dict, index: int, configs: list[Config],
              files: list[str]) -> tuple[dict, ...]:
    """A slide's promises, checked; those comparing two slides' gradients on one model."""
    promises = tuple(check_promise(where, e, index, configs) for e in data.get("expect", []))
    for promise in promises:
        (kind, value), = promise.items()
        if kind in COMPARED:
            compared_files(where, kind, value, files, index)
    return promises


def read_lesson_text(path: Path) -> str:
    """A lesson file's text: a regular file of at most MAX_LESSON_BYTES of UTF-8 (a FIFO
    would block for ever, /dev/zero never ends)."""
    label = f"lesson file {shown(str(path), SHOWN_PATH_CHARS)}"
    try:
        if not path.exists():
            raise LessonError(f"{label} not found")
        if not path.is_file():
            raise LessonError(f"{label} is not a regular file")
        with path.open("rb") as f:
            data = f.read(MAX_LESSON_BYTES + 1)
    except OSError as exc:
        raise LessonError(f"cannot read {label}: {exc.strerror or exc}") from exc
    if len(data) > MAX_LESSON_BYTES:
        raise LessonError(f"{label} is over {MAX_LESSON_BYTES // 1024} KB, more than any "
                          "lesson needs")
    try:
        return data.decode("utf-8-sig")   # Notepad saves UTF-8 with a byte-order mark
    except UnicodeDecodeError as exc:
        raise LessonError(f"{label} is not UTF-8 text") from exc


def load_lesson(path: str | Path) -> Lesson:
    path = Path(path)
    return parse_lesson(path.stem, read_lesson_text(path),
                        f"lesson file {shown(str(path), SHOWN_PATH_CHARS)}")


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
