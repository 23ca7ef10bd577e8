"""The promise `different_gradients_from = N`: a slide's gradients differ from slide N's
(trained in lockstep, as same_gradients_as). It breaks, in one line, where they are the
same, and is refused on reading where it could never hold or never fail."""
import pytest
from lesson_text import HEAD, problems, slide

from gradviz.plain.lessons.lessons import LessonError, parse_lesson


def test_unequal_parts_scaled_by_mean_differ_and_the_promise_holds():
    assert problems(slide("full"),
                    slide("unequal", "config = { micro-batch-sizes = [10, 2, 2, 2] }\n"
                                     "expect = [{ different_gradients_from = 1 }]")) == []


def test_equal_parts_are_the_same_so_different_breaks_in_one_line():
    found = problems(slide("full"),
                     slide("equal", "config = { accumulate = 4 }\n"
                                    "expect = [{ different_gradients_from = 1 }]"))
    assert len(found) == 1
    assert found[0].startswith("slide 2 (equal): gradients not told different from slide 1's: "
                               "same gradients")


@pytest.mark.parametrize("lines, words", [
    ("config = { batch-norm = true }\nexpect = [{ different_gradients_from = 1 }]",
     "slide 1 builds another model (batch-norm is False in slide 1, True in this slide)"),
    ("expect = [{ different_gradients_from = 2 }]", "is this slide itself"),
    ("expect = [{ different_gradients_from = 3 }]", "must be a slide number, 1 to 2"),
    ("expect = [{ different_gradient_from = 1 }]", "did you mean 'different_gradients_from'"),
])
def test_a_promise_no_run_can_check_is_refused_in_one_line(lines, words):
    with pytest.raises(LessonError) as raised:
        parse_lesson("x", HEAD + slide("one") + slide("two", lines))
    assert words in str(raised.value) and "\n" not in str(raised.value)


def test_lesson_09s_last_slide_says_what_its_charts_show():
    """Lesson 09 slide 10 promised "a different gradient" on a global-norm chart and a
    loss chart that both look like slide 9's: the clip holds the norm at 0.5 on both, and
    the changed direction moves the losses too little to see. The narration says so."""
    import math

    from gradviz.core.lesson_check import run_slide
    from gradviz.plain.lessons.lessons import find_lesson
    lesson = find_lesson("accumulation")
    before, last = lesson.slides[8], lesson.slides[9]
    assert last.panels == ("global_norm", "loss")
    a, b = run_slide(before), run_slide(last)
    assert len(a.records) == len(b.records) == last.steps
    for ra, rb in zip(a.records, b.records):
        assert math.isclose(ra.global_grad_norm, 0.5, abs_tol=1e-5)    # clip = 0.5
        assert math.isclose(rb.global_grad_norm, 0.5, abs_tol=1e-5)
        for head, loss in ra.losses.items():   # under a pixel of the loss chart
            assert abs(loss - rb.losses[head]) < 0.02
    said = " ".join(last.narration.split())
    assert "norm is 0.5 again" in said and "too little to see" in said
    assert "Notice:** a different gradient" not in said
