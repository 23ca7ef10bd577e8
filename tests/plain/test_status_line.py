"""The status bar's words, composed without Qt from the records the engine sends: the
phase line, the last step's walks, the rate, and how long a backward sweep is drawn.
A text is announced only when its words change (the labels repaint only then)."""
import pytest

from gradviz.plain.config.config import Config
from gradviz.plain.records.events import Event
from gradviz.plain.records.records import PhaseRecord, StepRecord
from gradviz.plain.window.status_line import (
    KEYS,
    STARTING,
    StatusLine,
    StatusTexts,
    failed_text,
    fresh_model_text,
    sweep_ms,
    walks_text,
)


def _event(kind: str = "RuntimeError", step: int = 4) -> Event:
    return Event(step=step, phase="backward", call="backward 2 of 3", type=kind,
                 message="the engine said so.", title="In-place change", explanation="",
                 hint="")


def _step(step: int, total: float = 1.25, walks: int | None = 3,
          seconds: float | None = 0.00042) -> StepRecord:
    return StepRecord(step=step, losses={"head0": total}, total=total, trunk_walks=walks,
                      backward_seconds=seconds)


def test_walks_name_the_backward_time_in_ms_and_the_trunk_walks():
    assert walks_text(_step(0, walks=3, seconds=0.00042)) == \
        "backward 0.42 ms · trunk walked 3×"
    assert walks_text(_step(0, walks=1, seconds=0.0175)) == \
        "backward 17.50 ms · trunk walked 1×"


@pytest.mark.parametrize("record", [None, _step(0, walks=None), _step(0, seconds=None)])
def test_no_walks_without_a_step_that_measured_them(record):
    assert walks_text(record) == ""


@pytest.mark.parametrize("pace_ms, ms", [
    (0, 1500),        # stepped alone (or as fast as it goes): a sweep one can follow
    (5, 400),         # 4 ms: at least the least
    (500, 400),       # 400: exactly the least
    (550, 440),       # 0.8 of the pace between the bounds
    (1000, 800), (1500, 1200),
    (5000, 4000),     # exactly the most
    (6000, 4000)])    # never longer than the most
def test_a_backward_sweep_takes_most_of_the_pace_within_its_bounds(pace_ms, ms):
    assert sweep_ms(pace_ms) == ms


def test_a_failure_names_its_step_and_call_and_the_panel_to_read():
    assert failed_text(_event()) == \
        "Paused at step 4: In-place change (backward 2 of 3) — see “What happened”"
    assert failed_text(_event("EngineStopped")) == (
        "the engine said so. Press Reset (R) to start a fresh one — see “What happened”")
    assert failed_text(_event("ModelFileStopped")) == \
        "the engine said so. See “What happened”."


def test_a_fresh_model_is_named_by_its_file_and_heads_or_its_shape():
    assert fresh_model_text(Config(heads=2, trunk_depth=3, trunk_width=64), "", ()) == \
        f"Fresh model: 2 heads, trunk 3×64 — step 0.   {KEYS}"
    assert fresh_model_text(Config(), "two_tower.py", ("left", "right")) == \
        f"Fresh model: two_tower.py (left, right) — step 0.   {KEYS}"


def test_a_text_is_announced_only_when_its_words_change():
    texts = StatusTexts()
    said: list[str] = []
    texts.events.phase.connect(lambda text: said.append(text))
    status = StatusLine(texts)
    assert texts.phase == STARTING
    status.say("one")
    status.say("one")
    status.rejected("batch_size must be positive")
    status.rejected("batch_size must be positive")
    assert said == ["one", "Not applied: batch_size must be positive"]


def test_a_fresh_model_clears_the_last_models_walks_and_rate():
    status = StatusLine()
    status.steps(_step(3), running=True, by_phases=False)
    status.rate(False, 1234.4)
    assert status.texts.walks and status.texts.rate == "1,234 steps/s"
    status.fresh_model(Config(heads=2), "", ())
    assert (status.texts.walks, status.texts.rate) == ("", "")
    assert status.texts.phase.startswith("Fresh model: 2 heads")


def test_playing_by_steps_each_new_step_names_itself():
    status = StatusLine()
    status.phase_done(PhaseRecord(step=3, name="forward", detail="f"), running=True)
    status.steps(_step(3, total=0.123456), running=True, by_phases=False)
    assert status.texts.phase == "Training · step 3 done · total loss 0.1235"
    assert status.texts.walks == "backward 0.42 ms · trunk walked 3×"


def test_a_phase_of_the_newest_step_keeps_its_line_while_paused_or_by_phases():
    status = StatusLine()
    status.phase_done(PhaseRecord(step=3, name="backward", detail="backward 1 of 3"),
                      running=False)
    line = "Step 3 · just done: backward — backward 1 of 3"
    assert status.texts.phase == line
    status.steps(_step(3), running=False, by_phases=False)      # the same step: kept
    assert status.texts.phase == line
    status.steps(_step(3), running=True, by_phases=True)        # played by phases: kept
    assert status.texts.phase == line
    status.steps(_step(4, total=2.0), running=False, by_phases=False)   # a newer step
    assert status.texts.phase == "Paused · step 4 done · total loss 2"


def test_a_phase_played_says_so_and_one_that_failed_leaves_the_line_to_the_failure():
    status = StatusLine()
    status.phase_done(PhaseRecord(step=0, name="zero_grad", detail="z"), running=True)
    assert status.texts.phase == "Playing phase by phase · Step 0 · just done: zero_grad — z"
    status.stopped()   # play ended there (Pause, a slide's stop): it says it is paused
    assert status.texts.phase == "Paused · Step 0 · just done: zero_grad — z"
    status.stopped()   # (once)
    assert status.texts.phase == "Paused · Step 0 · just done: zero_grad — z"
    status.failed(_event(step=1))
    failed = status.texts.phase
    status.phase_done(PhaseRecord(step=1, name="backward", detail="b", event=_event(step=1)),
                      running=False)
    assert status.texts.phase == failed
    # ...and its step counts as named: the step's record does not replace the failure
    status.steps(_step(1), running=False, by_phases=False)
    assert status.texts.phase == failed


def test_the_rate_is_the_engines_or_phase_by_phase():
    status = StatusLine()
    status.rate(True, 1234.0)
    assert status.texts.rate == "phase by phase"
    status.rate(False, 999.6)
    assert status.texts.rate == "1,000 steps/s"


def test_ready_says_the_model_is_being_built():
    status = StatusLine()
    status.ready()
    assert status.texts.phase == "Training engine ready: building the model…"


def test_a_window_notice_over_a_failure_gives_the_line_back_to_the_failure():
    """Error slides after Ctrl+= (lessons 02 and 05, slide 1): the refusal of a larger
    text stayed on the status bar in place of the failure's "Paused at step 0" line."""
    status = StatusLine()
    status.failed(_event(step=0))
    failed = status.texts.phase
    status.notice("Text size 100% is the largest this 1024x768 screen has room for")
    status.notice("Text size 100% is the largest this 1024x768 screen has room for")
    assert status.texts.phase.startswith("Text size 100%")
    status.notice_over()
    assert status.texts.phase == failed and failed.startswith("Paused at step 0: ")
    status.notice_over()   # (once)
    assert status.texts.phase == failed


def test_what_the_engine_says_during_a_notice_is_not_undone_when_it_ends():
    status = StatusLine()
    status.say("Paused · step 3 done · total loss 1")
    status.notice("Settings saved")
    status.notice("Text size 100% is the largest")   # covers the same line, not the first
    status.failed(_event(step=4))
    failed = status.texts.phase
    status.notice_over()
    assert status.texts.phase == failed
    status.say("one")
    status.notice("two")
    status.notice("three")
    status.notice_over()
    assert status.texts.phase == "one"


def test_a_slide_being_prepared_replaces_the_slide_befores_step_line():
    status = StatusLine()
    status.steps(_step(7, total=2.321), running=False, by_phases=False)
    assert status.texts.phase == "Paused · step 7 done · total loss 2.321"
    assert status.texts.walks
    status.preparing("Preparing this slide: starting the DDP ranks…")
    assert status.texts.phase == "Preparing this slide: starting the DDP ranks…"
    assert status.texts.walks == status.texts.rate == ""   # the slide before's, gone
    # the engine's lines meanwhile are held (the cover says what happens now), the
    # newest shown once the slide is
    status.fresh_model(Config(heads=2), "", ())
    status.phase_done(PhaseRecord(step=0, name="forward", detail="f"), running=True)
    assert status.texts.phase == "Preparing this slide: starting the DDP ranks…"
    status.preparing("Preparing this slide: the first step…")
    status.notice("Text size 100% is the largest")
    status.notice_over()
    assert status.texts.phase == "Preparing this slide: the first step…"
    status.preparing(None)
    assert status.texts.phase == "Playing phase by phase · Step 0 · just done: forward — f"
    status.preparing(None)   # (once)
    status.stopped()
    assert status.texts.phase == "Paused · Step 0 · just done: forward — f"


def test_a_window_notice_while_a_slide_is_prepared_is_shown_for_its_while():
    """A recent file found gone as a lesson opened: its note was held behind the
    preparing line and never shown; what the slide prepares next waits under it."""
    status = StatusLine()
    status.preparing("Preparing this slide: building the model…")
    status.notice("Open Recent: dropped fast.toml: the file is gone")
    assert status.texts.phase == "Open Recent: dropped fast.toml: the file is gone"
    status.preparing("Preparing this slide: the first forward pass…")
    assert status.texts.phase == "Open Recent: dropped fast.toml: the file is gone"
    status.notice_over()
    assert status.texts.phase == "Preparing this slide: the first forward pass…"


def test_the_engine_speaking_while_a_slide_is_prepared_leaves_a_notice_its_while():
    status = StatusLine()
    status.preparing("Preparing this slide: building the model…")
    status.notice("Settings saved to a.toml")
    status.fresh_model(Config(), "", ())   # held: the slide is not shown yet
    assert status.texts.phase == "Settings saved to a.toml"
    status.notice_over()
    assert status.texts.phase == "Preparing this slide: building the model…"
    status.preparing(None)
    assert status.texts.phase.startswith("Fresh model")


def test_a_slide_shown_with_nothing_said_meanwhile_drops_its_preparing_line():
    status = StatusLine()
    status.say("Paused · step 7 done · total loss 2.321")
    status.preparing("Preparing this slide: the first step…")
    status.preparing(None)
    assert status.texts.phase == ""
    status.preparing("Preparing this slide: the first step…")   # a second slide: the
    status.fresh_model(Config(), "", ())                        # first's held line is
    status.preparing(None)                                      # not shown again
    status.preparing("Preparing this slide: the first step…")
    status.preparing(None)
    assert status.texts.phase == ""


def test_a_notice_once_over_covers_nothing_more():
    status = StatusLine()
    status.say("Paused · step 3 done · total loss 1")
    status.notice("Settings saved to a.toml")
    status.notice_over()
    status.preparing("Preparing this slide: building the model…")
    assert status.texts.phase == "Preparing this slide: building the model…"
