"""What happened names who said it: a model file gradviz refused is gradviz's word (not
"PyTorch says (ModelFileError)"), a QP solver's error the solver's."""
from gradviz.plain.records.events import Event
from gradviz.qt.widgets.events_view import EventsView


def _event(source: str, kind: str) -> Event:
    return Event(0, "model file", "loading the model file", kind, "m.py: no build",
                 "The model file was not used", "why", "hint", source)


def test_the_view_says_who_raised_it(qtbot):
    view = EventsView()
    qtbot.addWidget(view)
    view.show_event(_event("gradviz", "ModelFileError"))
    assert "<b>gradviz says</b> (ModelFileError)" in view.text()
    assert "PyTorch says" not in view.text()
    view.show_event(_event("qpsolvers", "AttributeError"))
    assert "<b>qpsolvers says</b> (AttributeError)" in view.text()
