"""Reference lines a slide draws on its charts ("reference" tables): validated on
loading, and their values read off the runs the lesson kept, so a slide draws what its
narration says (the clean run's push, the norm before clipping), not only says it.

A reference is { metric = "junction.head2", value = ..., label = "..." }: value is a
number, or { slide = N, step = S } for slide N's run (a slide before this one, kept as it
was left) at step S (default 0).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..config.config import Config, shown
from ..records.history import History
from .lesson_format import LessonError, checked_table, is_count, is_number, refuse_unknown
from .lesson_metrics import metric_problem, unmeasured


class SlideReferences(Protocol):
    """What reference_lines reads of a slide (plain.lessons.lessons' Slide): named by this
    protocol rather than imported, since lessons imports this module."""

    @property
    def reference(self) -> Sequence[Reference]: ...

REFERENCE_KEYS = ("metric", "value", "label")
SOURCE_KEYS = ("slide", "step")
# the line charts a reference can be drawn on, and the metrics each draws (both plot
# values on a linear axis as measured: the loss chart has a log scale, memory its units)
DRAWN_ON = {"junction": ("junction.", "z_grad_norm"), "global_norm": ("global_grad_norm",)}
REFERENCE_PANELS = tuple(DRAWN_ON)
MAX_LABEL_CHARS = 60   # one line beside the chart's lines at 1024x768
MAX_REFERENCES = 4


@dataclass(frozen=True)
class Reference:
    metric: str                        # what it is a value of: a metric name, as in expect
    label: str                         # what the line says
    number: float | None = None        # a fixed value, or...
    slide: int | None = None           # ...slide N's run (1-based) at step `step`
    step: int = 0

    @property
    def panel(self) -> str:
        return panel_of(self.metric) or ""


@dataclass(frozen=True)
class DrawnReference:
    """A reference line with its value: what a chart draws."""
    metric: str
    value: float
    label: str


def panel_of(metric: str) -> str | None:
    """The chart that draws this metric's line, None if no chart takes references."""
    for panel, drawn in DRAWN_ON.items():
        if any(metric == d or (d.endswith(".") and metric.startswith(d)) for d in drawn):
            return panel
    return None


def parse_references(where: str, data: dict, index: int, configs: list[Config],
                     panels: tuple[str, ...], stops: list[int]) -> tuple[Reference, ...]:
    """A slide's "reference" list (slide index, 0-based); LessonError (one line, naming
    the slide and the key) for anything a chart could not draw."""
    items = data.get("reference", [])
    where = f"{where}, reference"
    if not isinstance(items, list) or len(items) > MAX_REFERENCES:
        raise LessonError(f"{where} must be a list of up to {MAX_REFERENCES} lines, such as "
                          f"[{{ metric = \"junction.head2\", value = 0.08, label = \"clean\" }}]"
                          f" (got {shown(items)})")
    return tuple(_reference(where, item, index, configs, panels, stops) for item in items)


def _reference(where: str, item: Any, index: int, configs: list[Config],
               panels: tuple[str, ...], stops: list[int]) -> Reference:
    checked_table(where, item, REFERENCE_KEYS)
    metric, value, label = item["metric"], item["value"], item["label"]
    _metric(where, metric, configs[index], panels)
    if not isinstance(label, str) or not label.strip() or "\n" in label \
            or len(label) > MAX_LABEL_CHARS:
        raise LessonError(f"{where}: label must be one line of 1 to {MAX_LABEL_CHARS} "
                          f"characters (got {shown(label)})")
    if is_number(value):
        if not math.isfinite(value):
            raise LessonError(f"{where}: value must be a finite number (got {shown(value)})")
        return Reference(metric, label.strip(), number=float(value))
    slide, step = _source(where, value, index, stops)
    problem = metric_problem(metric, configs[slide - 1]) or unmeasured(metric,
                                                                       configs[slide - 1])
    if problem is not None:
        raise LessonError(f"{where} (on slide {slide}): {problem}")
    return Reference(metric, label.strip(), slide=slide, step=step)


def _metric(where: str, metric: Any, cfg: Config, panels: tuple[str, ...]) -> None:
    problem = metric_problem(metric, cfg) or unmeasured(metric, cfg)
    if problem is not None:
        raise LessonError(f"{where}: {problem}")
    panel = panel_of(metric)
    if panel is None:
        raise LessonError(f"{where}: {shown(metric)} is drawn on no chart that takes "
                          f"reference lines (junction.headK, z_grad_norm, global_grad_norm)")
    if panel not in panels:
        raise LessonError(f"{where}: {metric} is drawn on the {panel} chart, which this "
                          f"slide does not show (panels = {', '.join(panels)})")


def _source(where: str, value: Any, index: int, stops: list[int]) -> tuple[int, int]:
    if not isinstance(value, dict):
        raise LessonError(f"{where}: value must be a number or {{ slide = N, step = S }} "
                          f"(got {shown(value)})")
    refuse_unknown(where, value, SOURCE_KEYS)
    slide: Any = value.get("slide")
    step: Any = value.get("step", 0)
    if not (is_count(slide) and 1 <= slide <= index):
        before = f"1 to {index}" if index else "none: slide 1 has no slide before it"
        raise LessonError(f"{where}: slide must be a slide before this one, whose run is "
                          f"kept ({before}; got {shown(slide)})")
    runs = stops[slide - 1]
    if not (is_count(step) and 0 <= step < runs):
        raise LessonError(f"{where}: step must be a step slide {slide} runs, 0 to "
                          f"{runs - 1} (got {shown(step)})")
    return slide, step


# the per-head metric families, by the History column that keeps them
PER_HEAD = {"loss": "losses", "junction": "junction", "update_cosine": "update_cosine",
            "loss_change": "loss_change", "loss_change_trunk": "loss_change_trunk",
            "loss_change_head": "loss_change_head"}


def kept_per_step(metric: str) -> bool:
    """Whether a History keeps this metric step by step (the cosine matrix it keeps only
    as the newest one)."""
    return metric.partition(".")[0] != "cosine"


def metric_column(history: History, metric: str) -> np.ndarray | None:
    """The metric's value at every step of a run (NaN where not measured), None where
    the run has no such metric (another model's head or parameter)."""
    family, _, rest = metric.partition(".")
    if family in PER_HEAD:
        values = history.column(PER_HEAD[family])
        if family == "update_cosine" and rest == "min":   # the head the step helps least
            return np.array([np.nan if np.isnan(row).all() else np.nanmin(row)
                             for row in values])
        return values[:, history.keys.index(rest)] if rest in history.keys else None
    if family == "grad_norm":
        if rest not in history.param_names:
            return None
        return history.column("grad_norms")[:, history.param_names.index(rest)]
    return history.column(metric) if kept_per_step(metric) else None


def history_value(history: History, metric: str, step: int) -> float | None:
    """The metric's value at that step of a run, None where it has none."""
    rows = np.flatnonzero(history.column("step") == step)
    values = metric_column(history, metric)
    if not len(rows) or values is None:
        return None
    value = values[int(rows[0])]
    return float(value) if np.isfinite(value) else None


def latest_value(history: History, metric: str) -> tuple[int, float] | None:
    """(step, value) of the newest step at which the run measured the metric."""
    values = metric_column(history, metric)
    if values is None:
        return None
    finite = np.flatnonzero(np.isfinite(values))
    if not len(finite):
        return None
    row = int(finite[-1])
    return int(history.column("step")[row]), float(values[row])


def reference_lines(slide: SlideReferences, kept: Mapping[int, History]
                    ) -> dict[str, list[DrawnReference]]:
    """Each chart that takes references, with the lines it draws for this slide (empty
    where none: a chart clears the last slide's). kept: the lesson's runs as they were
    left, by slide index (0-based); a line from a run not kept (a slide not visited) or
    with no value at its step is not drawn."""
    lines: dict[str, list[DrawnReference]] = {panel: [] for panel in REFERENCE_PANELS}
    for ref in slide.reference:
        value = ref.number
        if ref.slide is not None:
            run = kept.get(ref.slide - 1)
            value = None if run is None else history_value(run, ref.metric, ref.step)
        if value is not None:
            lines[ref.panel].append(DrawnReference(ref.metric, value, ref.label))
    return lines
