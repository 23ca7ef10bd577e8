"""Compare on a lesson's slide plays as PageDown plays it: B pinned (the pin starts A and B
at step 0, paused), the slide is sent again, with Play where it autoplays, and is prepared
as any slide is; outside a lesson, or refused, nothing more is sent."""
from test_compare_controller import FakeFront, FakeMenu, FakePanel

from gradviz.plain.controllers.compare_controller import (
    CompareController,
    CompareViews,
    differences,
)
from gradviz.plain.window.window_model import WindowModel

from controller_fakes import LESSON, SECOND, THIRD, A, FakeChart, rig

B = A.replace(strategy="in-loop")


def compare_on(r):
    """A compare controller beside the lesson rig's controller, on the same model."""
    return CompareController(r.model, CompareViews(
        FakePanel(r.calls), FakeFront(r.calls), FakeMenu(r.calls), [FakeChart(r.calls)],
        r.runs, lambda: r.lessons.lesson, r.lessons.replay))


def pinned_by_engine(r, compare, config, problem=None):
    r.model.pinned_b = config
    compare.on_b_pinned(config, problem)


def test_b_pinned_on_a_slide_plays_the_slide_again_from_step_0():
    r = rig(WindowModel(requested=A, engine_state="ready"))
    compare = compare_on(r)
    r.lessons.open(LESSON, 2)   # THIRD: the memory chart
    r.lessons.preparing.answered()
    r.lessons.preparing.steps_came()   # the slide's first state: shown
    assert r.model.preparing is None
    compare.pin_slide(1)
    assert len(r.calls.named("show_slide")) == 1   # asked for; the engine has not pinned it
    pinned_by_engine(r, compare, SECOND.config)
    sent = r.calls.named("show_slide")
    assert len(sent) == 2 and sent[1] == sent[0]   # the same slide, with Play (autoplay)
    assert sent[1][0] == THIRD.config and sent[1][2] is True
    assert r.model.preparing == "Preparing this slide: building the model…"


def test_a_slide_that_does_not_autoplay_is_sent_again_without_play():
    r = rig(WindowModel(requested=A, engine_state="ready"))
    compare = compare_on(r)
    r.lessons.open(LESSON, 1)
    compare.pin_slide(0)
    pinned_by_engine(r, compare, LESSON.slides[0].config)
    assert [args[2] for args in r.calls.named("show_slide")] == [False, False]


def test_outside_a_lesson_or_refused_nothing_is_sent():
    r = rig(WindowModel(requested=A))
    compare = compare_on(r)
    compare.pin_settings()
    pinned_by_engine(r, compare, A)
    assert r.calls.named("show_slide") == []
    r.lessons.open(LESSON, 0)
    compare.pin(B, "in-loop")
    pinned_by_engine(r, compare, None, "B cannot be built")
    assert len(r.calls.named("show_slide")) == 1   # PageDown's own


def test_the_next_slide_keeps_nothing_of_the_slide_befores_comparison():
    """B pinned on a slide, a verdict shown, then PageDown onto a slide that sends no
    step of B (an error slide, played by phases): the verdict goes at once, B's lines
    start again empty, the figures wait for the slide's own run, and B's steps of the
    slide before's model, still on their way, are not shown as this slide's."""
    from collections import deque

    from gradviz.plain.records.records import CompareRecord, StepRecord

    r = rig(WindowModel(requested=A, engine_state="ready"))
    compare = compare_on(r)
    chart = compare.views.ghosts[0]
    r.lessons.open(LESSON, 0)
    compare.pin_slide(2)
    pinned_by_engine(r, compare, THIRD.config)
    r.model.generation = 3   # the fresh model the pin's replay trained
    run_b = compare.history_b
    b_step = StepRecord(step=0, losses={"h0": 1.0, "h1": 2.0}, total=3.0)
    said = CompareRecord(0, "B's gradient on the trunk, head 0: 0.33× A's", False, b=b_step)
    assert compare.drain(deque([(3, said)]), 3) == 1
    assert r.calls.named("record")[-1] == (said,) and len(run_b) == 1
    before = len(r.calls.seen)

    r.lessons.next()   # SECOND: an error slide, played by phases
    after = [(name, args) for name, args, _ in r.calls.seen[before:]]
    names = [name for name, _ in after]
    assert "pinned" in names and "record" not in names   # the verdict said again as none
    # A is the new slide's settings (not the slide before's) beside the pinned B
    assert after[names.index("pinned")][1][1] == differences(SECOND.config, THIRD.config)
    assert chart.ghost is compare.history_b and chart.ghost is not run_b
    assert len(compare.history_b) == 0
    assert r.calls.named("figures")[-1] == ([],)   # SECOND has none; nothing kept

    # the slide before's last steps of B, read before the engine had the slide's model
    assert compare.drain(deque([(3, said)]), 3) == 0
    assert r.calls.named("record")[-1] == (said,) and len(r.calls.named("record")) == 1
    assert len(compare.history_b) == 0


def test_a_slides_figures_never_show_the_slide_befores_run():
    """Until the engine has the slide's fresh model, the steps that come are the slide
    before's (already on their way): its figures say "not yet", then measure its own."""
    import dataclasses

    from gradviz.plain.lessons.lesson_figures import NOT_YET, Figure
    from gradviz.plain.lessons.lessons import Lesson
    from gradviz.plain.records.history import History
    from gradviz.plain.records.records import StepRecord

    walks = Figure("trunk_walks", "trunk walked {}×", digits=0)
    counted = dataclasses.replace(THIRD, figures=(walks,))
    lesson = Lesson("98-figures", "Figures", (LESSON.slides[0], counted))

    def run(walked: int) -> History:
        h = History(["h0", "h1"], [])
        h.append(StepRecord(step=0, losses={"h0": 1.0, "h1": 1.0}, total=2.0,
                            trunk_walks=walked))
        return h

    r = rig(WindowModel(requested=A, engine_state="ready"))
    r.lessons.open(lesson, 0)
    r.lessons.next()
    r.lessons.update_figures(run(3))   # the slide before's last step, read now
    assert r.calls.named("figures")[-1] == ([f"trunk walked {NOT_YET}×"],)
    r.lessons.preparing.answered()     # the slide's fresh model: its own run from here
    r.lessons.update_figures(run(1))
    assert r.calls.named("figures")[-1] == (["trunk walked 1×"],)
