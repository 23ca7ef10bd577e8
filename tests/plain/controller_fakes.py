"""Fakes of what the lesson and Compare controllers drive (plain.controllers.controller_views): each
records what it was asked, in order, with the window model as it was at that moment."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gradviz.plain.config.config import Config
from gradviz.plain.controllers.lesson_controller import LessonController, LessonViews
from gradviz.plain.lessons.lesson_references import DrawnReference
from gradviz.plain.lessons.lessons import Lesson, Slide
from gradviz.plain.records.engine_settings import EngineSettings
from gradviz.plain.records.history import History
from gradviz.plain.stage.stage_layout import Placement, Rect
from gradviz.plain.window.window_model import WindowModel

A = Config(heads=2, batch_size=16, lr=0.07)
FIRST = Slide("First `x.grad`", A.replace(strategy="separate"), "n", panels=("loss", "graph"),
              pace=10.0, stop=30, focus="cut")
SECOND = Slide("Second", A.replace(retain_graph="never"), "n", panels=("graph", "memory"),
               layout="stacked", pace=1.0, play="phases", stop="error", autoplay=False,
               keep="ghost")
THIRD = Slide("Third", A.replace(heads=3), "n", panels=("memory",), pace=3.0, stop=5,
              keep="ghost", focus="head 1")
LESSON = Lesson("99-made-here", "Made `here`", (FIRST, SECOND, THIRD))


@dataclass
class Calls:
    """Every view's calls, in order, as (name, args, what the model said then)."""
    model: WindowModel
    seen: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = field(default_factory=list)

    def add(self, name: str, *args: Any) -> None:
        m = self.model
        self.seen.append((name, args, dict(
            requested=m.requested, pace_ms=m.pace_ms, play_mode=m.play_mode,
            stop_at=m.stop_at, lesson=m.lesson, slide=m.slide)))

    def named(self, name: str) -> list[tuple[Any, ...]]:
        return [args for n, args, _ in self.seen if n == name]

    def order(self) -> list[str]:
        return [n for n, _, _ in self.seen]


class FakeEngine:
    def __init__(self, calls: Calls):
        self.calls = calls

    def show_slide(self, config: Config, settings: EngineSettings, play: bool) -> None:
        self.calls.add("show_slide", config, settings, play)

    def open_model(self, path: str | None, config: Config | None) -> None:
        self.calls.add("open_model", path, config)

    def prepare_engine(self, path: str | None, config: Config) -> None:
        self.calls.add("prepare_engine", path, config)

    def drop_prepared(self) -> None:
        self.calls.add("drop_prepared")

    def warm_next(self, config: Config | None) -> None:
        self.calls.add("warm_next", config)

    def pause(self) -> None:
        self.calls.add("pause")

    def train_again(self, config: Config, settings: EngineSettings, steps: int) -> None:
        self.calls.add("train_again", config, settings, steps)


class FakeStage:
    def __init__(self, calls: Calls):
        self.calls = calls
        self.placement: Placement | None = None

    def show_slide(self, panels: tuple[str, ...], layout: str, zoom: float) -> None:
        self.calls.add("stage", panels, layout, zoom)

    def set_zoom(self, zoom: float) -> None:
        self.calls.add("set_zoom", zoom)

    def arrange(self) -> None:
        self.calls.add("arrange")


class FakeGraph:
    def __init__(self, calls: Calls):
        self.calls = calls
        self.key_shown = True
        self.module_view = False   # every op, as a user may have it

    def set_module_view(self, on: bool) -> None:
        self.module_view = on
        self.calls.add("module_view", on)

    def set_key_shown(self, shown: bool) -> None:
        self.key_shown = shown
        self.calls.add("key_shown", shown)


class FakeChart:
    """A chart that draws a second run; several controllers may draw on it."""

    def __init__(self, calls: Calls, name: str = "ghost"):
        self.calls, self.name = calls, name
        self.ghost: History | None = None

    def set_ghost(self, history: History | None) -> None:
        self.ghost = history
        self.calls.add(self.name, history)


class FakeReferences:
    def __init__(self, calls: Calls):
        self.calls = calls
        self.lines: dict[str, list[DrawnReference]] = {}

    def set_references(self, lines: dict[str, list[DrawnReference]]) -> None:
        self.lines = lines
        self.calls.add("references", lines)


class FakeNarration:
    def __init__(self, calls: Calls):
        self.calls = calls

    def show_slide(self, lesson_title: str, slide: Slide, index: int, count: int) -> None:
        self.calls.add("narration", lesson_title, slide, index, count)

    def clear(self) -> None:
        self.calls.add("narration_clear")

    def show_figures(self, texts: list[str]) -> None:
        self.calls.add("figures", texts)


class FakeTitles:
    def __init__(self, calls: Calls):
        self.calls = calls
        self.title = ""

    def set_title(self, title: str) -> None:
        self.title = title
        self.calls.add("title", title)


class FakeCards:
    """The stage's slide of text: what it says now (None: none shown)."""

    def __init__(self, calls: Calls):
        self.calls = calls
        self.shown: tuple[str, str] | None = None

    def show_card(self, title: str, text: str) -> None:
        self.shown = (title, text)
        self.calls.add("card", title, text)

    def hide_card(self) -> None:
        if self.shown is not None:
            self.calls.add("card_hidden")
        self.shown = None


class Runs:
    """history(): a new History each time it is asked (the run on screen then)."""

    def __init__(self) -> None:
        self.given: list[History] = []

    def __call__(self) -> History:
        self.given.append(History(["h0", "h1"], ["w"]))
        return self.given[-1]


class Later:
    """later(): the checks asked for, run when the test says."""

    def __init__(self) -> None:
        self.waiting: list[Any] = []

    def __call__(self, run: Any) -> None:
        self.waiting.append(run)

    def run(self) -> None:
        waiting, self.waiting = self.waiting, []
        for run in waiting:
            run()


@dataclass
class Rig:
    model: WindowModel
    calls: Calls
    stage: FakeStage
    graph: FakeGraph
    chart: FakeChart
    titles: FakeTitles
    references: FakeReferences
    runs: Runs
    later: Later
    lessons: LessonController
    cards: FakeCards


def rig(model: WindowModel | None = None) -> Rig:
    model = model or WindowModel(requested=A, confirmed=A, pace_ms=5)
    calls = Calls(model)
    stage, graph, chart = FakeStage(calls), FakeGraph(calls), FakeChart(calls)
    titles, references, runs, later = FakeTitles(calls), FakeReferences(calls), Runs(), Later()
    cards = FakeCards(calls)
    lessons = LessonController(model, LessonViews(
        FakeEngine(calls), stage, graph, chart, references, FakeNarration(calls), titles,
        runs, later, cards))
    return Rig(model, calls, stage, graph, chart, titles, references, runs, later, lessons,
               cards)


def placement(fits: float = 1.0, whole: bool = True, graph_width: int = 0,
              kept: bool = True) -> Placement:
    panels = {"graph": Rect(0, 0, graph_width, 300)} if graph_width else {}
    return Placement(Rect(0, 0, 300, 200), whole, panels, "row", fits, main_kept=kept)
