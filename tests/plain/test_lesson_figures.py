"""A slide's figures: the key validated like every lesson key (one line naming the slide
and what is wrong), and each figure's number read off a run as measured (the newest
step's, a step's, or over a kept run's at the same step), "…" until measured."""
import pytest

from gradviz.plain.lessons.lesson_figures import MINUS, NOT_YET, Figure, figure_text, figure_value
from gradviz.plain.lessons.lessons import LessonError, find_lesson, parse_lesson
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord

HEADS = ["head0", "head1", "head2"]
BASE = '''title = "t"
[[slides]]
title = "first"
narration = "n"
[[slides]]
title = "second"
narration = "n"
'''


def lesson(figures: str):
    return parse_lesson("t", BASE + f"figures = {figures}\n")


def run(pushes: list[list[float]], walks: int = 1, cosine: float | None = None) -> History:
    h = History(HEADS, [])
    for t, row in enumerate(pushes):
        update = None if cosine is None else dict.fromkeys(HEADS, cosine + t)
        h.append(StepRecord(step=t, losses=dict.fromkeys(HEADS, 1.0), total=3.0,
                            junction_grad_norms=dict(zip(HEADS, row)), trunk_walks=walks,
                            update_cosine=update))
    return h


def test_a_figure_is_parsed_onto_its_slide():
    slide = lesson('[{ metric = "junction.head0", slide = 1, step = 0, '
                   'text = "head 0: {}× the sum\'s" }]').slides[1]
    assert slide.figures == (Figure("junction.head0", "head 0: {}× the sum's", 1, 0, 2),)


@pytest.mark.parametrize("figures, words", [
    ('[{ metric = "trunk_walks", txt = "x {}" }]', "unknown key 'txt' (did you mean 'text'?)"),
    ('[{ metric = "trunk_walks" }]', "needs metric and text"),
    ('[{ metric = "trunk_walk", text = "x {}" }]', "did you mean 'trunk_walks'"),
    ('[{ metric = "trunk_walks", text = "no slot" }]', "one {} where the number goes"),
    ('[{ metric = "trunk_walks", text = "x {} {}" }]', "one {} where the number goes"),
    ('[{ metric = "trunk_walks", text = "x {}", slide = 2 }]', "a slide before this one"),
    ('[{ metric = "trunk_walks", text = "x {}", step = 30 }]', "0 to 29"),
    ('[{ metric = "trunk_walks", text = "x {}", digits = 9 }]', "digits must be 0 to 4"),
    ('[{ metric = "cosine.0.1", text = "x {}" }]', "not kept step by step"),
    ('[{ metric = "junction.head5", text = "x {}" }]', "names no head"),
    ('[]', "a list of 1 to 3 figures"),
    ('"trunk_walks"', "a list of 1 to 3 figures"),
    ('[1]', "each figure is a table"),
])
def test_a_bad_figure_is_refused_in_one_line_naming_the_slide(figures, words):
    with pytest.raises(LessonError) as caught:
        lesson(figures)
    message = str(caught.value)
    assert "\n" not in message and "slide 2, figures" in message and words in message


def test_a_figure_of_a_metric_its_slide_does_not_measure_is_refused():
    with pytest.raises(LessonError, match="not measured with probes"):
        parse_lesson("t", BASE + 'config = { probes = "none" }\n'
                     'figures = [{ metric = "junction.head0", text = "x {}" }]\n')


def test_the_newest_measured_step_is_shown_with_its_digits_and_a_real_minus():
    newest = Figure("update_cosine.head1", "head 1 with the update: {}")
    assert figure_text(newest, run([[1, 2, 3]] * 3, cosine=-2.031), {}) == \
        f"head 1 with the update: {MINUS}0.03"   # step 2: -2.031 + 2
    walks = Figure("trunk_walks", "trunk walked {}×", digits=0)
    assert figure_text(walks, run([[1, 2, 3]], walks=3), {}) == "trunk walked 3×"


def test_until_its_run_has_measured_it_the_number_is_not_yet_shown():
    walks = Figure("trunk_walks", "trunk walked {}×", digits=0)
    assert figure_text(walks, None, {}) == f"trunk walked {NOT_YET}×"
    assert figure_text(walks, History(HEADS, []), {}) == f"trunk walked {NOT_YET}×"


def test_over_a_kept_run_the_value_is_the_ratio_at_the_same_step():
    mine, sums = run([[3.0, 4.0, 1.0], [9.0, 9.0, 9.0]]), run([[1.0, 2.0, 1.0], [1, 1, 1]])
    at_0 = Figure("junction.head1", "head 1: {}× the sum's", slide=1, step=0)
    assert figure_value(at_0, mine, {0: sums}) == 2.0
    newest = Figure("junction.head0", "{}", slide=1)
    assert figure_value(newest, mine, {0: sums}) == 9.0          # step 1 over step 1
    assert figure_value(newest, mine, {}) is None                 # slide 1 not visited
    assert figure_text(at_0, mine, {}) == f"head 1: {NOT_YET}× the sum's"


@pytest.mark.parametrize("name, slides", [
    ("01-add-or-separate", (2, 3)), ("12-one-pass-or-k", (1, 2, 3, 4, 5)),
    ("13-aggregate-conflicts", (1, 2, 3, 4))])
def test_the_slides_whose_point_is_a_number_draw_it_as_a_figure(name, slides):
    found = find_lesson(name)
    for n in slides:
        assert found.slides[n - 1].figures, (name, n)
