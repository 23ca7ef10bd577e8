"""The soak's stall watch: the longest time the step count on the status line did not
advance, from the texts as they were set, on a clock the test moves by hand."""
from gradviz.plain.records.records import StepRecord
from gradviz.plain.window.stall_watch import StallWatch, shown_step
from gradviz.plain.window.status_line import StatusLine


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_step_count_is_read_off_the_status_lines_own_words():
    status = StatusLine()
    record = StepRecord(step=41, losses={"head0": 0.5}, total=0.5)
    status.steps(record, running=True, by_phases=False)
    assert shown_step(status.texts.phase) == 41
    assert shown_step("Paused at step 3: NaN loss (forward)") is None


def test_the_longest_wait_between_advances_is_the_stall():
    clock = Clock()
    watch = StallWatch(clock)
    watch.start("Training · step 10 done · total loss 1")
    for at, text in [(100.2, "Training · step 12 done · total loss 1"),
                     (100.4, "torchviz DOT exported to x.dot"),      # no count: no advance
                     (101.9, "Training · step 12 done · total loss 1"),   # the same count
                     (102.0, "Training · step 30 done · total loss 1"),
                     (102.5, "Training · step 31 done · total loss 1")]:
        clock.now = at
        watch.shown(text)
    assert watch.advances == 3
    assert (watch.first_step, watch.last_step) == (10, 31)
    assert abs(watch.longest_stall_s() - 1.8) < 1e-9   # 100.2 to 102.0
    clock.now = 105.0                                  # nothing since 102.5: 2.5 s
    assert abs(watch.longest_stall_s() - 2.5) < 1e-9


def test_nothing_shown_before_the_watch_starts_counts():
    clock = Clock()
    watch = StallWatch(clock)
    watch.shown("Training · step 5 done · total loss 1")
    assert watch.advances == 0 and watch.longest_stall_s() == 0.0
