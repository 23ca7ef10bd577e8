"""The graph panel and the model: the saved tensors drawn both ways, what a slide
frames, the graphs the engine sends (a backward call's swept, phase by phase), and a
torchviz export asked of the engine."""
from __future__ import annotations

from ...engine import protocol as p
from ...plain.window.status_line import sweep_ms
from ...plain.window.window_model import WindowModel
from ..engine_client import EngineClient
from ..widgets.graph_view import GraphView


def bind_graph_view(view: GraphView, model: WindowModel, engine: EngineClient) -> None:
    def show_saved(on: bool) -> None:
        if view.show_saved.isChecked() != on:
            view.show_saved.setChecked(on)

    def received(record: object) -> None:
        if isinstance(record, p.Graph):
            view.show_graph(record.graph, record.when)
        elif isinstance(record, p.PhaseDone) and record.phase.name == "backward" \
                and record.phase.event is None \
                and (model.play_mode == "phases" or not model.running):
            # phase by phase (played, or one at a time): the graph that follows shows
            # this call's sweep, within the pace's time for the phase (or at the slide's
            # own turn per box, which the engine holds the phase for)
            view.animate_next_backward(sweep_ms(model.pace_ms), model.sweep_box_ms)

    model.events.show_saved.connect(show_saved)
    model.events.focus.connect(view.set_focus)
    view.showSavedChanged.connect(lambda on: setattr(model, "show_saved", on))
    view.torchvizRequested.connect(engine.export_torchviz)
    engine.received.connect(received)
    show_saved(model.show_saved)
