"""Lessons: every bundled slide's narration holds when the slide runs; the lesson format
is validated with one-line errors; `gradviz lessons` lists them."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.app import main
from gradviz.core.lesson_check import check_lesson
from gradviz.plain.config.config import ConfigError
from gradviz.plain.lessons.lessons import LessonError, bundled_names, find_lesson, parse_lesson

TOPICS = {"add-or-separate", "backward-twice", "leaky-graphs", "detach-vs-detach_",
          "edit-detached", "leaves-and-grad", "device-mismatch", "rnn-truncation",
          "accumulation", "zero-grad", "losses-disagree"}   # the article's, one lesson each


def test_at_least_ten_lessons_cover_the_article():
    names = bundled_names()
    assert len(names) >= 10
    assert {n.split("-", 1)[1] for n in names} >= set(TOPICS)


@pytest.mark.parametrize("name", bundled_names())
def test_every_slide_keeps_its_narrations_promises(name):
    lesson = find_lesson(name)
    assert all(slide.expect for slide in lesson.slides), "a slide that promises nothing"
    assert check_lesson(lesson) == []


def test_a_false_promise_is_caught():
    lesson = parse_lesson("x", '''title = "t"
[[slides]]
title = "sum"
narration = "head 1 is cut off"
stop = 3
expect = [{ zero = "junction.head1" }, { error = "second time" }]
''')
    problems = check_lesson(lesson)
    assert len(problems) == 2
    assert "junction.head1 is not zero" in problems[0]
    assert "expected the error 'second time', got none" in problems[1]


@pytest.mark.parametrize("text, words", [
    ('title = "t"\n', "give 1 to 30 [[slides]]"),
    ('title = "t"\n[[slides]]\nnarration = "n"\n', "title must be some text"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\nconfig = { heads = 99 }\n',
     "heads must be between 1 and 8"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\npanels = ["tv"]\n',
     "panels must be a list of"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\nstop = -1\n', "stop must be"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\npace = 1e9\n', "pace must be"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\nplay = "frames"\n',
     "play must be one of 'steps', 'phases' (got 'frames')"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\nplay = "phases"\npace = 0\n',
     "pace must be phases per second, above 0 up to 20"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\nplay = "phases"\npace = 50\n',
     "pace must be phases per second"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\nexpect = [{ magic = 1 }]\n',
     "unknown promise 'magic'"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\nexpect = [{ zero = 5 }]\n',
     "a metric is a name such as"),
    ('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\n'
     'expect = [{ same_gradients_as = 4 }]\n', "must be a slide number, 1 to 1"),
])
def test_bad_lessons_are_one_line_errors(text, words):
    with pytest.raises(LessonError, match=None) as raised:
        parse_lesson("bad", text)
    message = str(raised.value)
    assert words in message and "\n" not in message


def test_a_slide_plays_steps_or_phases_at_its_pace():
    lesson = parse_lesson("p", '''title = "t"
[[slides]]
title = "steps, as fast as it goes"
narration = "n"
pace = 0
[[slides]]
title = "phases"
narration = "n"
play = "phases"
pace = 2
[[slides]]
title = "phases, at the default pace"
narration = "n"
play = "phases"
''')
    assert [(s.play, s.pace) for s in lesson.slides] == [("steps", 0.0), ("phases", 2.0),
                                                          ("phases", 1.0)]


@settings(max_examples=300, deadline=None, database=None)
@given(st.text(max_size=300))
def test_any_text_is_a_lesson_or_a_one_line_error(text):
    try:
        parse_lesson("fuzz", text)
    except (LessonError, ConfigError) as exc:
        assert "\n" not in str(exc)


def test_gradviz_lessons_prints_name_then_title(capsys):
    assert main(["lessons"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == len(bundled_names())
    name, title = lines[0].split("  ", 1)
    assert find_lesson(name).title == title


def test_a_lesson_is_found_by_its_name_without_the_number():
    assert find_lesson("rnn-truncation").name == "08-rnn-truncation"
    with pytest.raises(LessonError, match="no lesson named"):
        find_lesson("no-such-lesson")
