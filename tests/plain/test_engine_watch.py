"""The window's watch over its engine, on a clock the test moves and a fake process: an
engine frozen is declared stopped after the silence (not twice it), a slow start or a
long step that goes on beating or using CPU is waited out and said, and one Reset ends
a stuck or frozen engine at the right moment, pressed at any point."""
from gradviz.plain.records.engine_stages import IMPORTING_TORCH, READY, WORKING
from gradviz.plain.window.engine_watch import (
    RESET_SAID_AFTER_S,
    Ended,
    EndUnanswered,
    EngineWatch,
    Say,
    Silent,
)

TICK = 0.5          # the client's timer (engine_client.WATCH_MS)
SILENT, LONG = 20.0, 10.0   # the app's limits, in force unless a test names others


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Process:
    """The engine's process as the watch sees it: alive or not, and when its CPU time
    last grew (None: the system does not say)."""

    def __init__(self) -> None:
        self.alive = True
        self.cpu_at: float | None = None

    def is_alive(self) -> bool:
        return self.alive

    def cpu_grew_at(self) -> float | None:
        return self.cpu_at


def _watch(own_process: bool = True, **limits: float) -> tuple[EngineWatch, Clock]:
    clock = Clock()
    return EngineWatch(own_process, clock, **limits), clock


def _ready(watch: EngineWatch) -> None:
    """Started, beating, its Hello and first answer in."""
    watch.started()
    watch.heard()
    watch.beat(READY, 0.0, building=False)
    watch.hello()
    watch.answered()


def _run(watch: EngineWatch, clock: Clock, process: Process, seconds: float,
         beat: str | None = None, cpu: bool = False,
         since: float | None = None) -> list[tuple[float, object]]:
    """The timer's ticks for `seconds`: (seconds from the run's start, the verdict) of
    each that decides something. beat: the engine beats at that stage each tick, at it
    since `since` (else the run's start); cpu: its CPU time grows meanwhile."""
    start, out = clock.now, []
    since = start if since is None else since
    for _ in range(round(seconds / TICK)):
        clock.now += TICK
        if beat is not None:
            watch.heard()
            watch.beat(beat, clock.now - since, building=False)
        if cpu:
            process.cpu_at = clock.now
        verdict = watch.check(process)
        if verdict is not None:
            out.append((round(clock.now - start, 3), verdict))
    return out


def _first(found, kind):
    return next((at, v) for at, v in found if isinstance(v, kind))


# ---- stopped: no sign of life for SILENT_SECONDS ----------------------------------------

def test_a_frozen_engine_is_declared_stopped_after_the_silence_not_twice_it():
    watch, clock = _watch()
    process = Process()
    _ready(watch)
    found = _run(watch, clock, process, 60)
    at, _ = _first(found, Silent)
    assert SILENT < at <= SILENT + TICK          # at the first look past the silence
    assert [v for _, v in found if not isinstance(v, Silent)] == []


def test_cpu_time_after_the_last_beat_counts_until_it_stops_growing():
    """No beats, but CPU time growing for 5 s (a C call holding the interpreter lock keeps
    the heartbeat thread from running): the silence runs from when it stopped growing."""
    watch, clock = _watch()
    process = Process()
    _ready(watch)
    assert _run(watch, clock, process, 5, cpu=True) == []
    found = _run(watch, clock, process, 60)                 # frozen: it grows no more
    at, _ = _first(found, Silent)
    assert SILENT < at <= SILENT + TICK


def test_progress_of_either_kind_is_never_declared_stopped():
    """Slow is not stopped: beats alone, or CPU time alone (a C call holding the lock
    keeps the heartbeat thread from running), keep it alive at three times the silence."""
    for beat, cpu in [(READY, False), (None, True)]:
        watch, clock = _watch()
        _ready(watch)
        found = _run(watch, clock, Process(), 3 * SILENT, beat=beat, cpu=cpu)
        assert not any(isinstance(v, Silent) for _, v in found), (beat, cpu)


def test_an_engine_on_a_thread_is_never_declared_silent():
    watch, clock = _watch(own_process=False)
    _ready(watch)
    assert not any(isinstance(v, Silent) for _, v in _run(watch, clock, Process(), 60))


def test_an_ended_process_is_ended_at_the_next_look():
    watch, clock = _watch()
    process = Process()
    _ready(watch)
    process.alive = False
    assert _run(watch, clock, process, TICK) == [(TICK, Ended())]


# ---- starting -----------------------------------------------------------------------------

def test_a_slow_start_is_waited_out_and_shown_not_declared_dead():
    """A busy laptop took 13-14 s to import torch: beating all the while, a start longer
    than the silence is waited for, and the status line says what it is at, and since
    when."""
    watch, clock = _watch(silent_s=1.0)
    process = Process()
    watch.started()
    found = _run(watch, clock, process, TICK)     # Python itself, before a first beat
    assert found == [(TICK, Say("Starting the training engine: starting Python (0 s)…"))]
    said = []
    for _ in range(8):                            # 4 s importing torch, silence 1 s
        clock.now += TICK
        watch.heard()
        said.append(watch.beat(IMPORTING_TORCH, 1.0, building=False))
        assert watch.check(process) is None
    assert said[-1] == "Starting the training engine: importing torch (4 s)…"
    assert said[2] == "Starting the training engine: importing torch (2 s)…"
    watch.hello()
    watch.answered()
    assert watch.beat(READY, 0.0, building=False) is None   # started: said no more


def test_an_engine_stopped_while_starting_is_still_detected():
    watch, clock = _watch(silent_s=1.0)
    process = Process()
    watch.started()
    _run(watch, clock, process, 2, beat=IMPORTING_TORCH)
    found = _run(watch, clock, process, 5)                  # SIGSTOP: nothing more
    at, _ = _first(found, Silent)
    assert 1.0 < at <= 1.0 + TICK


def test_a_long_start_is_not_said_to_be_stuck_work():
    watch, clock = _watch()
    watch.started()
    found = _run(watch, clock, Process(), 3 * LONG, beat=IMPORTING_TORCH)
    assert watch.long_busy and found == []                  # beats speak for it


def test_a_model_file_building_says_so_with_its_seconds():
    watch, _ = _watch()
    watch.started()
    stage = "building the model file hangs.py"
    assert watch.beat(stage, 3.4, building=True) == \
        "Building the model file hangs.py… 3 s (Stop building ends it)"
    assert watch.beat(stage, 3.4, building=False) == \
        f"Starting the training engine: {stage} (0 s)…"


# ---- a step that never returns -------------------------------------------------------------

def test_a_step_that_never_returns_during_play_is_said_once_after_long_busy():
    watch, clock = _watch()
    process = Process()
    _ready(watch)
    found = _run(watch, clock, process, 3 * LONG, beat=WORKING, cpu=True)
    assert len(found) == 1                                  # said once, never stopped
    at, verdict = found[0]
    assert LONG < at <= LONG + TICK
    assert verdict == Say("The training engine has worked on this for 10 s and is still "
                          "going: press Reset (R) to stop it.")
    assert watch.reset_ends() and watch.busy_seconds == 3 * LONG


def test_an_answer_ends_the_busy_spell_and_a_new_one_is_said_again():
    watch, clock = _watch()
    process = Process()
    _ready(watch)
    watch.sent(busy=True)                                   # a command waits
    assert len(_run(watch, clock, process, LONG + 1, beat=READY)) == 1
    watch.heard()
    watch.answered()
    assert watch.busy_seconds == 0 and not watch.reset_ends()
    watch.sent(busy=True)
    assert len(_run(watch, clock, process, LONG + 1, beat=READY)) == 1


def test_a_command_sent_while_one_waits_waits_from_the_first():
    watch, clock = _watch()
    _ready(watch)
    watch.sent(busy=True)
    clock.now += 4
    watch.sent(busy=True)
    watch.sent(busy=False)
    assert watch.busy_seconds == 4


# ---- Reset --------------------------------------------------------------------------------

def test_a_reset_pressed_as_the_step_sticks_ends_it_once_the_step_has_run_long():
    """Pressed before the step has run LONG_BUSY_SECONDS: the engine cannot answer it,
    so it is ended (no second Reset needed) once the step has run that long; meanwhile,
    from a second on, the status line says what the Reset waits for, once."""
    watch, clock = _watch()
    process = Process()
    _ready(watch)
    stuck_at = clock.now
    _run(watch, clock, process, 3, beat=WORKING, cpu=True)  # stuck for 3 s
    assert not watch.reset_ends()                          # too soon: it is asked
    watch.sent(busy=True)
    watch.reset_sent(building=False)
    found = _run(watch, clock, process, 3 * LONG, beat=WORKING, cpu=True, since=stuck_at)
    waiting = [(at, v) for at, v in found if isinstance(v, Say)]
    assert len(waiting) == 1 and RESET_SAID_AFTER_S < waiting[0][0] <= 1.5
    assert waiting[0][1].line == (
        "Reset (R) is waiting for the training engine's answer (none for 4 s); at 10 s "
        "without one, the engine is ended and a fresh one started.")
    at, end = _first(found, EndUnanswered)
    assert LONG - 3 < at <= LONG - 3 + TICK and LONG < end.seconds <= LONG + TICK


def test_a_reset_pressed_after_the_step_has_run_long_ends_it_at_once():
    watch, clock = _watch()
    _ready(watch)
    _run(watch, clock, Process(), LONG + 1, beat=WORKING)
    assert watch.reset_ends() and watch.busy_seconds == LONG + 1


def test_a_reset_pressed_while_frozen_when_the_silence_comes_first():
    """The engine is declared stopped; the Reset it never answered still asks for the
    fresh engine (the client starts it)."""
    watch, clock = _watch(silent_s=3.0)
    process = Process()
    _ready(watch)
    watch.sent(busy=True)
    watch.reset_sent(building=False)
    found = _run(watch, clock, process, 10)
    assert isinstance(found[0][1], Say)                     # the Reset waits, said
    at, _ = _first(found, Silent)
    assert 3.0 < at <= 3.5 and watch.reset_asked
    assert not any(isinstance(v, EndUnanswered) for _, v in found)


def test_a_reset_pressed_while_frozen_when_its_patience_comes_first():
    """A frozen engine says nothing of its work: the Reset's own wait ends it."""
    watch, clock = _watch(long_busy_s=2.0)
    process = Process()
    _ready(watch)
    watch.sent(busy=True)
    watch.reset_sent(building=False)
    at, end = _first(_run(watch, clock, process, 10), EndUnanswered)
    assert 2.0 < at <= 2.5 and end.seconds == at


def test_a_reset_answered_is_no_longer_waited_for():
    watch, clock = _watch()
    process = Process()
    _ready(watch)
    watch.sent(busy=True)
    watch.reset_sent(building=False)
    watch.heard()
    watch.answered()
    watch.reset_answered()
    assert not watch.reset_asked
    assert _run(watch, clock, process, 3 * LONG, beat=READY) == []


def test_a_reset_while_starting_building_or_on_a_thread_is_answered_not_waited():
    """A starting engine answers once built, a build is the user's to stop, and an
    engine on a thread cannot be ended: none of them is ended by Reset's clock."""
    starting, _ = _watch()
    starting.started()
    starting.reset_sent(building=False)
    building, _ = _watch()
    _ready(building)
    building.reset_sent(building=True)
    thread, clock = _watch(own_process=False)
    _ready(thread)
    _run(thread, clock, Process(), LONG + 1, beat=WORKING)
    thread.reset_sent(building=False)
    assert not (starting.reset_asked or building.reset_asked or thread.reset_asked)
    assert thread.long_busy and not thread.reset_ends()
