"""Which reference lines a slide draws and at what value: a number as written, or a kept
run's value at a step; nothing where the run is not kept or has no value there; every
chart that takes references listed, so the last slide's lines are cleared."""
import math

from gradviz.plain.lessons.lesson_references import DrawnReference, history_value, reference_lines
from gradviz.plain.lessons.lessons import parse_lesson
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord

HEADS = ["head0", "head1", "head2"]
LESSON = '''title = "t"
[[slides]]
title = "clean"
narration = "n"
[[slides]]
title = "second"
narration = "n"
[[slides]]
title = "drawn"
narration = "n"
panels = ["junction", "global_norm"]
reference = [
  { metric = "junction.head2", value = { slide = 1, step = 1 }, label = "clean, step 1" },
  { metric = "global_grad_norm", value = { slide = 2 }, label = "second, step 0" },
  { metric = "global_grad_norm", value = 1.4, label = "about 1.4" }]
'''


def _run(steps: int, base: float, junction: bool = True) -> History:
    """A kept run whose numbers are written here: step t's push of head k is
    base + t + k / 10, its global norm 10 * base + t."""
    h = History(HEADS, [])
    for t in range(steps):
        pushes = {h_: base + t + k / 10 for k, h_ in enumerate(HEADS)} if junction else None
        h.append(StepRecord(step=t, losses=dict.fromkeys(HEADS, 1.0), total=3.0,
                            global_grad_norm=10 * base + t, junction_grad_norms=pushes))
    return h


def test_each_line_reads_its_run_at_its_step_or_its_number():
    drawn = parse_lesson("x", LESSON).slides[2]
    lines = reference_lines(drawn, {0: _run(3, 1.0), 1: _run(2, 2.0)})
    assert lines == {
        "junction": [DrawnReference("junction.head2", 1.0 + 1 + 0.2, "clean, step 1")],
        "global_norm": [DrawnReference("global_grad_norm", 20.0, "second, step 0"),
                        DrawnReference("global_grad_norm", 1.4, "about 1.4")]}


def test_a_run_not_kept_or_short_of_the_step_draws_no_line():
    drawn = parse_lesson("x", LESSON).slides[2]
    # slide 1 left after one step (its step 1 never ran), slide 2 never visited
    lines = reference_lines(drawn, {0: _run(1, 1.0)})
    assert lines == {"junction": [],
                     "global_norm": [DrawnReference("global_grad_norm", 1.4, "about 1.4")]}


def test_a_step_not_measured_draws_no_line():
    run = _run(3, 1.0, junction=False)
    assert history_value(run, "junction.head2", 1) is None
    assert history_value(run, "global_grad_norm", 2) == 12.0
    assert history_value(run, "junction.head7", 0) is None
    assert history_value(_run(3, 1.0), "junction.head1", 2) == 3.1


def test_a_slide_without_references_clears_every_chart():
    plain = parse_lesson("x", LESSON).slides[0]
    assert plain.reference == ()
    assert reference_lines(plain, {0: _run(3, 1.0)}) == {"junction": [], "global_norm": []}


def test_values_are_finite_numbers():
    drawn = parse_lesson("x", LESSON).slides[2]
    for lines in reference_lines(drawn, {0: _run(3, 1.0), 1: _run(2, 2.0)}).values():
        assert all(isinstance(line.value, float) and math.isfinite(line.value)
                   for line in lines)
