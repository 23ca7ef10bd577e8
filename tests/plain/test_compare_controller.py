"""The Compare controller against fakes (no window, no engine process): which B is asked
for, what the engine's answers do to B's history and the charts' ghosts, the words the
dock shows, the menu, and B drawn over a lesson's ghost."""
from collections import deque

import pytest

from gradviz.plain.config.config import Config
from gradviz.plain.controllers.compare_controller import (
    CompareController,
    CompareViews,
    differences,
)
from gradviz.plain.records.records import CompareRecord, StepRecord
from gradviz.plain.window.window_model import WindowModel

from controller_fakes import LESSON, A, Calls, FakeChart, rig


class FakePanel:
    def __init__(self, calls: Calls):
        self.calls = calls

    def show_pinned(self, b_name, differences):
        self.calls.add("pinned", b_name, differences)

    def set_differences(self, b_name, differences):
        self.calls.add("differences", b_name, differences)

    def show_record(self, record):
        self.calls.add("record", record)

    def show_stopped(self):
        self.calls.add("stopped")

    def show_failed(self, reason):
        self.calls.add("failed", reason)


class FakeFront:
    def __init__(self, calls: Calls):
        self.calls = calls

    def reveal(self, beside_charts):
        self.calls.add("reveal", beside_charts)


class FakeMenu:
    def __init__(self, calls: Calls):
        self.calls = calls
        self.shown: tuple = ()

    def show_choices(self, slides, slides_enabled, stop_enabled):
        self.shown = (slides, slides_enabled, stop_enabled)
        self.calls.add("menu", slides, slides_enabled, stop_enabled)


class Compare:
    """A compare controller with its fakes; lessons: the lesson controller whose lesson
    it offers (and whose charts it may share)."""

    def __init__(self, model=None, lesson=None, charts=None):
        self.model = model or WindowModel(requested=A)
        self.calls = Calls(self.model)
        self.menu = FakeMenu(self.calls)
        self.charts = charts or [FakeChart(self.calls, "loss"), FakeChart(self.calls, "memory")]
        self.a = rig(self.model).runs   # A's run: a History with A's heads
        self.lesson = lesson
        self.compare = CompareController(self.model, CompareViews(
            FakePanel(self.calls), FakeFront(self.calls), self.menu, self.charts, self.a,
            lambda: self.lesson))

    def pinned_by_engine(self, config: Config | None, problem: str | None = None) -> None:
        """The engine's answer, as its adapter gives it: the model first, then the event."""
        self.model.pinned_b = config
        self.compare.on_b_pinned(config, problem)


B = A.replace(strategy="in-loop")


def step(i: int) -> StepRecord:
    return StepRecord(step=i, losses={"h0": 1.0, "h1": 2.0}, total=3.0)


def record(i: int, b: bool = True) -> CompareRecord:
    return CompareRecord(step=i, verdict=f"verdict {i}", same=True, b=step(i) if b else None)


def test_differences_name_each_setting_that_differs_in_words():
    a = Config(heads=2, strategy="sum", lr=0.05, loss_weights=(1.0, 2.0))
    b = a.replace(strategy="in-loop", lr=0.1, loss_weights=(1.0, 4.0), steps=9, seed=3)
    assert differences(a, b) == ("strategy: A sum, B in-loop; loss weights: A 1, 2, B 1, 4; "
                                 "lr: A 0.05, B 0.1; seed: A 0, B 3")
    # steps, probes and sample_every never tell A and B apart
    assert differences(a, a.replace(steps=9, probes="all", sample_every=4)) == \
        "the same settings as A (so far)"
    assert differences(a, a.replace(clip=1.5)) == "clip: A none, B 1.5"
    assert differences(a.replace(detach=(1,)), a) == "detach: A 1, B none"


def test_pin_these_settings_asks_for_b_and_says_so():
    c = Compare()
    c.compare.pin_settings()
    assert c.model.b_requested == A and c.compare.comparing
    assert c.calls.named("pinned") == [("the settings pinned", "the same settings as A (so far)")]
    assert c.calls.named("reveal") == [(True,)]         # the Memory chart and the bars too
    assert c.menu.shown[2] is True                        # Stop, while comparing
    # nothing drawn until the engine pins it
    assert c.compare.history_b is None and c.calls.named("loss") == []


def test_in_a_lesson_the_compare_dock_leaves_the_stage_as_it_is():
    c = Compare(WindowModel(requested=A, lesson="99-made-here"))
    c.compare.pin_settings()
    assert c.calls.named("reveal") == [(False,)]


def test_b_pinned_by_the_engine_is_a_fresh_history_on_every_chart():
    c = Compare()
    c.compare.pin(B, "mine")
    c.pinned_by_engine(B)
    history = c.compare.history_b
    assert history is not None and len(history) == 0
    assert history.head_names == ["h0", "h1"] and history.param_names == ["w"]
    assert [chart.ghost for chart in c.charts] == [history, history]


def test_an_answer_for_a_b_no_longer_asked_for_draws_nothing():
    c = Compare()
    c.pinned_by_engine(B)                                  # (stopped before the answer came)
    assert c.compare.history_b is None and c.calls.named("loss") == []


def test_a_refused_b_is_forgotten_and_said_in_words():
    c = Compare()
    c.compare.pin(B, "two.toml")
    c.pinned_by_engine(None, "heads is 3 in A, 2 in B")
    assert c.model.b_requested is None and not c.compare.comparing
    assert c.calls.named("failed") == [("heads is 3 in A, 2 in B",)]
    assert c.calls.named("reveal") == [(True,), (True,)]
    assert c.menu.shown[2] is False
    assert all(chart.ghost is None for chart in c.charts)


def test_stop_comparing_drops_b_and_its_ghosts():
    c = Compare()
    c.compare.pin(B, "mine")
    c.pinned_by_engine(B)
    c.compare.stop()
    assert c.model.b_requested is None and c.compare.history_b is None
    assert all(chart.ghost is None for chart in c.charts)
    assert c.calls.named("stopped") == [()] and c.menu.shown[2] is False
    c.pinned_by_engine(None)                               # the engine's answer to the stop
    assert c.calls.named("failed") == [] and c.model.b_requested is None


def test_a_config_applied_says_the_differences_and_a_fresh_model_starts_b_again():
    c = Compare()
    c.compare.pin(A, "the settings pinned")
    c.pinned_by_engine(A)
    first = c.compare.history_b
    c.compare.on_config_applied(B, False)                  # A changed, same model
    assert c.compare.history_b is first
    assert c.calls.named("differences") == [
        ("the settings pinned", "strategy: A in-loop, B sum")]
    c.compare.on_config_applied(B, True)                   # both from step 0 again
    assert c.compare.history_b is not first and c.charts[0].ghost is c.compare.history_b


def test_a_config_applied_while_not_comparing_says_nothing():
    c = Compare()
    c.compare.on_config_applied(B, True)
    c.compare.pin(B, "mine")
    c.compare.on_config_applied(B, True)                   # asked for, not yet pinned
    assert c.calls.named("differences") == [] and c.compare.history_b is None


def test_a_config_applied_after_stop_before_the_engines_answer_says_nothing():
    c = Compare()
    c.compare.pin(B, "mine")
    c.pinned_by_engine(B)
    c.compare.stop()                                       # pinned_b: still B, until answered
    c.compare.on_config_applied(A, True)
    assert c.calls.named("differences") == [] and c.compare.history_b is None


def test_drain_keeps_this_models_b_steps_and_shows_the_newest_verdict():
    c = Compare()
    c.compare.pin(B, "mine")
    c.pinned_by_engine(B)
    compared = deque([(4, record(0)), (5, record(0)), (5, record(1, b=False)), (5, record(2))])
    assert c.compare.drain(compared, 5) == 2               # generation 4's step: dropped
    history = c.compare.history_b
    assert not compared and history is not None and len(history) == 2
    assert [r.step for r, in c.calls.named("record")] == [2]
    assert c.compare.drain(deque(), 5) == 0 and len(c.calls.named("record")) == 1
    assert c.compare.seen() == (id(c.compare.history_b), 2)


def test_drain_without_b_empties_what_came_and_shows_nothing():
    c = Compare()
    compared = deque([(1, record(0))])
    assert c.compare.drain(compared, 1) == 0 and not compared
    assert c.calls.named("record") == [] and c.compare.seen()[1] == 0


def test_b_from_a_saved_file_is_its_changes_on_top_of_a(tmp_path):
    path = tmp_path / "separate.toml"
    path.write_text('strategy = "separate"\nbatch-size = 8\n')
    c = Compare()
    c.compare.pin_file(str(path))
    assert c.model.b_requested == A.replace(strategy="separate", batch_size=8)
    assert c.calls.named("pinned") == [
        ("separate.toml", "strategy: A sum, B separate; batch size: A 16, B 8")]


def test_a_file_that_is_no_settings_is_said_and_nothing_pinned(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('heads = "many"\n')
    c = Compare()
    c.compare.pin_file(str(path))
    assert c.model.b_requested is None
    (reason,), = c.calls.named("failed")
    assert "heads" in reason and "\n" not in reason


def test_the_menu_offers_the_open_lessons_other_slides():
    c = Compare()
    assert c.menu.shown == ([], False, False)              # no lesson open
    c.lesson = LESSON
    c.model.lesson, c.model.slide = LESSON.name, 1         # the model says: slide 2
    assert c.menu.shown == ([(0, LESSON.slides[0].title), (2, "Third")], True, False)
    c.model.slide = 0
    assert c.menu.shown[0] == [(1, "Second"), (2, "Third")]
    c.lesson = LESSON.__class__(LESSON.name, LESSON.title, LESSON.slides[:1])
    c.compare.update_menu()
    assert c.menu.shown == ([], False, False)              # one slide: nothing else to be B


@pytest.mark.parametrize("index", [-1, 3])
def test_a_slide_outside_the_lesson_is_no_b(index):
    c = Compare()
    c.lesson = LESSON
    c.compare.pin_slide(index)
    assert c.model.b_requested is None and c.calls.named("pinned") == []


def test_another_slide_of_the_lesson_as_b():
    c = Compare()
    c.lesson = LESSON
    c.compare.pin_slide(1)
    assert c.model.b_requested == LESSON.slides[1].config
    assert c.calls.named("pinned")[0][0] == "slide 2, “Second”"
    c.lesson = None
    c.compare.pin_slide(0)                                  # the lesson left meanwhile
    assert c.model.b_requested == LESSON.slides[1].config


def test_b_pinned_during_a_lesson_stays_over_the_slides_ghost():
    """One set of charts: a slide's ghost first, then Compare's B; later slides and the
    lesson's end leave B on them (from each slide on, B's run beside that slide's)."""
    r = rig()
    charts = [r.chart]
    c = Compare(r.model, charts=charts)
    c.lesson = LESSON
    r.lessons.open(LESSON)
    r.lessons.next()                                        # keep = "ghost"
    assert r.chart.ghost is r.runs.given[-1]
    c.compare.pin_slide(0)
    c.pinned_by_engine(LESSON.slides[0].config)
    b = c.compare.history_b
    assert r.chart.ghost is b
    r.lessons.next()                                        # keep = "ghost": B stays
    b = c.compare.history_b
    assert r.chart.ghost is b and b not in r.runs.given and len(b) == 0
    r.lessons.leave()
    assert r.chart.ghost is b
    c.compare.stop()
    assert r.chart.ghost is None
