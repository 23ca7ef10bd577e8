"""The engine's loop, driven command by command in this process: at full speed it
samples the per-node gradients, yet every graph it sends shows them."""
import pytest

from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config


def _graphs(loop):
    return [(m.graph, m.when) for m in loop.take_outbox() if isinstance(m, p.Graph)]


def _train_until(loop, steps):
    while loop.session.step_index < steps:
        loop.train_batch(lambda: False)


def _measured(graph):
    ops = graph.by_kind("op")
    return bool(ops) and all(n.grad_norm is not None for n in ops)


def test_pausing_at_full_speed_sends_a_graph_with_gradients():
    loop = EngineLoop(Config(device="cpu"))
    loop.handle(p.Play())
    assert loop.session.sample_floor > 1          # full speed: sampled
    _train_until(loop, 30)
    while loop.session.node_grads_current:        # stop on a step that skipped them
        loop.session.step()
    loop.take_outbox()
    steps_before = loop.session.step_index
    loop.handle(p.Pause())
    (graph, when), = _graphs(loop)
    assert when == "paused"
    assert _measured(graph)
    assert loop.session.step_index == steps_before + 1   # one more step, measured


def test_a_live_graph_asked_for_mid_run_comes_after_a_measured_step():
    loop = EngineLoop(Config(device="cpu"))
    loop.handle(p.Play())
    _train_until(loop, 5)
    while loop.session.node_grads_current:
        loop.session.step()
    loop.take_outbox()
    loop.handle(p.RequestGraph())
    assert _graphs(loop) == []                    # not yet: this step skipped them
    while loop.training.graph_wanted:
        loop.train_batch(lambda: False)
    (graph, when), = _graphs(loop)
    assert when == "live" and _measured(graph)


def test_at_a_lecture_pace_every_step_is_measured():
    loop = EngineLoop(Config(device="cpu"))
    loop.handle(p.Settings(p.EngineSettings(delay_ms=100)))
    loop.handle(p.Play())
    for _ in range(3):
        loop.train_batch(lambda: False)
        assert loop.session.node_grads_current
    loop.handle(p.RequestGraph())
    (graph, _), = _graphs(loop)
    assert _measured(graph)


def test_at_a_pace_the_rate_said_is_the_pace_not_one_steps_speed():
    # at 10 steps a second the status line said 989 steps/s (how fast one step ran)
    loop = EngineLoop(Config(device="cpu"))
    loop.handle(p.Settings(p.EngineSettings(delay_ms=100)))
    loop.handle(p.Play())
    loop.train_batch(lambda: False)
    # the pace bounds the rate said; how far below it a loaded machine falls is not a fact
    assert 0 < loop.player.steps_per_second <= 10.0
    loop.handle(p.Settings(p.EngineSettings(delay_ms=0)))   # as fast as it goes
    loop.train_batch(lambda: False)
    assert loop.player.steps_per_second > 0


# the first step's phases up to its second backward: a handful; far more means no Failed
PHASES_TO_THE_ERROR = 100


def test_a_phase_that_fails_sends_its_graph_as_at_the_error():
    """Phase by phase into PyTorch's "backward through the graph a second time": the
    graph's caption read "Graph after The carried hidden state reaches a freed graph",
    the error's title run into a sentence; What happened shows the title."""
    loop = EngineLoop(Config(device="cpu", strategy="separate", retain_graph="never"))
    whens = []
    for _ in range(PHASES_TO_THE_ERROR):   # bounded: a Failed never sent fails, not hangs
        loop.handle(p.Phase())
        whens += [m.when for m in loop.outbox.messages if isinstance(m, p.Graph)]
        if any(isinstance(m, p.Failed) for m in loop.outbox.messages):
            break
        loop.take_outbox()
    else:
        pytest.fail(f"no Failed after {PHASES_TO_THE_ERROR} phases")
    assert whens[-1] == "at the error"
    assert all(w.startswith("after ") for w in whens[:-1]) and len(whens) > 1


def test_a_graph_asked_for_during_play_and_answered_after_its_error_is_at_the_error():
    """The window asks for a live graph while it sees Play running; on a busy machine
    the request reached the engine after the step that failed, and its answer, captioned
    "live", replaced the graph "at the error" (an rnn never truncated: step 2 runs
    backward through step 1's freed graph)."""
    loop = EngineLoop(Config(device="cpu", batch_size=32, model="rnn", truncate="never"))
    loop.handle(p.Play())
    while loop.player.running:
        loop.train_batch(lambda: False)
    sent = loop.take_outbox()
    (failed,) = [m for m in sent if isinstance(m, p.Failed)]
    assert "backward through the graph a second time" in failed.event.message
    assert [m.when for m in sent if isinstance(m, p.Graph)][-1] == "at the error"
    loop.handle(p.RequestGraph())            # the window's request, late
    (graph, when), = _graphs(loop)
    assert when == "at the error"
    assert any(n.freed for n in graph.nodes)  # step 1's freed buffers, as at the error


def test_the_pipe_is_looked_at_no_more_often_than_asked():
    from gradviz.engine.training import at_most_every
    now = [0.0]
    asked: list[float] = []

    def waiting() -> bool:
        asked.append(now[0])
        return True
    look = at_most_every(0.002, waiting, clock=lambda: now[0])
    answers = []
    for t in (0.001, 0.0019, 0.002, 0.003, 0.0041, 0.0042):
        now[0] = t
        answers.append(look())
    assert answers == [False, False, True, False, True, False]
    assert asked == [0.002, 0.0041]


def test_a_command_waiting_still_ends_a_batch_at_full_speed():
    loop = EngineLoop(Config(device="cpu"))
    loop.handle(p.Play())
    _train_until(loop, 5)
    before = loop.session.step_index
    looks: list[int] = []

    def waiting() -> bool:
        looks.append(loop.session.step_index)
        return True
    loop.train_batch(waiting)
    # the batch ends at its first look at the pipe, which finds the command (or sooner,
    # at its 20 ms, where steps are slow: no look at all)
    assert looks in ([], [loop.session.step_index]) and loop.session.step_index > before


def _paced(delay_ms: int, phases: bool = False) -> p.Settings:
    return p.Settings(p.EngineSettings(delay_ms=delay_ms, animate_phases=phases))


def test_a_faster_pace_cuts_the_pause_begun_at_the_slower_one():
    """The slider moved from 1.5 s a step to the fastest: the next step comes now, not
    1.5 s after the last; a slower pace, or phase by phase (its pause holds a sweep being
    drawn), leaves the pause begun as it is."""
    loop = EngineLoop(Config(device="cpu"))
    loop.handle(_paced(1500))
    loop.handle(p.Play())
    loop.train_batch(lambda: False)
    assert loop.session.step_index == 1 and loop.due_in() > 1.0
    loop.handle(_paced(0, phases=True))           # faster, phase by phase: kept
    assert loop.due_in() > 1.0
    loop.handle(_paced(1500))
    loop.handle(_paced(20))                       # faster, step by step: cut
    assert loop.due_in() <= 0.02
    loop.handle(_paced(1500, phases=True))
    loop.handle(_paced(0, phases=True))
    loop.handle(_paced(0))                        # the same pace, step by step: now
    assert loop.due_in() <= 0.02
    loop.handle(_paced(1000))                     # slower: from the next step on
    assert loop.due_in() <= 0.02
    loop.train_batch(lambda: False)
    assert loop.session.step_index == 2 and loop.due_in() > 0.5


def test_a_change_between_steps_sends_the_graph_and_one_mid_step_waits_for_the_step():
    """A settings change that keeps the model (the learning rate) shows its graph at
    once between steps; made inside a step (played phase by phase) it waits for the step
    to end, and the graph after the last phase stays."""
    loop = EngineLoop(Config(device="cpu"))
    loop.handle(p.Step())
    loop.take_outbox()
    loop.handle(p.SetConfig(loop.session.config.replace(lr=0.05)))
    out = loop.take_outbox()
    (applied,) = [m for m in out if isinstance(m, p.ConfigApplied)]
    assert applied.did_reset is False and applied.config.lr == 0.05
    assert [m.when for m in out if isinstance(m, p.Graph)] == ["after the change"]
    loop.handle(p.Phase())
    loop.handle(p.Phase())   # zero_grad, then the forward pass: inside step 1
    assert loop.session.in_step
    loop.take_outbox()
    loop.handle(p.SetConfig(loop.session.config.replace(lr=0.02)))
    out = loop.take_outbox()
    assert [type(m) for m in out] == [p.ConfigApplied] and out[0].config.lr == 0.02


def test_a_negative_stop_from_the_window_is_a_stop_at_step_0():
    loop = EngineLoop(Config(device="cpu"))
    loop.handle(p.Settings(p.EngineSettings(stop_at=-4, delay_ms=-10)))
    assert (loop.player.stop_at, loop.player.delay_s) == (0, 0)
