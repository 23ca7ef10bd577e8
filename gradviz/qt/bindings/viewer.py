"""The recorded-run window's left column and the model: the smoothing weight, the x
axis asked for (and why another is drawn), the runs and their ticks and colours shown
from the model; the user's moves go to the viewer's controller, the fields' one
writer."""
from __future__ import annotations

from ...plain.controllers.viewer_controller import ViewerController
from ...plain.window.window_model import WindowModel
from ..widgets.runs_sidebar import RunsSidebar


def bind_viewer(sidebar: RunsSidebar, model: WindowModel, viewer: ViewerController) -> None:
    def show_runs(*_: object) -> None:
        sidebar.show_runs(model.runs_listed, model.run_slots)

    model.events.smoothing.connect(sidebar.show_smoothing)
    model.events.x_axis.connect(sidebar.show_x_axis)
    model.events.x_axis_note.connect(lambda text: sidebar.show_note(sidebar.axis_note, text))
    model.events.runs_note.connect(lambda text: sidebar.show_note(sidebar.runs_note, text))
    # a refused tick changes no slot, only the note: the list shown again unticks it
    for field in (model.events.runs_listed, model.events.run_slots, model.events.runs_note):
        field.connect(show_runs)
    sidebar.smoothing_moved.connect(viewer.set_smoothing)
    sidebar.axis_picked.connect(viewer.ask_x_axis)
    sidebar.run_ticked.connect(viewer.tick)
    sidebar.show_smoothing(model.smoothing)
    sidebar.show_x_axis(model.x_axis)
    sidebar.show_note(sidebar.axis_note, model.x_axis_note)
    sidebar.show_note(sidebar.runs_note, model.runs_note)
    show_runs()
