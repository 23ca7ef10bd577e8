"""What the window's model still owes the engine: only what differs from what was last
sent, so a value is sent once whatever order its fields were written in, and a value a
slide already carried is not sent again. No Qt, no engine: milliseconds."""
import dataclasses

import pytest

from gradviz.plain.config.config import Config
from gradviz.plain.records.engine_settings import EngineSettings
from gradviz.plain.window.engine_sync import Outgoing, Sent, mark_sent, outgoing
from gradviz.plain.window.window_model import WindowModel

B = Config(heads=2, batch_size=64)


def _in_step(model: WindowModel) -> Sent:
    """What an engine that has everything the model asks for was sent."""
    return Sent(config=model.requested, settings=model.engine_settings(), b=model.b_requested)


def test_nothing_is_owed_once_everything_was_sent():
    m = WindowModel(pace_ms=50, play_mode="phases", stop_at=9, b_requested=B)
    out = outgoing(m, _in_step(m))
    assert out == Outgoing() and out.empty


def test_a_fresh_engine_is_owed_the_settings_but_not_the_config_it_started_with():
    m = WindowModel()
    out = outgoing(m, Sent(config=m.requested))
    assert out.config is None and out.settings == m.engine_settings() and not out.pin_b
    assert not out.answered   # a fresh engine answers its first settings with nothing
    assert not out.empty


def test_a_changed_config_is_owed_alone():
    m = WindowModel()
    sent = _in_step(m)
    m.requested = B
    out = outgoing(m, sent)
    assert out.config == B and out.settings is None and not out.pin_b


@pytest.mark.parametrize("field, value, changed", [
    ("pace_ms", 100, {"delay_ms": 100}), ("play_mode", "phases", {"animate_phases": True}),
    ("stop_at", 0, {"stop_at": 0}), ("show_saved", True, {"show_saved": True}),
    ("track_node_grads", False, {"track_node_grads": False})])
def test_each_engine_setting_changed_owes_all_of_them_in_one_record(field, value, changed):
    m = WindowModel()
    sent = _in_step(m)
    setattr(m, field, value)
    out = outgoing(m, sent)
    assert out.settings == dataclasses.replace(EngineSettings(), **changed)
    assert out.config is None and not out.pin_b
    # only a change of the saved tensors is answered (by a graph)
    assert out.answered is (field == "show_saved")


def test_writing_a_field_back_to_what_was_sent_owes_nothing():
    m = WindowModel()
    sent = _in_step(m)
    m.pace_ms, m.play_mode = 500, "phases"
    m.pace_ms, m.play_mode = 0, "steps"
    assert outgoing(m, sent).empty


def test_the_order_fields_are_written_in_does_not_change_what_is_owed():
    first, second = WindowModel(), WindowModel()
    sent_first, sent_second = _in_step(first), _in_step(second)
    first.pace_ms, first.play_mode, first.requested = 20, "phases", B
    second.requested, second.play_mode, second.pace_ms = B, "phases", 20
    assert outgoing(first, sent_first) == outgoing(second, sent_second)


def test_b_asked_for_is_owed_and_so_is_stopping_it():
    m = WindowModel()
    sent = _in_step(m)
    m.b_requested = B
    out = outgoing(m, sent)
    assert (out.pin_b, out.b) == (True, B) and out.config is None and out.settings is None
    mark_sent(sent, out)
    assert outgoing(m, sent).empty
    m.b_requested = None
    out = outgoing(m, sent)
    assert (out.pin_b, out.b) == (True, None) and not out.empty


def test_what_was_sent_is_marked_and_what_was_not_kept():
    m = WindowModel(pace_ms=5, b_requested=B)
    sent = Sent(config=Config(), settings=None, b=B)
    out = outgoing(m, sent)          # the settings only: config and B are as sent
    mark_sent(sent, out)
    assert sent == Sent(config=Config(), settings=m.engine_settings(), b=B)
    mark_sent(sent, Outgoing(config=B, pin_b=True, b=None))
    assert sent == Sent(config=B, settings=m.engine_settings(), b=None)
    assert outgoing(m, sent).config == Config()   # owed back: the model still asks it


def test_an_empty_outgoing_has_nothing_in_it():
    assert Outgoing().empty
    assert not Outgoing(config=B).empty
    assert not Outgoing(settings=EngineSettings()).empty
    assert not Outgoing(pin_b=True).empty
