"""The figures a slide draws large on the stage ("figures" tables): the one or two numbers
its point rests on ("trunk walked 3×", "head 0: 3.00× the sum's"), validated on loading
and read live off the run on screen, as measured (the metrics lesson promises name).

A figure is { metric = "trunk_walks", text = "trunk walked {}×" }: the metric's value at
the run's newest step (or at `step`), set where text has {}, with `digits` decimals
(default 2); with `slide = N`, the value over slide N's kept run's at the same step.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..config.config import Config, shown
from ..records.history import History
from .lesson_format import LessonError, is_count, refuse_unknown
from .lesson_metrics import metric_problem, unmeasured
from .lesson_references import history_value, kept_per_step, latest_value

FIGURE_KEYS = ("metric", "text", "slide", "step", "digits")
MAX_FIGURES = 3          # the numbers a slide's point rests on (01/3: 3×, 2×, 1×)
MAX_TEXT_CHARS = 40      # one line, large, beside another, at 1024x768
MAX_DIGITS = 4
SLOT = "{}"              # where the number goes in a figure's text
NOT_YET = "…"            # in place of the number until the run has measured it
MINUS = "\u2212"         # a real minus: a hyphen reads as a dash from the back row


@dataclass(frozen=True)
class Figure:
    metric: str
    text: str                      # one line, with SLOT where the number goes
    slide: int | None = None       # the value over slide N's (1-based) at the same step
    step: int | None = None        # at this step of the run (default: its newest)
    digits: int = 2


def parse_figures(where: str, data: dict, index: int, configs: list[Config],
                  stops: list[int]) -> tuple[Figure, ...]:
    """A slide's "figures" list (slide index, 0-based); LessonError (one line, naming the
    slide and the key) for anything the stage could not show as measured."""
    items = data.get("figures", [])
    where = f"{where}, figures"
    if not isinstance(items, list) or not items and "figures" in data \
            or len(items) > MAX_FIGURES:
        raise LessonError(f"{where} must be a list of 1 to {MAX_FIGURES} figures, such as "
                          f"[{{ metric = \"trunk_walks\", text = \"trunk walked {{}}×\" }}]"
                          f" (got {shown(items)})")
    return tuple(_figure(where, item, index, configs, stops) for item in items)


def _figure(where: str, item: Any, index: int, configs: list[Config],
            stops: list[int]) -> Figure:
    if not isinstance(item, dict):
        raise LessonError(f"{where}: each figure is a table {{ metric = …, text = … }} "
                          f"(got {shown(item)})")
    refuse_unknown(where, item, FIGURE_KEYS)
    if "metric" not in item or "text" not in item:
        raise LessonError(f"{where}: a figure needs metric and text")
    metric, text = item["metric"], item["text"]
    _measured(where, metric, configs[index], "this slide")
    if not isinstance(text, str) or "\n" in text or text.count(SLOT) != 1 \
            or len(text) > MAX_TEXT_CHARS:
        raise LessonError(f"{where}: text must be one line of at most {MAX_TEXT_CHARS} "
                          f"characters with one {SLOT} where the number goes "
                          f"(got {shown(text)})")
    slide, step, digits = item.get("slide"), item.get("step"), item.get("digits", 2)
    if slide is not None:
        if not (is_count(slide) and 1 <= slide <= index):
            before = f"1 to {index}" if index else "none: slide 1 has no slide before it"
            raise LessonError(f"{where}: slide must be a slide before this one, whose run "
                              f"is kept ({before}; got {shown(slide)})")
        _measured(where, metric, configs[slide - 1], f"slide {slide}")
    if step is not None and not (is_count(step) and 0 <= step < stops[index]):
        raise LessonError(f"{where}: step must be a step this slide runs, 0 to "
                          f"{stops[index] - 1} (got {shown(step)})")
    if not (is_count(digits) and 0 <= digits <= MAX_DIGITS):
        raise LessonError(f"{where}: digits must be 0 to {MAX_DIGITS} (got {shown(digits)})")
    return Figure(metric, text.strip(), slide, step, digits)


def _measured(where: str, metric: Any, cfg: Config, whose: str) -> None:
    problem = metric_problem(metric, cfg) or unmeasured(metric, cfg)
    if problem is None and not kept_per_step(metric):
        problem = f"{metric} is not kept step by step (the cosine matrix shows it)"
    if problem is not None:
        raise LessonError(f"{where} (on {whose}): {problem}")


def figure_value(figure: Figure, run: History | None,
                 kept: Mapping[int, History]) -> float | None:
    """The figure's number off the run on screen (None until it is measured); kept: the
    lesson's runs as they were left, by slide index (0-based)."""
    if run is None:
        return None
    if figure.step is None:
        newest = latest_value(run, figure.metric)
        if newest is None:
            return None
        step, value = newest
    else:
        step, found = figure.step, history_value(run, figure.metric, figure.step)
        if found is None:
            return None
        value = found
    if figure.slide is None:
        return value
    other = kept.get(figure.slide - 1)
    base = None if other is None else history_value(other, figure.metric, step)
    return None if base is None or base == 0 else value / base


def number_text(value: float | None, digits: int) -> str:
    """A figure's number as shown: its digits, a real minus sign; NOT_YET for None."""
    if value is None:
        return NOT_YET
    text = f"{value:.{digits}f}"
    return MINUS + text[1:] if text.startswith("-") else text


def figure_text(figure: Figure, run: History | None, kept: Mapping[int, History]) -> str:
    return figure.text.replace(SLOT, number_text(figure_value(figure, run, kept),
                                                 figure.digits))
