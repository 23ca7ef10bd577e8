"""The runs' column bound to the window's model alone (no window): the model's choices
shown, the user's moves written through the viewer's controller. Milliseconds each."""
from __future__ import annotations

from PySide6.QtCore import Qt

from gradviz.plain.controllers.viewer_controller import ViewerController
from gradviz.plain.window.window_model import WindowModel
from gradviz.qt.bindings.viewer import bind_viewer
from gradviz.qt.widgets.runs_chart import RUN_COLOURS
from gradviz.qt.widgets.runs_sidebar import RunsSidebar


def _bound(qtbot):
    sidebar, model = RunsSidebar(), WindowModel(smoothing=0.25, x_axis="wall")
    qtbot.addWidget(sidebar)
    viewer = ViewerController(model)
    bind_viewer(sidebar, model, viewer)
    return sidebar, model, viewer


def test_the_model_s_choices_are_shown(qtbot):
    sidebar, model, viewer = _bound(qtbot)
    assert sidebar.slider.value() == 25 and sidebar.weight.text() == "0.25"
    assert sidebar.axis_buttons["wall"].isChecked()
    viewer.list_runs(["a", "<i>b"])
    assert [sidebar.runs.item(i).text() for i in range(2)] == ["a", "<i>b"]
    assert sidebar.ticked() == ["a", "<i>b"]
    image = sidebar.runs.item(1).icon().pixmap(12, 12).toImage()
    assert image.pixelColor(6, 6).name().upper() == RUN_COLOURS[1]
    model.x_axis_note = "by step: why"   # (the controller's field: shown as it is)
    sidebar.show()
    assert sidebar.axis_note.isVisible() and sidebar.axis_note.text() == "by step: why"


def test_the_user_s_moves_reach_the_model(qtbot):
    sidebar, model, viewer = _bound(qtbot)
    viewer.list_runs(["a", "b"])
    sidebar.slider.setValue(99)
    assert model.smoothing == 0.99
    sidebar.axis_buttons["relative"].click()
    assert model.x_axis == "relative"
    sidebar.runs.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert model.run_slots == (None, "b")
    assert sidebar.runs.item(0).icon().pixmap(12, 12).toImage().pixelColor(6, 6).alpha() == 0
