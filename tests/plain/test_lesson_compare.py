"""Compare on a lesson's slide plays as PageDown plays it: B pinned (the pin starts A and B
at step 0, paused), the slide is sent again, with Play where it autoplays, and is prepared
as any slide is; outside a lesson, or refused, nothing more is sent."""
from test_compare_controller import FakeFront, FakeMenu, FakePanel

from gradviz.plain.compare_controller import CompareController, CompareViews
from gradviz.plain.window_model import WindowModel

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
