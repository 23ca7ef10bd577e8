"""The graph panel and the model: the saved tensors drawn both ways, what a slide
frames, and the graphs the engine sends (a torchviz export asked of it)."""
from __future__ import annotations

from ...engine import protocol as p
from ...plain.window_model import WindowModel
from ..engine_client import EngineClient
from ..widgets.graph_view import GraphView


def bind_graph_view(view: GraphView, model: WindowModel, engine: EngineClient) -> None:
    def show_saved(on: bool) -> None:
        if view.show_saved.isChecked() != on:
            view.show_saved.setChecked(on)

    def received(record: object) -> None:
        if isinstance(record, p.Graph):
            view.show_graph(record.graph, record.when)

    model.events.show_saved.connect(show_saved)
    model.events.focus.connect(view.set_focus)
    view.showSavedChanged.connect(lambda on: setattr(model, "show_saved", on))
    view.torchvizRequested.connect(engine.export_torchviz)
    engine.received.connect(received)
    show_saved(model.show_saved)
