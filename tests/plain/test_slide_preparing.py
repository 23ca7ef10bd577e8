"""A slide is never shown half made: from PageDown until its first state is in (its fresh
model answered, its first step, phase with something to see, or error, and that state's
graph drawn), the model's `preparing` says what the engine is doing; the slide before's
late news never counts. Against the lesson controller's fakes: no window, no engine."""
import dataclasses

from gradviz.plain.records.engine_stages import (
    BUILDING_MODEL,
    IMPORTING_META,
    IMPORTING_TORCH,
    WORKING,
)
from gradviz.plain.window.window_model import WindowModel

from controller_fakes import LESSON, rig

GRAPH, OLD_GRAPH = object(), object()   # graphs as the engine sends them (opaque here)


def opened(index: int, lesson=LESSON, model: WindowModel | None = None):
    """The lesson's fakes on slide `index` (the engine started and built, unless model
    says otherwise), with the model and the slide's SlidePreparing."""
    r = rig(model or WindowModel(engine_state="ready", engine_stage="ready"))
    r.lessons.open(lesson, index)
    return r, r.model, r.lessons.preparing


def test_the_stage_says_what_the_engine_does_until_the_first_step_s_graph_is_drawn():
    # FIRST: loss and graph, by steps; the engine still importing torch (launch)
    _, m, preparing = opened(0, model=WindowModel(engine_state="starting",
                                                  engine_stage=IMPORTING_TORCH))
    assert m.preparing == "Preparing this slide: the training engine is importing torch…"
    m.engine_state = "ready"   # (its start's last beat, heard before the next one)
    assert m.preparing == "Preparing this slide: building the model…"
    m.engine_stage = IMPORTING_META
    assert m.preparing == ("Preparing this slide: importing what PyTorch's meta device "
                           "needs on first use…")
    m.engine_stage = BUILDING_MODEL
    assert m.preparing == "Preparing this slide: building the model…"
    preparing.answered()
    assert m.preparing == "Preparing this slide: the first step…"
    preparing.steps_came()
    assert m.preparing == "Preparing this slide: drawing the autograd graph…"
    preparing.graph_came(GRAPH)
    preparing.graph_drawn(OLD_GRAPH)   # a layout of the slide before's, finished late
    assert m.preparing is not None
    preparing.graph_drawn(GRAPH)
    assert m.preparing is None


def test_zero_grad_shows_nothing_so_a_phase_slide_waits_for_the_forward_pass():
    lesson = dataclasses.replace(LESSON, slides=tuple(
        dataclasses.replace(slide, autoplay=True) for slide in LESSON.slides))
    _, m, preparing = opened(1, lesson)   # by phases, playing now
    preparing.answered()
    assert m.preparing == "Preparing this slide: the first forward pass…"
    preparing.phase_done("zero_grad", failed=False)
    preparing.graph_came(OLD_GRAPH)   # the graph after zero_grad: nothing drawn in it yet
    preparing.graph_drawn(OLD_GRAPH)
    assert m.preparing == "Preparing this slide: the first forward pass…"
    preparing.phase_done("forward", failed=False)
    preparing.graph_came(GRAPH)
    assert m.preparing == "Preparing this slide: drawing the autograd graph…"
    preparing.graph_drawn(GRAPH)
    assert m.preparing is None


def test_the_slide_before_s_news_never_makes_this_one_ready():
    _, m, preparing = opened(2)   # THIRD: the memory chart alone, by steps
    # the slide before's steps, phases and error, still on their way at PageDown
    preparing.steps_came()
    preparing.phase_done("forward", failed=False)
    preparing.failed()
    assert m.preparing == "Preparing this slide: building the model…"
    preparing.answered()
    assert m.preparing == "Preparing this slide: the first step…"
    preparing.steps_came()   # no graph on this slide: its first step is enough
    assert m.preparing is None


def test_a_slide_that_does_not_play_is_shown_with_its_fresh_model_s_graph():
    _, m, preparing = opened(1)   # SECOND does not autoplay
    preparing.answered()
    assert m.preparing == "Preparing this slide: drawing the autograd graph…"
    preparing.graph_drawn(GRAPH)   # same shape as the graph before: restyled at once
    preparing.graph_came(GRAPH)
    assert m.preparing is None


def test_an_error_is_the_slide_s_first_state():
    _, m, preparing = opened(2)
    preparing.answered()
    preparing.failed()
    assert m.preparing is None


def test_a_refused_slide_a_dead_engine_and_leaving_end_the_wait():
    r, m, preparing = opened(2)
    preparing.refused()
    assert m.preparing is None
    r.lessons.open(LESSON, 2)
    m.engine_stage = WORKING
    assert m.preparing == "Preparing this slide: building the model…"
    m.engine_state = "stopped"   # What happened says why, on the slide's stage
    assert m.preparing is None
    r.lessons.open(LESSON, 0)
    r.lessons.leave()
    assert m.preparing is None and r.lessons.preparing.wait is None


def test_a_graph_that_never_comes_does_not_hold_the_slide_back():
    _, m, preparing = opened(0)
    preparing.graph_late()   # nothing of the slide yet: still preparing
    assert m.preparing is not None
    preparing.answered()
    preparing.steps_came()
    preparing.graph_late()
    assert m.preparing is None


def test_the_first_steps_graph_is_asked_for_once_where_the_slide_waits_for_it():
    """Played by steps, the engine sends a graph during Play only when asked (the
    window's live graph, every 1.5 s): the cover stayed that long over a slide already
    moving. Once its first step is in, and only then, it is asked for, once."""
    _, _, preparing = opened(0)          # FIRST: the graph, played by steps
    preparing.answered()
    assert not preparing.ask_graph()     # no step yet: nothing of the slide to draw
    preparing.steps_came()
    assert preparing.ask_graph() and not preparing.ask_graph()
    preparing.graph_came(GRAPH)
    _, _, preparing = opened(0)
    preparing.answered()
    preparing.steps_came()
    preparing.graph_came(GRAPH)          # it came by itself (the live graph): not asked
    assert not preparing.ask_graph()
    _, _, preparing = opened(2)          # THIRD: no graph on the stage
    preparing.answered()
    preparing.steps_came()
    assert not preparing.ask_graph()
