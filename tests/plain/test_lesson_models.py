"""Lessons on a bundled model file (`model = "cnn_two_heads"`): read and refused as
lesson files are, never a path; in the window, a slide on a file starts a fresh engine
on it, a slide on the built-in model goes back, and leaving keeps the user's own file."""
import dataclasses

import pytest

from gradviz.plain.config.model_names import model_names
from gradviz.plain.lessons.lessons import LessonError, bundled_names, find_lesson, parse_lesson
from gradviz.plain.window.window_model import WindowModel

from controller_fakes import LESSON, rig

HEAD = 'title = "On a file"\nconfig = { model = "cnn_two_heads", heads = 2 }\n'
SLIDE = '[[slides]]\ntitle = "s"\nnarration = "n"\n'


def _lesson(text: str):
    return parse_lesson("x", text)


def test_a_lesson_names_a_bundled_model_file_and_a_slide_may_go_back():
    lesson = _lesson(HEAD + SLIDE + SLIDE + 'config = { model = "mlp", heads = 3 }\n')
    first, second = lesson.slides
    assert first.model_file == "cnn_two_heads" and first.config.model == "mlp"
    assert first.config.heads == 2
    assert second.model_file == "" and second.config.heads == 3


@pytest.mark.parametrize("value, words", [
    ('"resources/models/cnn_two_heads.py"', "names no path to code"),
    ('"/tmp/evil.py"', "names no path to code"),
    ('"cnn_two_head"', "did you mean 'cnn_two_heads'"),
    ("2", "got 2"),
])
def test_a_model_that_is_no_bundled_file_is_refused_in_one_line(value, words):
    with pytest.raises(LessonError) as caught:
        _lesson(HEAD.replace('"cnn_two_heads"', value) + SLIDE)
    message = str(caught.value)
    assert "\n" not in message and words in message.lower() or words in message
    assert "lesson x, config: model must be mlp, rnn or a bundled model file" in message
    assert all(name in message for name in model_names())


def test_a_built_in_key_on_a_model_file_is_refused():
    with pytest.raises(LessonError, match="slide 1, config: trunk-width is for the built-in "
                                          "model; cnn_two_heads builds its own"):
        _lesson(HEAD + SLIDE + "config = { trunk-width = 16 }\n")


def test_gradients_are_compared_only_between_slides_on_one_model():
    text = HEAD + SLIDE + SLIDE + 'config = { model = "mlp", heads = 2 }\n' + \
        "expect = [{ same_gradients_as = 1 }]\n"
    with pytest.raises(LessonError, match="slide 1 trains cnn_two_heads, this slide the "
                                          "built-in model"):
        _lesson(text)


def test_a_bundled_lesson_shows_a_real_cnn():
    on_files = [n for n in bundled_names()
                if any(s.model_file == "cnn_two_heads" for s in find_lesson(n).slides)]
    assert on_files
    lesson = find_lesson(on_files[0])
    assert all(s.panels[0] == "graph" for s in lesson.slides if "graph" in s.panels)


def _on_file(lesson, index):
    slides = list(lesson.slides)
    slides[index] = dataclasses.replace(slides[index], model_file="cnn_two_heads")
    return dataclasses.replace(lesson, slides=tuple(slides))


def test_a_slide_on_a_model_file_starts_an_engine_on_it_once_and_the_next_goes_back():
    lesson = _on_file(_on_file(LESSON, 0), 1)
    r = rig(WindowModel())
    r.lessons.open(lesson)
    (path, config), = r.calls.named("open_model")
    assert path.endswith("cnn_two_heads.py") and config == lesson.slides[0].config
    assert r.calls.order().index("open_model") < r.calls.order().index("show_slide")
    r.lessons.next()                                  # the same file: no fresh engine
    assert len(r.calls.named("open_model")) == 1
    r.lessons.next()                                  # the built-in model again
    assert r.calls.named("open_model")[-1] == (None, None)


def test_leaving_a_lesson_on_its_file_brings_back_the_users_own_file():
    mine = WindowModel(model_path="/m/deep.py")
    r = rig(mine)
    r.lessons.open(_on_file(LESSON, 0))
    assert r.calls.named("open_model")[0][0].endswith("cnn_two_heads.py")
    r.model.model_path = r.calls.named("open_model")[0][0]   # the engine says so
    r.lessons.leave()
    assert r.calls.named("open_model")[-1][0] == "/m/deep.py"
