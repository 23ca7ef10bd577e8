"""The promises a slide's narration makes ("expect" entries), validated before anything
runs: the kind, its value's type, metric names for the slides named, slide references."""
from __future__ import annotations

import math
from typing import Any

from ..config.config import Config, shown
from ..config.same_model import model_difference
from .lesson_format import LessonError, checked_table, is_count, is_number, unknown
from .lesson_metrics import metric_problem, unmeasured

ON_ITS_OWN = ("grows", "flat", "zero", "positive", "negative", "absent", "ends_negative",
              "ends_positive", "small", "decreases", "not_decreasing", "no_gradient")
# promises that compare this slide with another: their tables' keys
CROSS_SLIDE = {"ratio": ("of", "slide", "is"), "below": ("metric", "slide"),
               "about": ("metric", "slide", "times")}
# a metric that holds one value at every step: { equals = { metric, value } } (a count,
# such as the all-reduces DDP ran)
EQUALS_KEYS = ("metric", "value")
PROMISES = ("error", "no_error", *ON_ITS_OWN, *CROSS_SLIDE, "equals", "same_gradients_as",
            "different_gradients_from")
# promises that train this slide beside another in lockstep (core.compare)
COMPARED = ("same_gradients_as", "different_gradients_from")


def check_promise(where: str, item: Any, index: int, configs: list[Config]) -> dict:
    """item as a promise of slide index (0-based) of a lesson whose slides have these
    configs; LessonError (one line) if it is not one that a check can hold to."""
    if not isinstance(item, dict) or len(item) != 1:
        raise LessonError(f"{where}: each expect entry is one promise in braces, such as "
                          f"{{ no_error = true }} (got {shown(item)})")
    (kind, value), = item.items()
    if kind not in PROMISES:
        raise unknown(where, "promise", kind, PROMISES)
    where = f"{where}, expect {kind}"
    if kind == "error":
        if not isinstance(value, str) or not value.strip():
            raise LessonError(f"{where}: give some words of the error (got {shown(value)})")
    elif kind == "no_error":
        if value is not True:
            raise LessonError(f"{where}: no_error takes true (got {shown(value)})")
    elif kind in COMPARED:
        _other_slide(where, value, index, configs, kind)
        difference = model_difference(configs[value - 1], configs[index],
                                      (f"slide {value}", "this slide"))
        if difference is not None:
            raise LessonError(f"{where}: slide {value} builds another model ({difference}): "
                              "only the same model can be compared gradient for gradient")
    elif kind in CROSS_SLIDE:
        _cross_slide(where, kind, value, index, configs)
    elif kind == "equals":
        checked_table(where, value, EQUALS_KEYS)
        _metric(where, value["metric"], configs[index])
        if not (is_number(value["value"]) and math.isfinite(value["value"])):
            raise LessonError(f"{where}: value must be a number (got {shown(value['value'])})")
    else:
        _metric(where, value, configs[index], kind == "absent")
        if kind == "no_gradient" and not str(value).startswith("grad_norm."):
            raise LessonError(f"{where}: no_gradient takes a parameter's grad_norm.PARAM "
                              f"(got {shown(value)})")
    return {kind: value}


def promised_metrics(promise: dict) -> tuple[str, ...]:
    """The measured quantities a checked promise is about: none for error, no_error and
    the compared gradients (they name no quantity), nor for absent (nothing of it is
    drawn)."""
    (kind, value), = promise.items()
    if kind in ON_ITS_OWN and kind != "absent":
        return (value,)
    if kind in CROSS_SLIDE:
        return (value["of" if kind == "ratio" else "metric"],)
    if kind == "equals":
        return (value["metric"],)
    return ()


def _metric(where: str, name: Any, cfg: Config, absent: bool = False) -> None:
    problem = metric_problem(name, cfg)
    if problem is None and not absent:
        problem = unmeasured(name, cfg)
    if problem is not None:
        raise LessonError(f"{where}: {problem}")


def _other_slide(where: str, value: Any, index: int, configs: list[Config], key: str) -> None:
    if not is_count(value) or not 1 <= value <= len(configs):
        raise LessonError(f"{where}: {key} must be a slide number, 1 to {len(configs)} "
                          f"(got {shown(value)})")
    if value == index + 1:
        raise LessonError(f"{where}: {key} = {value} is this slide itself, which no check "
                          "can fail: name another slide")


def _cross_slide(where: str, kind: str, value: Any, index: int, configs: list[Config]) -> None:
    checked_table(where, value, CROSS_SLIDE[kind])
    _other_slide(where, value["slide"], index, configs, "slide")
    name = value["of" if kind == "ratio" else "metric"]
    for cfg, which in ((configs[index], "this slide"), (configs[value["slide"] - 1],
                                                       f"slide {value['slide']}")):
        _metric(f"{where} (on {which})", name, cfg)
    number = value.get("is", value.get("times"))
    if number is not None and not (is_number(number) and math.isfinite(number)):
        raise LessonError(f"{where}: {'is' if kind == 'ratio' else 'times'} must be a "
                          f"number (got {shown(number)})")
    if kind == "about" and (number is None or not number > 0):
        raise LessonError(f"{where}: times must be above 0 (got {shown(number)})")
