"""Decks as files: the bundled lecture (20 slides on the article's eight topics), a deck
file's every field checked as it is read, each refusal one line naming the file, the
deck's slide and the key; NAME:N for --lesson; and `gradviz lessons --check` on decks."""
import contextlib
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.app import main
from gradviz.plain.files.file_kinds import file_kind
from gradviz.plain.lessons.decks import (
    LessonSlide,
    TextSlide,
    bundled_deck_names,
    deck_slide_title,
    find_deck,
    load_deck,
    parse_deck,
)
from gradviz.plain.lessons.lesson_at import find_lesson_at, split_slide
from gradviz.plain.lessons.lessons import LessonError, find_lesson

# the article's eight topics, each by a lesson's slide that teaches it
TOPICS = {
    "summed vs separate backward": ("01-add-or-separate", 1),
    "retain_graph": ("02-backward-twice", 1),
    "detach vs detach_": ("04-detach-vs-detach_", 1),
    "accumulation": ("09-accumulation", 1),
    "zero_grad": ("10-zero-grad", 1),
    "in-loop total": ("01-add-or-separate", 2),
    "TorchJD aggregators": ("13-aggregate-conflicts", 1),
    "DDP": ("15-ddp-accumulation", 1),
}


def deck_file(tmp_path, text: str, name: str = "talk.toml"):
    path = tmp_path / name
    path.write_text('title = "My talk"\n' + text)
    return path


def refusal(tmp_path, text: str) -> str:
    with pytest.raises(LessonError) as raised:
        load_deck(deck_file(tmp_path, text))
    message = str(raised.value)
    assert "\n" not in message and message.startswith("deck file ")
    assert "talk.toml" in message
    return message


def test_the_bundled_deck_is_the_whole_lecture_in_20_slides():
    assert bundled_deck_names() == ["several-losses"]
    deck = find_deck("several-losses")
    assert len(deck.slides) == 20 and len(deck.lessons) == 8
    first, last = deck.slides[0], deck.slides[-1]
    assert isinstance(first, TextSlide) and isinstance(last, TextSlide)
    assert last.title == "Recap" and "no_sync()" in last.text
    played = {(s.lesson.name, s.index) for s in deck.slides if isinstance(s, LessonSlide)}
    assert set(TOPICS.values()) <= played, set(TOPICS.values()) - played
    # a lesson's slide is the lesson's own (its config, narration, promises)
    second = deck.slides[1]
    assert isinstance(second, LessonSlide)
    assert second.lesson.slides[second.index] == find_lesson("add-or-separate").slides[0]
    assert deck_slide_title(deck, 1) == ("gradviz — 2/20 — Add the losses, or call backward "
                                         "on each? — slide 1/3: One backward on the sum")
    assert deck_slide_title(deck, 19) == "gradviz — Several losses, one network — 20/20: Recap"


def test_a_deck_names_lessons_by_name_or_number(tmp_path):
    deck = load_deck(deck_file(tmp_path, '[[deck]]\nlesson = 2\nslide = 2\n'
                                         '[[deck]]\nlesson = "03-leaky-graphs"\nslide = 1\n'
                                         '[[deck]]\ntitle = "Thanks"\n'))
    assert [(s.lesson.name, s.index) for s in deck.slides[:2]] == [  # type: ignore[union-attr]
        ("02-backward-twice", 1), ("03-leaky-graphs", 0)]
    assert deck.slides[2] == TextSlide("Thanks", "")
    assert deck.name == "talk" and deck.title == "My talk"


def test_a_missing_lesson_is_one_line(tmp_path):
    assert refusal(tmp_path, '[[deck]]\ntitle = "Hi"\n[[deck]]\nlesson = "no-such"\nslide = 1\n'
                   ).endswith("talk.toml', slide 2: no lesson named 'no-such' "
                              "(gradviz lessons lists them)")
    assert refusal(tmp_path, '[[deck]]\nlesson = 99\nslide = 1\n').endswith(
        "slide 1: no lesson number 99 (gradviz lessons lists them)")


def test_a_slide_out_of_range_is_one_line(tmp_path):
    assert refusal(tmp_path, '[[deck]]\nlesson = "backward-twice"\nslide = 3\n').endswith(
        "slide 1: lesson 02-backward-twice has 2 slides: give slide 1 to 2 (got 3)")
    assert "give slide 1 to 2 (got 0)" in refusal(
        tmp_path, '[[deck]]\nlesson = "backward-twice"\nslide = 0\n')
    assert "(got '1')" in refusal(tmp_path, '[[deck]]\nlesson = 2\nslide = "1"\n')
    assert "slide 1: needs slide as well" in refusal(tmp_path, '[[deck]]\nlesson = 2\n')


@pytest.mark.parametrize("text, words", [
    ('[[deck]]\ntitle = 5\n', "slide 1: title must be some text (got 5)"),
    ('[[deck]]\ntitle = "a"\ntext = ["b"]\n', "slide 1: text must be some text (got ['b'])"),
    ('[[deck]]\ntitel = "a"\n', "slide 1: unknown key 'titel' (did you mean 'title'?)"),
    ('[[deck]]\nlesson = 1\nslide = 1\nstop = 3\n', "slide 1: unknown key 'stop'"),
    ('[[deck]]\nlesson = 1\nslide = 1\ntitle = "x"\n', "slide 1: give lesson and slide"),
    ('[[deck]]\nslide = 1\n', "slide 1: slide needs lesson as well"),
    ('[[deck]]\nlesson = "../x.toml"\nslide = 1\n', "slide 1: lesson names a file"),
    ('[[deck]]\nlesson = true\nslide = 1\n', "slide 1: lesson must be a lesson's name or "
                                             "number"),
    ('[[deck]]\ntitle = "a"\ntext = """' + "> " * 7 + 'deep"""\n', "slide 1: the text cannot "
                                                                  "be shown: it nests"),
    ('[[deck]]\ntitle = "' + "x" * 201 + '"\n', "title must be one line of at most 200"),
    ('deck = 3\n', "give 1 to 40 [[deck]] slides (got 3)"),
    ('slides = []\n', "a deck's slides are [[deck]] tables ([[slides]] are a lesson's)"),
    ('[[deck]]\ntitle = "a"\nnarration = "n"\n', "unknown key 'narration'; the keys are "
                                                "title, text"),
    ('[[deck]]\n', "slide 1: title must be some text (got None)"),
])
def test_a_bad_field_is_one_line_naming_the_slide_and_the_key(tmp_path, text, words):
    assert words in refusal(tmp_path, text)


def test_a_deck_without_a_title_or_not_toml_is_one_line(tmp_path):
    path = tmp_path / "talk.toml"
    path.write_text('[[deck]]\ntitle = "a"\n')
    with pytest.raises(LessonError, match=r"^deck file .*: title must be some text"):
        load_deck(path)
    path.write_text("title = \n")
    with pytest.raises(LessonError, match=r"^deck file .* is not valid TOML"):
        load_deck(path)
    with pytest.raises(LessonError, match=r"^deck file .*nope.toml' not found$"):
        load_deck(tmp_path / "nope.toml")


@settings(max_examples=200, deadline=None, database=None)
@given(st.text(max_size=200))
def test_any_text_is_a_deck_or_a_one_line_error(text):
    try:
        parse_deck("fuzz", text)
    except LessonError as exc:
        assert "\n" not in str(exc)


def test_a_deck_file_opens_as_a_deck(tmp_path):
    assert file_kind(deck_file(tmp_path, '[[deck]]\ntitle = "a"\n')) == "deck"


def test_name_colon_n_opens_a_lesson_at_its_slide_n():
    assert split_slide("backward-twice:2") == ("backward-twice", 2)
    assert split_slide("C:\\talks\\mine.toml") == ("C:\\talks\\mine.toml", None)
    assert split_slide("backward-twice") == ("backward-twice", None)
    lesson, index = find_lesson_at("backward-twice:2")
    assert (lesson.name, index) == ("02-backward-twice", 1)
    assert find_lesson_at("backward-twice")[1] == 0
    with pytest.raises(LessonError, match=r"^--lesson backward-twice:3: lesson "
                                          r"02-backward-twice has 2 slides: give slide 1 "
                                          r"to 2 \(got 3\)$"):
        find_lesson_at("backward-twice:3")


def lessons_check(name: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["lessons", "--check", name, "--quiet"])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_lessons_check_reads_a_deck_whole(tmp_path):
    code, out, err = lessons_check("several-losses")
    assert code == 0 and out.startswith("several-losses: ok (a deck of 20 slides from 8 "
                                        "lessons: 01-add-or-separate, ")
    good = deck_file(tmp_path, '[[deck]]\ntitle = "Hi"\n[[deck]]\nlesson = 2\nslide = 1\n')
    assert lessons_check(str(good))[:2] == (0, "talk: ok (a deck of 2 slides from 1 lessons: "
                                               "02-backward-twice)\n")
    bad = deck_file(tmp_path, '[[deck]]\nlesson = "backward-twice"\nslide = 7\n', "bad.toml")
    code, out, err = lessons_check(str(bad))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("gradviz: deck file ") and "bad.toml', slide 1: lesson " \
        "02-backward-twice has 2 slides" in err
