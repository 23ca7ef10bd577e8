"""engine.player alone, on a fake clock, in milliseconds: Play and Pause, the pace, a
slide's stop (a negative one read as 0), RunSteps' count, what a batch trains and when
the next is due, phase by phase with a sweep held, and when the steps are sampled."""
import pytest

from gradviz.engine import player as player_module
from gradviz.engine.cadence import FAST_SAMPLE_EVERY
from gradviz.engine.player import BATCH_SECONDS, MIN_PHASE_SECONDS, Next, Player
from gradviz.plain.graph.graph_data import GraphData, GraphNode
from gradviz.plain.graph.sweep_pace import DRAW_MS, HOLD_MS
from gradviz.plain.records.engine_settings import EngineSettings
from gradviz.plain.records.records import PhaseRecord


class Clock:
    def __init__(self, now: float = 100.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


def _player(**settings) -> tuple[Player, Clock]:
    clock = Clock()
    player = Player(clock)
    player.apply(EngineSettings(**settings))
    return player, clock


def _phase(name: str, step_done: bool = False, failed: bool = False) -> PhaseRecord:
    from gradviz.plain.records.events import Event
    event = Event(0, name, name, "RuntimeError", "m", "t", "e", "h") if failed else None
    return PhaseRecord(0, name, name, step_done=step_done, event=event)


def test_a_fresh_player_is_paused_at_full_speed_settings_and_trains_nothing():
    player, _ = _player()
    assert not player.running and player.due_in() is None
    assert player.settings == EngineSettings() and player.steps_left is None
    assert player.sample_floor == 1             # paused: every step measured


def test_play_is_due_at_once_and_samples_at_full_speed():
    player, clock = _player()
    player.play(0, False)
    assert player.running and player.due_in() == 0.0
    assert player.fast and player.sample_floor == FAST_SAMPLE_EVERY
    player.halt()
    assert not player.running and player.sample_floor == 1


@pytest.mark.parametrize("settings", [dict(delay_ms=100), dict(animate_phases=True)])
def test_at_a_pace_or_phase_by_phase_every_step_is_measured(settings):
    player, _ = _player(**settings)
    player.play(0, False)
    assert not player.fast and player.sample_floor == 1


def test_a_negative_stop_is_a_stop_at_step_0_and_a_negative_delay_none():
    player, _ = _player(stop_at=-5, delay_ms=-300)
    assert player.stop_at == 0 and player.settings.delay_ms == 0 and player.delay_s == 0
    assert player.at_stop(0, False)
    player.apply(EngineSettings(stop_at=0))
    assert player.stop_at == 0 and player.at_stop(0, False)   # 0 stays 0
    player.apply(EngineSettings(stop_at=7, delay_ms=250))
    assert (player.stop_at, player.delay_s) == (7, 0.25)       # kept as sent


def test_the_stop_is_reached_at_exactly_n_steps_and_never_inside_a_step():
    player, _ = _player(stop_at=3)
    assert not player.at_stop(2, False)
    assert player.at_stop(3, False) and player.at_stop(4, False)
    assert not player.at_stop(3, True)          # played by phases: after the step's last


def test_play_at_the_stop_goes_on_past_it_and_play_before_it_keeps_it():
    player, _ = _player(stop_at=3)
    player.play(1, False)
    assert player.stop_at == 3
    player.play(3, True)                        # inside step 3: not at the stop yet
    assert player.stop_at == 3
    player.play(3, False)
    assert player.stop_at is None


def test_each_step_of_a_batch_trains_on_until_the_stop():
    player, _ = _player(stop_at=2)
    player.play(0, False)
    assert player.stepped(1, False) is Next.ON and player.running
    assert player.stepped(2, False) is Next.AT_STOP and not player.running


def test_run_steps_counts_its_steps_down_and_ignores_the_stop():
    player, _ = _player(stop_at=1, delay_ms=500)
    player.run_steps(3)
    assert player.running and player.due_in() == 0.0 and player.sample_floor == 1
    assert [player.stepped(n, False) for n in (1, 2)] == [Next.ON, Next.ON]
    assert player.steps_left == 1 and player.running
    assert player.stepped(3, False) is Next.STEPS_DONE
    assert not player.running and player.steps_left is None


def test_run_steps_of_one_step_is_done_after_it():
    player, _ = _player()
    player.run_steps(1)
    assert player.stepped(1, False) is Next.STEPS_DONE


def test_a_command_that_trains_by_itself_stops_play_and_a_run_and_says_whether_it_ran():
    player, _ = _player()
    player.run_steps(5)
    assert player.halt() is True
    assert not player.running and player.steps_left is None
    assert player.halt() is False               # already stopped: nothing to say


def test_play_after_a_run_forgets_the_run():
    player, _ = _player()
    player.run_steps(5)
    player.play(0, False)
    assert player.steps_left is None and player.fast


def test_a_failure_stops_play_and_the_run():
    player, _ = _player()
    player.run_steps(5)
    player.failed()
    assert not player.running and player.steps_left is None and player.due_in() is None


def test_a_batch_at_full_speed_lasts_about_batch_seconds_and_the_next_is_due_at_once():
    player, clock = _player()
    player.play(0, False)
    assert not player.batch_full(BATCH_SECONDS)
    assert player.batch_full(BATCH_SECONDS + 0.001)
    player.batch_ended(40, 0.02)
    assert player.steps_per_second == pytest.approx(2000)
    assert player.next_due == clock.now and player.due_in() == 0.0


def test_at_a_pace_a_batch_is_one_step_and_the_next_comes_after_the_delay():
    player, clock = _player(delay_ms=100)
    player.play(0, False)
    assert player.batch_full(0.0)
    player.batch_ended(1, 0.004)
    # the rate said is the pace's (a step, then the delay), not one step's speed
    assert player.steps_per_second == pytest.approx(1 / 0.104)
    assert player.due_in() == pytest.approx(0.1)
    clock.now += 0.04
    assert player.due_in() == pytest.approx(0.06)
    clock.now += 1.0
    assert player.due_in() == 0.0               # overdue: now, never negative


def test_run_steps_go_as_fast_as_they_can_whatever_the_pace():
    player, clock = _player(delay_ms=1000)
    player.run_steps(10)
    assert not player.batch_full(0.001)
    player.batch_ended(4, 0.02)
    assert player.due_in() == 0.0


def test_a_batch_of_no_time_says_a_rate_not_a_division_by_zero():
    player, _ = _player()
    player.batch_ended(3, 0.0)
    assert player.steps_per_second == pytest.approx(3e9)


def test_the_sampling_spacing_is_timed_at_full_speed_only(monkeypatch):
    monkeypatch.setattr(player_module.Cadence, "trained",
                        lambda self, steps, now: setattr(self, "told", (steps, now)))
    player, clock = _player()
    player.play(0, False)
    player.batch_ended(30, 0.02)
    assert player.cadence.told == (30, clock.now)
    paced, _ = _player(delay_ms=10)
    paced.play(0, False)
    paced.batch_ended(1, 0.001)
    assert not hasattr(paced.cadence, "told")


def test_play_again_times_the_spacing_afresh():
    player, _ = _player()
    player.play(0, False)
    player.cadence.every = 120
    player.play(0, False)
    assert player.cadence.every == FAST_SAMPLE_EVERY


def test_a_faster_pace_cuts_the_pause_begun_and_a_slower_one_waits_for_the_next_step():
    player, clock = _player(delay_ms=1500)
    player.play(0, False)
    player.batch_ended(1, 0.0)
    assert player.due_in() == pytest.approx(1.5)
    player.change(EngineSettings(delay_ms=3000))
    assert player.due_in() == pytest.approx(1.5)   # slower: from the next step on
    player.change(EngineSettings(delay_ms=200))
    assert player.due_in() == pytest.approx(0.2)   # faster: now
    player.change(EngineSettings(delay_ms=0, animate_phases=True))
    assert player.due_in() == pytest.approx(0.2)   # phase by phase: the pause stays


def test_apply_replaces_without_cutting_the_pause():
    player, clock = _player(delay_ms=1500)
    player.play(0, False)
    player.batch_ended(1, 0.0)
    player.apply(EngineSettings(delay_ms=0))
    assert player.due_in() == pytest.approx(1.5)


def test_phase_by_phase_a_batch_is_one_phase_but_a_run_trains_whole_steps():
    player, _ = _player(animate_phases=True)
    player.play(0, False)
    assert player.plays_phases
    player.run_steps(3)
    assert not player.plays_phases
    plain, _ = _player()
    plain.play(0, False)
    assert not plain.plays_phases


def test_zero_grad_that_went_well_plays_on_into_the_forward_pass():
    assert Player.plays_on(_phase("zero_grad"))
    assert not Player.plays_on(_phase("zero_grad", failed=True))
    assert not Player.plays_on(_phase("forward"))


def test_each_phase_is_shown_at_least_min_phase_seconds_or_the_pace():
    player, clock = _player(animate_phases=True)
    player.play(0, False)
    player.phase_played(_phase("forward"), None)
    assert player.next_due == pytest.approx(clock.now + MIN_PHASE_SECONDS)
    player.apply(EngineSettings(animate_phases=True, delay_ms=700))
    player.phase_played(_phase("forward"), None)
    assert player.next_due == pytest.approx(clock.now + 0.7)


def _swept(boxes: int) -> GraphData:
    nodes = [GraphNode(id=f"n{i}", label=f"op{i}", kind="op") for i in range(boxes)]
    return GraphData(nodes=nodes, sweeps=[[n.id for n in nodes]])


def test_a_backward_phase_is_held_until_its_sweep_is_drawn():
    player, clock = _player(animate_phases=True, sweep_box_ms=400)
    player.play(0, False)
    held = (4 * 400 + HOLD_MS + DRAW_MS) / 1000
    player.phase_played(_phase("backward"), _swept(4))
    assert player.next_due == pytest.approx(clock.now + held)
    player.phase_played(_phase("forward"), _swept(4))    # only a backward call sweeps
    assert player.next_due == pytest.approx(clock.now + MIN_PHASE_SECONDS)
    player.phase_played(_phase("backward"), None)        # no graph read: no sweep
    assert player.next_due == pytest.approx(clock.now + MIN_PHASE_SECONDS)
    player.apply(EngineSettings(animate_phases=True, delay_ms=5000, sweep_box_ms=400))
    player.phase_played(_phase("backward"), _swept(4))   # a slower pace than the sweep
    assert player.next_due == pytest.approx(clock.now + 5.0)


def test_play_after_a_paced_step_is_due_at_once_not_after_the_pace():
    player, _ = _player(delay_ms=1500)
    player.play(0, False)
    player.batch_ended(1, 0.001)
    player.halt()
    player.play(1, False)
    assert player.due_in() == 0.0
