"""Run a lesson's slides headless and check what their narration promises: the error it
names is raised, the curve it says grows grows, the gradient it says is zero is zero.

Metric names: total, loss.headK, junction.headK, cosine.I.J, global_grad_norm,
grad_norm.<param>, saved_bytes, saved_bytes_peak, graph_nodes, z_grad_norm.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .compare import compare
from .lessons import Lesson, Slide
from .records import StepRecord
from .session import Session


@dataclass
class SlideRun:
    records: list[StepRecord]
    error: object | None            # the Event that stopped it, if any


def run_slide(slide: Slide) -> SlideRun:
    session = Session(slide.config.replace(sample_every=1))
    records = []
    for _ in range(slide.steps):
        record = session.step()
        if record is None:
            break
        records.append(record)
    return SlideRun(records, session.error)


def metric(record: StepRecord, name: str) -> float | None:
    head, _, rest = name.partition(".")
    table = {"loss": record.losses, "junction": record.junction_grad_norms,
             "grad_norm": record.grad_norms}
    if head in table:
        return (table[head] or {}).get(rest)
    if head == "cosine":
        i, j = (int(v) for v in rest.split("."))
        return record.cosine[i][j] if record.cosine else None
    return getattr(record, name)


def _series(run: SlideRun, name: str) -> list[float | None]:
    return [metric(r, name) for r in run.records]


def _quarter_means(values: list[float]) -> tuple[float, float]:
    q = max(1, len(values) // 4)
    return sum(values[:q]) / q, sum(values[-q:]) / q


def _check_values(kind: str, name: str, values: list) -> str | None:
    if not values:
        return f"{kind} {name}: no step finished"
    if kind == "absent":
        return None if all(v is None for v in values) else f"{name} was measured"
    if any(v is None for v in values):
        return f"{name} was not measured"
    first, last = _quarter_means(values)
    ok = {"grows": last > 1.5 * first,
          "ends_negative": values[-1] < 0,
          "ends_positive": values[-1] > 0,
          "small": all(abs(v) < 0.1 for v in values),
          "flat": max(values) - min(values) <= 0.01 * max(abs(v) for v in values),
          "zero": all(v == 0 for v in values),
          "positive": all(v > 0 for v in values),
          "negative": all(v < 0 for v in values),
          "decreases": last < first,
          "not_decreasing": last >= first}[kind]
    return None if ok else f"{name} does not {kind.replace('_', ' ')} ({values[0]:.4g} … {values[-1]:.4g})"


def _check(promise: dict, run: SlideRun, lesson: Lesson, runs: list[SlideRun],
           slide: Slide) -> str | None:
    (kind, value), = promise.items()
    if kind == "error":
        message = "" if run.error is None else run.error.message
        return None if value.lower() in message.lower() else \
            f"expected the error '{value}', got {message or 'none'}"
    if kind == "no_error":
        return None if run.error is None else f"unexpected error: {run.error.message}"
    if kind == "ratio":    # { of = metric, slide = N, is = 3.0 }: at step 0, vs slide N's
        mine = metric(run.records[0], value["of"])
        theirs = metric(runs[value["slide"] - 1].records[0], value["of"])
        got = mine / theirs
        return None if math.isclose(got, value["is"], rel_tol=1e-3) else \
            f"{value['of']} is {got:.4g}× slide {value['slide']}'s, not {value['is']}×"
    if kind in ("below", "about"):   # { metric, slide (1-based), times (about) }
        other = runs[value["slide"] - 1]
        mine = max(_series(run, value["metric"]))
        theirs = max(_series(other, value["metric"]))
        if kind == "below":
            return None if mine < theirs else f"{value['metric']} {mine} is not below {theirs}"
        times = mine / theirs
        return None if abs(times - value["times"]) <= 0.2 * value["times"] else \
            f"{value['metric']} is {times:.2f}× slide {value['slide']}'s, not {value['times']}×"
    if kind == "same_gradients_as":
        other = lesson.slides[value - 1].config
        result = compare(other, slide.config, min(5, slide.steps))
        return None if result.same else f"gradients differ from slide {value}: {result.verdict()}"
    return _check_values(kind, value, _series(run, value))


def check_lesson(lesson: Lesson) -> list[str]:
    """Every broken promise, as 'slide N (title): what went wrong'; [] if all hold."""
    runs = [run_slide(s) for s in lesson.slides]
    problems = []
    for i, (slide, run) in enumerate(zip(lesson.slides, runs)):
        for promise in slide.expect:
            problem = _check(promise, run, lesson, runs, slide)
            if problem:
                problems.append(f"slide {i + 1} ({slide.title}): {problem}")
        if slide.stop == "error" and run.error is None:
            problems.append(f"slide {i + 1} ({slide.title}): stops at the error, but none came")
    return problems
