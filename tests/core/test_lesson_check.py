"""What only a run shows breaks a promise in one line, never a traceback: a metric not
measured at some step, a ratio to a zero, a slide that stopped before its first step,
stop = "error" on a slide that never errors (bounded), and the words of each."""
import torch
from lesson_text import HEAD, problems, slide
from torch import nn

from gradviz.core.lesson_check import check_lesson
from gradviz.plain.lessons.lessons import MAX_ERROR_STEPS, parse_lesson


def test_a_detached_head_sends_nothing_to_z_in_plain_pytorch():
    """The fact the next tests lean on: z.detach() cuts head 1 off the trunk."""
    z = nn.Linear(4, 3)(torch.randn(5, 4))
    z.retain_grad()
    head0, head1 = nn.Linear(3, 1), nn.Linear(3, 1)
    head1_part = torch.autograd.grad(head1(z.detach()).sum(), [z], allow_unused=True)[0]
    assert head1_part is None
    head0(z).sum().backward()
    assert torch.count_nonzero(z.grad) > 0


def test_a_ratio_to_a_zero_is_a_broken_promise_not_a_traceback():
    found = problems(slide("cut", "config = { detach = [1] }"),
                     slide("whole", 'expect = [{ ratio = { of = "junction.head1", slide = 1, '
                                    'is = 2.0 } }]'))
    assert len(found) == 1
    assert found[0].startswith("slide 2 (whole): slide 1's junction.head1 is 0 at step 0, "
                               "so no ratio to it is 2 (this slide's is ")


def test_about_a_zero_is_a_broken_promise():
    found = problems(slide("cut", "config = { detach = [1] }"),
                     slide("whole", 'expect = [{ about = { metric = "junction.head1", '
                                    'slide = 1, times = 3.0 } }]'))
    assert found == [found[0]] and "slide 1's junction.head1 is 0, so no multiple" in found[0]


def test_a_ratio_against_a_slide_that_failed_at_step_0_is_a_broken_promise():
    found = problems(slide("misplaced", "config = { misplace-head = 1 }"),
                     slide("fine", 'expect = [{ ratio = { of = "total", slide = 1, is = 1.0 } },'
                                   ' { below = { metric = "total", slide = 1 } }]'))
    assert len(found) == 2
    for problem in found:
        assert problem.startswith("slide 2 (fine): slide 1's total: no step finished "
                                  "(stopped at step 0: ")


def test_a_promise_about_a_slide_that_stopped_at_step_0_is_broken():
    found = problems(slide("misplaced", 'config = { misplace-head = 1 }\n'
                                        'expect = [{ decreases = "total" }]'))
    assert found[0].startswith("slide 1 (misplaced): total: no step finished (stopped at step 0")


def test_retain_grad_on_a_z_every_head_detached_from_has_no_grad_in_plain_pytorch():
    z = nn.Linear(4, 3)(torch.randn(5, 4))
    z.retain_grad()
    sum(nn.Linear(3, 1)(z.detach()).sum() for _ in range(2)).backward()
    assert z.grad is None


def test_a_metric_not_measured_at_a_step_breaks_the_promise():
    found = problems(slide("all cut", 'config = { detach = [0, 1], retain-grad = true }\n'
                                      'expect = [{ positive = "z_grad_norm" }]'))
    assert found == ["slide 1 (all cut): z_grad_norm was not measured at step 0"]


def test_a_never_erroring_stop_error_is_bounded_and_broken():
    text = HEAD.replace("steps = 3", "steps = 1000000000") + \
        slide("never", 'stop = "error"\nexpect = [{ error = "second time" }]').replace(
            "stop = 2\n", "")
    lesson = parse_lesson("x", text)
    assert lesson.slides[0].steps == MAX_ERROR_STEPS
    found = check_lesson(lesson)
    assert found == ["slide 1 (never): expected the error 'second time', got none",
                     f'slide 1 (never): stop = "error", but no error came in '
                     f"{MAX_ERROR_STEPS} steps"]


def test_stop_error_runs_the_slides_own_steps_when_fewer():
    lesson = parse_lesson("x", HEAD + slide("never", 'stop = "error"').replace("stop = 2\n", ""))
    assert lesson.slides[0].steps == 3
    assert check_lesson(lesson) == ['slide 1 (never): stop = "error", but no error came in 3 steps']


def test_a_broken_promise_reads_as_english():
    found = problems(slide("wild", 'config = { lr = 1000.0 }\nstop = 3\n'
                                   'expect = [{ decreases = "total" }, { flat = "total" }, '
                                   '{ negative = "total" }, { ends_negative = "total" }]'
                           ).replace("stop = 2\n", ""))
    said = [p.split(": ", 1)[1].split(" (")[0] for p in found]
    assert said == ["total does not decrease", "total is not flat",
                    "total is not always negative", "total does not end negative"]


def test_an_unexpected_error_is_one_line():
    found = problems(slide("twice", 'config = { strategy = "separate", retain-graph = "never" }\n'
                                    "expect = [{ no_error = true }]"))
    assert len(found) == 1 and found[0].startswith("slide 1 (twice): unexpected error at step 0: ")
    assert "second time" in found[0]


def test_a_multi_line_title_makes_one_line_problems():
    found = problems(slide("a", "").replace('title = "a"', 'title = """two\nlines"""') +
                     "expect = [{ zero = \"loss.head0\" }]\n")
    assert found[0].startswith("slide 1 (two lines): loss.head0 is not zero")
