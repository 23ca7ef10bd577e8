"""The code panel and the model: the loop of the model that trains (a model file's, by
its path, or the built-in one) with its heads' taps, and the settings asked for."""
from __future__ import annotations

from ...plain.window.window_model import WindowModel
from ..widgets.code_view import CodeView


def bind_code_view(view: CodeView, model: WindowModel) -> None:
    def show_model(*_: object) -> None:
        # a path the engine has not built yet (model_name empty) shows no file's loop
        path = model.model_path if model.model_name else None
        view.set_model(path, model.model_taps)

    for field in (model.events.model_path, model.events.model_name, model.events.model_taps):
        field.connect(show_model)
    model.events.requested.connect(view.set_config)
    view.set_config(model.requested)
    show_model()
