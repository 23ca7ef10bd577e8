"""The engine adapter alone, against a fake pipe (no engine, no window): what the engine
says lands in the window's model and goes on as the record itself; what the model asks
for is sent once, only where it differs from what was last sent, after all of a
writer's fields and before the next command, whatever order they were written in."""
import pytest
from PySide6.QtWidgets import QApplication

from gradviz.engine import protocol as p
from gradviz.engine.heartbeat import BUILDING_MODEL_FILE
from gradviz.plain.config.config import Config
from gradviz.plain.records.engine_settings import EngineSettings
from gradviz.plain.records.records import StepRecord
from gradviz.plain.window.engine_sync import Sent
from gradviz.plain.window.window_model import WindowModel
from gradviz.qt.engine_client import EngineClient

B = Config(heads=2, batch_size=64)


class Pipe:
    """The window's end of a pipe: what was sent down it."""
    def __init__(self):
        self.sent: list = []

    def send(self, message) -> None:
        self.sent.append(message)

    def close(self) -> None:
        pass


@pytest.fixture
def attached(qapp):
    """An adapter whose engine has started and been sent everything (as start() leaves
    it), talking down a fake pipe; what it hands on, in order."""
    model = WindowModel()
    client = EngineClient(model)
    client.alive, client._conn = True, Pipe()
    client._sent = Sent(config=model.requested, settings=model.engine_settings())
    handed: list = []
    client.received.connect(handed.append)
    yield model, client, client._conn.sent, handed
    client._sync_timer.stop()


def _turn() -> None:
    """One turn of the event loop: what the model's writers left is sent then."""
    QApplication.processEvents()


def _say(client: EngineClient, *records) -> None:
    for record in records:
        p.dispatch("the test", client.handlers, record)


def test_a_fresh_model_lands_in_the_model_before_its_record_goes_on(attached):
    model, client, sent, handed = attached
    client.records.append((0, StepRecord(step=9, losses={}, total=1.0)))
    seen: list = []
    client.received.connect(lambda r: seen.append((model.generation, model.head_names)))
    applied = p.ConfigApplied(B, True, ["trunk.0.weight"], ["left", "right"], "two.py", [1, 2])
    _say(client, applied)
    assert (model.confirmed, model.requested, model.generation) == (B, B, 1)
    assert (model.head_names, model.param_names) == (("left", "right"), ("trunk.0.weight",))
    assert (model.model_name, model.model_taps) == ("two.py", (1, 2))
    assert handed == [applied] and seen == [(1, ("left", "right"))]
    assert len(client.records) == 0            # the replaced model's steps: dropped
    _turn()
    assert sent == []                          # in force: nothing to send back


def test_a_config_applied_without_a_reset_keeps_the_generation_and_the_steps(attached):
    model, client, _sent, _handed = attached
    client.records.append((0, StepRecord(step=0, losses={}, total=1.0)))
    _say(client, p.ConfigApplied(B, False, []))
    assert model.generation == 0 and len(client.records) == 1
    assert model.head_names == tuple(B.head_names())   # the engine named none: the config's
    assert model.model_path is None                    # no model file in use


def test_steps_are_kept_with_their_generation_and_the_rate_in_the_model(attached):
    model, client, _sent, handed = attached
    _say(client, p.ConfigApplied(Config(), True, []))
    _say(client, p.Records([StepRecord(step=0, losses={}, total=1.0),
                            StepRecord(step=1, losses={}, total=0.5)], 812.5))
    assert [(g, r.step) for g, r in client.records] == [(1, 0), (1, 1)]
    assert model.steps_per_second == 812.5 and len(handed) == 1


def test_running_is_the_models_and_no_record_goes_on(attached):
    model, client, _sent, handed = attached
    changes: list = []
    model.events.running.connect(lambda running: changes.append(running))
    _say(client, p.Running(True), p.Running(False))
    assert changes == [True, False] and handed == []


def test_a_model_field_is_sent_once_after_its_writer_is_done(attached):
    model, _client, sent, _handed = attached
    model.pace_ms = 500
    model.play_mode = "phases"
    assert sent == []                          # not field by field...
    _turn()
    assert sent == [p.Settings(EngineSettings(delay_ms=500, animate_phases=True))]
    model.pace_ms = 500                        # ...nor again
    _turn()
    assert len(sent) == 1


def test_the_order_of_writes_does_not_change_what_is_sent(qapp):
    outs = []
    for order in (("pace_ms", "requested", "b_requested"),
                  ("b_requested", "requested", "pace_ms")):
        model = WindowModel()
        client = EngineClient(model)
        client.alive, client._conn = True, Pipe()
        client._sent = Sent(config=model.requested, settings=model.engine_settings())
        values = {"pace_ms": 20, "requested": B, "b_requested": B}
        for name in order:
            setattr(model, name, values[name])
        _turn()
        outs.append(client._conn.sent)
    assert outs[0] == outs[1] == [p.Settings(EngineSettings(delay_ms=20)), p.SetConfig(B),
                                  p.PinB(B)]


def test_a_command_goes_after_what_the_model_asked_for_before_it(attached):
    model, client, sent, _handed = attached
    model.requested = B
    client.play()
    assert sent == [p.SetConfig(B), p.Play()]
    _turn()
    assert sent == [p.SetConfig(B), p.Play()]   # (not twice)


def test_a_slide_is_one_message_and_the_same_values_written_after_it_send_nothing(attached):
    model, client, sent, _handed = attached
    settings = EngineSettings(delay_ms=100, stop_at=20)
    client.show_slide(B, settings, True)
    model.pace_ms, model.stop_at, model.requested = 100, 20, B
    _turn()
    assert sent == [p.Slide(B, settings, True)]
    model.play_mode = "phases"                  # a change after it is sent
    _turn()
    assert sent[1:] == [p.Settings(EngineSettings(delay_ms=100, animate_phases=True,
                                                  stop_at=20))]


def test_b_refused_leaves_nothing_pinned_and_stopping_it_sends_nothing(attached):
    model, client, sent, handed = attached
    model.b_requested = B
    _turn()
    refused = p.BPinned(None, "B's process could not start")
    _say(client, refused)
    assert model.pinned_b is None and handed == [refused]
    model.b_requested = None                    # Compare forgets it: nothing to tell
    _turn()
    assert sent == [p.PinB(B)]


def test_b_pinned_is_the_models(attached):
    model, client, _sent, _handed = attached
    _say(client, p.BPinned(B, None))
    assert model.pinned_b == B


def test_hello_names_the_devices_and_the_engine_is_ready(attached):
    model, client, _sent, handed = attached
    client._starting = True
    hello = p.Hello([("cpu", "the CPU"), ("cuda:0", "a GPU")])
    _say(client, hello)
    assert model.devices == (("cpu", "the CPU"), ("cuda:0", "a GPU"))
    assert model.engine_state == "ready" and handed == [hello]


def test_building_a_model_file_is_said_and_is_the_engines_state(attached):
    model, client, _sent, handed = attached
    client._building = True
    client._on_alive(p.Alive(f"{BUILDING_MODEL_FILE} two.py", 3.4))
    assert model.engine_state == "building"
    assert handed == [p.Notice("Building the model file two.py… 3 s (Stop building ends it)")]
    _say(client, p.ConfigApplied(Config(), True, [], model="two.py"))
    assert model.engine_state == "ready"


def test_a_dead_engine_keeps_the_models_state_for_the_next_and_says_so(attached):
    model, client, sent, handed = attached
    model.running = True
    client._died()
    assert not client.alive and model.engine_state == "stopped" and not model.running
    assert len(handed) == 1 and handed[0].event.type == "EngineStopped"
    model.pace_ms = 50                          # kept for the next engine: no word
    _turn()
    client.step_once()                          # a command needs one: press Reset
    assert sent == [] and handed[-1] == p.Notice(
        "The training engine has stopped: press Reset (R) to start a fresh one.")



def test_a_change_not_sent_yet_is_sent_before_the_engine_s_config_is_adopted(attached):
    model, client, sent, _handed = attached
    model.requested = B                         # the user's change, its turn not come
    _say(client, p.ConfigApplied(Config(), False, []))   # an answer to an older one
    assert sent == [p.SetConfig(B)]             # the engine is told all the same
    assert model.requested == Config()          # (shown as in force until it answers)
    _say(client, p.ConfigApplied(B, False, []))
    assert model.requested == model.confirmed == B
    _turn()
    assert sent == [p.SetConfig(B)]
