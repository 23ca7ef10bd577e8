"""Run a lesson's slides headless and check what their narration promises (the error it
names is raised, the curve it says grows grows). The lesson was validated on reading;
what only a run shows (a metric not measured, a ratio to a zero) breaks a promise."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

from ..plain.config.config import ConfigError, shown
from ..plain.config.model_names import model_path
from ..plain.lessons.lessons import Lesson, LessonError, Slide
from ..plain.records.events import Event
from ..plain.records.records import StepRecord
from .compare import compare
from .ddp_ranks import close_rank_group
from .devices import resolve_device
from .model_file import ModelFile, check_config
from .session import Session

# how a broken promise of each kind reads: "total does not decrease (2.1 … 2.3)"
BROKEN = {"grows": "does not grow", "flat": "is not flat", "zero": "is not zero",
          "positive": "is not always positive", "negative": "is not always negative",
          "small": "is not small (below 0.1 in size)", "decreases": "does not decrease",
          "not_decreasing": "decreases", "ends_positive": "does not end positive",
          "ends_negative": "does not end negative",
          "no_gradient": "had a gradient"}
SAME_GRADIENT_STEPS = 5


class Broken(Exception):
    """A promise that a run cannot hold to; str() is the one line that says why."""


@dataclass
class SlideRun:
    records: list[StepRecord]
    error: Event | None             # the Event that stopped it, if any


def slide_model(slide: Slide) -> ModelFile | None:
    """The bundled model file a slide trains, loaded once per name (None: built-in)."""
    if not slide.model_file:
        return None
    if slide.model_file not in _LOADED:
        with model_path(slide.model_file) as path:
            _LOADED[slide.model_file] = ModelFile(path)
    return _LOADED[slide.model_file]


_LOADED: dict[str, ModelFile] = {}


def run_slide(slide: Slide) -> SlideRun:
    session = Session(slide.config.replace(sample_every=1), slide_model(slide))
    records = []
    for _ in range(slide.steps):
        record = session.step()
        if record is None:
            break
        records.append(record)
    return SlideRun(records, session.error)   # its DDP ranks, if any, serve the next


def metric(record: StepRecord, name: str) -> float | None:
    """The metric's value at this step; None where it was not measured."""
    family, _, rest = name.partition(".")
    table = {"loss": record.losses, "junction": record.junction_grad_norms,
             "grad_norm": record.grad_norms, "loss_change": record.loss_change,
             "loss_change_trunk": record.loss_change_trunk,
             "loss_change_head": record.loss_change_head}
    if family in table:
        return (table[family] or {}).get(rest)
    if family == "cosine":
        i, j = (int(v) for v in rest.split("."))
        return record.cosine[i][j] if record.cosine else None
    if family == "update_cosine":   # .min: the head the step helps least (NaN: no direction)
        update = record.update_cosine or {}
        if rest == "min":
            return min(update.values(), default=None)
        return update.get(rest)
    return getattr(record, name)


def _series(run: SlideRun, name: str, whose: str = "") -> list[float]:
    """Every step's value; Broken if no step finished or one was not measured."""
    if not run.records:
        why = f": {run.error.title}" if run.error is not None else ""
        raise Broken(f"{whose}{name}: no step finished (stopped at step 0{why})")
    values = [metric(r, name) for r in run.records]
    measured = [v for v in values if v is not None]
    if len(measured) < len(values):
        at = values.index(None)
        if _no_gradient(run.records[at], name):
            raise Broken(f"{whose}{name}: no gradient (.grad is None) at step {at}")
        raise Broken(f"{whose}{name} was not measured at step {at}")
    return measured


def _no_gradient(record: StepRecord, name: str) -> bool:
    """Whether name is a parameter's gradient norm, measured at this step as None."""
    family, _, param = name.partition(".")
    norms = record.grad_norms
    return family == "grad_norm" and norms is not None and param in norms \
        and norms[param] is None


def _quarter_means(values: list[float]) -> tuple[float, float]:
    q = max(1, len(values) // 4)
    return sum(values[:q]) / q, sum(values[-q:]) / q


def _check_values(kind: str, name: str, run: SlideRun) -> None:
    if kind == "absent":
        if any(metric(r, name) is not None for r in run.records):
            raise Broken(f"{name} was measured")
        return
    if kind == "no_gradient":
        _check_no_gradient(name, run)
        return
    values = _series(run, name)
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
    if not ok:
        raise Broken(f"{name} {BROKEN[kind]} ({values[0]:.4g} … {values[-1]:.4g})")


def _check_no_gradient(name: str, run: SlideRun) -> None:
    """Every step measured the parameter's gradient norm, and found .grad None."""
    if not run.records:
        raise Broken(f"{name}: no step finished")
    for r in run.records:
        if not _no_gradient(r, name):
            value = metric(r, name)
            if value is None:
                raise Broken(f"{name} was not measured at step {r.step}")
            raise Broken(f"{name} {BROKEN['no_gradient']} at step {r.step} (norm {value:.4g})")


def _ratio(value: dict, run: SlideRun, runs: list[SlideRun]) -> None:
    """{ of = metric, slide = N, is = 3.0 }: at step 0, against slide N's."""
    name, n = value["of"], value["slide"]
    mine = _series(run, name)[0]
    theirs = _series(runs[n - 1], name, f"slide {n}'s ")[0]
    if theirs == 0:
        raise Broken(f"slide {n}'s {name} is 0 at step 0, so no ratio to it is "
                     f"{value['is']:g} (this slide's is {mine:.4g})")
    got = mine / theirs
    if not math.isclose(got, value["is"], rel_tol=1e-3):
        raise Broken(f"{name} is {got:.4g}× slide {n}'s, not {value['is']:g}×")


def _below_or_about(kind: str, value: dict, run: SlideRun, runs: list[SlideRun]) -> None:
    """{ metric, slide = N }: this slide's peak below slide N's; (about) times theirs."""
    name, n = value["metric"], value["slide"]
    mine = max(_series(run, name))
    theirs = max(_series(runs[n - 1], name, f"slide {n}'s "))
    if kind == "below":
        if not mine < theirs:
            raise Broken(f"{name} {mine:.4g} is not below slide {n}'s {theirs:.4g}")
        return
    if theirs == 0:
        raise Broken(f"slide {n}'s {name} is 0, so no multiple of it is "
                     f"{value['times']:g}× (this slide's is {mine:.4g})")
    times = mine / theirs
    if abs(times - value["times"]) > 0.2 * value["times"]:
        raise Broken(f"{name} is {times:.2f}× slide {n}'s, not {value['times']:g}×")


def _equals(value: dict, run: SlideRun) -> None:
    """{ metric, value }: the metric is that value at every step the slide ran."""
    name, wanted = value["metric"], value["value"]
    for step, got in enumerate(_series(run, name)):
        if got != wanted:
            raise Broken(f"{name} is {got:g} at step {step}, not {wanted:g}")


def _check_reference(ref, runs: list[SlideRun]) -> None:
    """A line drawn at slide N's value at step S: that run measured it there."""
    if ref.slide is None:
        return
    records = runs[ref.slide - 1].records
    value = metric(records[ref.step], ref.metric) if ref.step < len(records) else None
    if value is None or not math.isfinite(value):
        raise Broken(f"reference {shown(ref.label)}: slide {ref.slide} has no "
                     f"{ref.metric} at step {ref.step} to draw")


def _same_gradients(n: int, lesson: Lesson, slide: Slide, same: bool = True) -> None:
    """same: the gradients are slide n's up to rounding; False: they differ from them."""
    try:
        result = compare(lesson.slides[n - 1].config, slide.config,
                         min(SAME_GRADIENT_STEPS, slide.steps), model_file=slide_model(slide))
    except ConfigError as exc:   # validated on reading: a guard, not a path
        raise Broken(f"cannot compare with slide {n}: {exc}") from exc
    if not same:
        if result.error is not None or result.same:
            raise Broken(f"gradients not told different from slide {n}'s: "
                         f"{(result.verdict().strip().splitlines() or [''])[0]}")
    elif not result.same:
        verdict = (result.verdict().strip().splitlines() or [""])[0]
        raise Broken(f"gradients differ from slide {n}'s: {verdict}")


def _said(event) -> str:
    """What PyTorch said, on one line: its messages can run to several."""
    lines = event.message.strip().splitlines() if event is not None else []
    return lines[0][:200] if lines else "none"


def _check(promise: dict, run: SlideRun, lesson: Lesson, runs: list[SlideRun],
           slide: Slide) -> None:
    (kind, value), = promise.items()
    if kind == "error":
        message = "" if run.error is None else run.error.message
        if value.lower() not in message.lower():
            raise Broken(f"expected the error {shown(value)}, got {_said(run.error)}")
    elif kind == "no_error":
        if run.error is not None:
            raise Broken(f"unexpected error at step {run.error.step}: {_said(run.error)}")
    elif kind == "ratio":
        _ratio(value, run, runs)
    elif kind in ("below", "about"):
        _below_or_about(kind, value, run, runs)
    elif kind == "equals":
        _equals(value, run)
    elif kind == "same_gradients_as":
        _same_gradients(value, lesson, slide)
    elif kind == "different_gradients_from":
        _same_gradients(value, lesson, slide, same=False)
    else:
        _check_values(kind, value, run)


def check_devices(lesson: Lesson) -> None:
    """LessonError (one line, naming the slide) if a slide's device is not one this
    machine has: the lesson cannot be checked here, which no run should find out."""
    for i, slide in enumerate(lesson.slides):
        try:
            resolve_device(slide.config.device)
        except ConfigError as exc:
            where = lesson.source or lesson.name
            raise LessonError(f"{where}, slide {i + 1}, config: {exc}") from exc


def check_models(lesson: Lesson) -> None:
    """LessonError (one line, naming the slide) if a slide's config does not fit the
    model file it names (its head count, its trunk's outputs): the window would train
    another config than the one the slide's promises were written for."""
    for i, slide in enumerate(lesson.slides):
        model = slide_model(slide)
        if model is None:
            continue
        try:
            check_config(slide.config, model.head_count(), model.taps)
        except ConfigError as exc:
            where = lesson.source or lesson.name
            raise LessonError(f"{where}, slide {i + 1}, config: {exc} "
                              f"({slide.model_file})") from exc


def check_lesson(lesson: Lesson, played=None, checked=None) -> list[str]:
    """Every broken promise, as 'slide N (title): what went wrong'; [] if all hold.
    played(i, slide, run, seconds): told as each slide has played; checked(i, promise,
    broken or None): as each promise is checked (progress, for the command)."""
    try:
        return _check_lesson(lesson, played, checked)
    finally:
        close_rank_group()   # the DDP ranks its slides shared end with the check


def _check_lesson(lesson: Lesson, played, checked) -> list[str]:
    runs = []
    for i, slide in enumerate(lesson.slides):
        started = time.perf_counter()
        runs.append(run_slide(slide))
        if played is not None:
            played(i, slide, runs[-1], time.perf_counter() - started)
    problems = []
    for i, (slide, run) in enumerate(zip(lesson.slides, runs)):
        broken = []
        for promise in slide.expect:
            why = None
            try:
                _check(promise, run, lesson, runs, slide)
            except Broken as exc:
                why = str(exc)
                broken.append(why)
            if checked is not None:
                checked(i, promise, why)
        for ref in slide.reference:
            try:
                _check_reference(ref, runs)
            except Broken as exc:
                broken.append(str(exc))
        if slide.stop == "error" and run.error is None:
            broken.append(f"stop = \"error\", but no error came in {slide.steps} steps")
        title = " ".join(slide.title.split())   # a title may span lines; a problem may not
        problems += [f"slide {i + 1} ({title}): {b}" for b in broken]
    return problems
