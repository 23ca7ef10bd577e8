"""The next slide prepared while the slide on screen plays, against fakes (no window, no
engine): nothing is asked until the slide moves (its first state shown), so it never slows
it; then an engine on the next slide's model where that is another one (which PageDown's
open_model takes), else the next slide's config for the engine on screen to warm; asked
once a slide; after the last bundled slide, and on leaving, what was started ends."""
import dataclasses

from gradviz.plain.controllers.slide_ahead import next_place, slide_model_path
from gradviz.plain.lessons.lessons import Lesson, bundled_names, find_lesson
from gradviz.plain.window.window_model import WindowModel

from controller_fakes import FIRST, SECOND, A, rig

CNN = dataclasses.replace(SECOND, config=A.replace(heads=2), model_file="cnn_two_heads")
AHEAD = ("prepare_engine", "drop_prepared", "warm_next")


def asked(r) -> list[tuple]:
    return [(name, *args) for name, args, _ in r.calls.seen if name in AHEAD]


def moved(r) -> None:
    """The slide's fresh model answered, its first step in and that step's graph drawn:
    the slide moves."""
    preparing, graph = r.lessons.preparing, object()
    preparing.answered()
    preparing.steps_came()
    preparing.graph_came(graph)
    preparing.graph_drawn(graph)
    assert r.model.preparing is None


def test_the_next_slides_engine_starts_once_this_slide_moves_and_pagedown_takes_it():
    r = rig(WindowModel(requested=A, engine_state="ready"))
    lesson = Lesson("97-to-a-cnn", "To a CNN", (FIRST, CNN, FIRST))
    r.lessons.open(lesson, 0)
    assert asked(r) == []   # the slide is being prepared: nothing may slow it
    moved(r)
    path = slide_model_path(CNN)
    assert path is not None and path.endswith("cnn_two_heads.py")
    assert asked(r) == [("prepare_engine", path, CNN.config), ("warm_next", None)]
    r.lessons.replay()      # (Compare pinned: the slide played again, and moving again)
    moved(r)
    assert len(asked(r)) == 2   # asked once a slide

    r.lessons.next()        # PageDown: the engine on the CNN is the one prepared
    assert r.calls.named("open_model")[-1] == (path, CNN.config)
    moved(r)                # the slide after trains the built-in model: prepared too
    assert asked(r)[2:] == [("prepare_engine", None, FIRST.config), ("warm_next", None)]


def test_a_next_slide_on_the_same_model_is_warmed_by_the_engine_on_screen():
    r = rig(WindowModel(requested=A, engine_state="ready"))
    lesson = Lesson("96-same-model", "Same model", (FIRST, SECOND))
    r.lessons.open(lesson, 0)
    moved(r)
    assert asked(r) == [("drop_prepared",), ("warm_next", SECOND.config)]
    r.lessons.leave()       # the lesson left: what was started for its next slide ends
    assert asked(r)[2:] == [("drop_prepared",), ("warm_next", None)]


def test_the_last_slide_prepares_the_next_lessons_first_and_the_very_last_nothing():
    names = bundled_names()
    first, last = find_lesson(names[0]), find_lesson(names[-1])
    place = next_place(first, len(first.slides) - 1)
    assert place is not None and place[0].name == names[1] and place[1] == 0
    assert next_place(last, len(last.slides) - 1) is None
    r = rig(WindowModel(requested=A, engine_state="ready"))
    r.lessons.open(last, len(last.slides) - 1)
    moved(r)
    assert asked(r) == [("drop_prepared",), ("warm_next", None)]
