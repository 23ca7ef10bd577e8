"""The window's state model, without a window: each field announces a change, once, and
only a real change."""
from gradviz.plain.config import Config
from gradviz.plain.window_model import WindowModel


def test_a_field_announces_its_new_value_once_and_only_when_it_changes():
    model = WindowModel()
    zooms, changes = [], []
    model.events.zoom.connect(zooms.append)
    model.events.connect(lambda info: changes.append(info.signal.name))
    model.zoom = 1.15
    model.zoom = 1.15                      # the same: nothing said
    model.lesson, model.slide = "zero-grad", 0
    assert zooms == [1.15] and changes == ["zoom", "lesson", "slide"]


def test_waiting_while_the_engine_has_not_confirmed_what_was_asked():
    model = WindowModel()
    assert not model.waiting and not model.in_lesson
    model.requested = Config(heads=2)
    assert model.waiting
    model.confirmed = Config(heads=2)
    assert not model.waiting
