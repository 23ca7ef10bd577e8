"""The viewer's choices against fakes (no window): the runs ticked keep their colour
slots, a ninth is refused with a note, a run gone is unticked, the smoothing weight is
the slider's, and time asked of runs without it is drawn by step with a note; a fake
view bound to the model sees each change once, as the window's controls would."""
from __future__ import annotations

import pytest

from gradviz.plain.controllers.viewer_controller import ViewerController
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord
from gradviz.plain.window.window_model import MAX_OVERLAID, WindowModel, WindowModelError


def slot_of(viewer: ViewerController, name: str) -> int | None:
    """The run's colour slot (None: not ticked)."""
    slots = viewer.model.run_slots
    return slots.index(name) if name in slots else None


def _history(timed: bool, steps: int = 3) -> History:
    h = History(["a"], ["w"])
    for s in range(steps):
        h.append(StepRecord(step=s, losses={"a": 1.0}, total=1.0,
                            wall_time=100.0 + s if timed else None))
    return h


class FakeView:
    """What the runs list and the chart titles would show, as the model tells them."""

    def __init__(self, model: WindowModel):
        self.seen: list[tuple[str, object]] = []
        for name in ("run_slots", "runs_note", "smoothing", "x_axis_shown", "x_axis_note"):
            getattr(model.events, name).connect(self._seer(name))

    def _seer(self, name: str):
        return lambda value: self.seen.append((name, value))


def _rig(drawn=None):
    model = WindowModel()
    runs = {} if drawn is None else drawn
    return model, ViewerController(model, lambda: runs), FakeView(model), runs


NAMES = [f"run{k}" for k in range(10)]


def test_a_folder_s_first_listing_ticks_its_first_eight_runs():
    model, viewer, view, _ = _rig()
    viewer.list_runs(NAMES)
    assert model.runs_listed == tuple(NAMES)
    assert viewer.ticked == NAMES[:MAX_OVERLAID] and viewer.overlaid
    assert view.seen == [("run_slots", tuple(NAMES[:MAX_OVERLAID]))]
    viewer.list_runs(NAMES)   # listed again, the same: nothing said
    assert len(view.seen) == 1


def test_a_run_keeps_its_colour_while_others_are_ticked_and_unticked():
    model, viewer, _, _ = _rig()
    viewer.list_runs(NAMES[:4])
    assert [slot_of(viewer, n) for n in NAMES[:4]] == [0, 1, 2, 3]
    viewer.tick("run1", False)
    assert model.run_slots == ("run0", None, "run2", "run3")
    assert slot_of(viewer, "run3") == 3   # not moved into run1's colour
    viewer.tick("run1", True)            # back into the first free slot
    assert slot_of(viewer, "run1") == 1
    viewer.tick("run3", False)
    assert model.run_slots == ("run0", "run1", "run2")   # no free slot kept at the end


def test_a_ninth_run_is_refused_with_a_note_and_an_untick_makes_room():
    model, viewer, view, _ = _rig()
    viewer.list_runs(NAMES)
    viewer.tick("run8", True)
    assert "run8" not in model.run_slots and len(viewer.ticked) == MAX_OVERLAID
    assert model.runs_note == ("At most 8 runs are drawn over each other: untick one to "
                               "tick run8")
    viewer.tick("run0", False)
    viewer.tick("run8", True)
    assert slot_of(viewer, "run8") == 0 and model.runs_note == ""
    assert ("runs_note", "") in view.seen


def test_one_run_ticked_is_not_overlaid_and_a_run_gone_is_unticked():
    model, viewer, _, _ = _rig()
    viewer.list_runs(["a", "b"])
    viewer.tick("b", False)
    assert viewer.ticked == ["a"] and not viewer.overlaid
    viewer.tick("b", True)
    viewer.list_runs(["b", "c"])   # a's folder removed
    assert model.run_slots == (None, "b") and viewer.ticked == ["b"]
    viewer.tick("nowhere", True)   # not a run of the folder: nothing
    assert viewer.ticked == ["b"]


def test_the_smoothing_weight_is_the_slider_s():
    model, viewer, view, _ = _rig()
    viewer.set_smoothing(0.6000000001)
    assert model.smoothing == 0.6
    viewer.set_smoothing(1.0)    # past the slider's end: its end
    assert model.smoothing == 0.99
    viewer.set_smoothing(float("nan"))
    assert model.smoothing == 0.0
    assert [v for n, v in view.seen if n == "smoothing"] == [0.6, 0.99, 0.0]
    with pytest.raises(WindowModelError):
        model.smoothing = 1.0    # no other writer may put the model out of range


def test_time_is_drawn_where_every_run_drawn_recorded_it():
    model, viewer, view, runs = _rig({"a": _history(True), "b": _history(True)})
    viewer.ask_x_axis("relative")
    assert (model.x_axis, model.x_axis_shown, model.x_axis_note) == ("relative", "relative", "")
    viewer.ask_x_axis("wall")
    assert model.x_axis_shown == "wall"


def test_time_asked_of_a_run_without_it_is_drawn_by_step_with_a_note():
    model, viewer, view, runs = _rig({"a": _history(True), "old": _history(False),
                                      "empty": None})
    viewer.ask_x_axis("relative")
    assert model.x_axis == "relative" and model.x_axis_shown == "step"
    assert model.x_axis_note == ('by step: old recorded no time per step (a step\'s '
                                 '"wall_time", written by a newer gradviz.watch)')
    # the note first: a view redrawn for the axis finds the note of that axis
    assert [n for n, _ in view.seen] == ["x_axis_note"]
    del runs["old"]          # unticked: every run drawn has its time
    viewer.runs_changed()
    assert model.x_axis_shown == "relative" and model.x_axis_note == ""
    viewer.ask_x_axis("step")
    assert model.x_axis_shown == "step" and model.x_axis_note == ""
    with pytest.raises(ValueError):
        viewer.ask_x_axis("epoch")
