"""Every panel: its names, both themes, the zoom, 1 to 8 heads, and a grab at 700 x 450."""
import pytest
from PySide6 import QtWidgets

from gradviz.qt.theme import DARK, LIGHT
from gradviz.qt.widgets.demo import demo_history
from gradviz.qt.widgets.grad_views import CosineHeatmap, GlobalNormPlot, GradNormBars, JunctionPlot
from gradviz.qt.widgets.loss_plot import LossPlot
from gradviz.qt.widgets.memory_plot import MemoryPlot

from panel_data import head_names, make_history, make_records, param_names

PANELS = {LossPlot: "lossPlot", GradNormBars: "gradNormBars", GlobalNormPlot: "globalNormPlot",
          JunctionPlot: "junctionPlot", CosineHeatmap: "cosineHeatmap", MemoryPlot: "memoryPlot"}
NAMED = (QtWidgets.QAbstractButton, QtWidgets.QLabel, QtWidgets.QGraphicsView)


def colours_in(image, step=7) -> int:
    return len({image.pixel(x, y) for x in range(0, image.width(), step)
                for y in range(0, image.height(), step)})


@pytest.mark.parametrize("panel_type", PANELS)
def test_object_names_on_the_panel_and_its_controls(show, panel_type):
    panel = show(panel_type)
    assert panel.objectName() == PANELS[panel_type]
    unnamed = [w for w in panel.findChildren(QtWidgets.QWidget)
               if isinstance(w, NAMED) and not w.objectName()]
    assert unnamed == []


@pytest.mark.parametrize("panel_type", PANELS)
def test_dark_theme_changes_the_background(show, panel_type):
    panel = show(panel_type)
    panel.update_from(make_history(make_records(steps=200)))
    images = {}
    for theme in (LIGHT, DARK):
        panel.apply_theme(theme)
        background = panel.plot_widget.backgroundBrush().color().name()
        assert background.lower() == theme.background.lower()
        assert panel.palette().window().color().name().lower() == theme.background.lower()
        image = panel.grab().toImage()
        assert (image.width(), image.height()) == (700, 450)
        assert image.pixelColor(2, 447).name().lower() == theme.background.lower()
        images[theme.name] = image
        title = panel.findChild(QtWidgets.QLabel, panel.objectName() + "Title")
        assert title.font().pointSizeF() == pytest.approx(theme.font_pt * 1.3)  # > ticks
    assert images["light"] != images["dark"]


@pytest.mark.parametrize("panel_type", PANELS)
def test_zoomed_theme_scales_the_tick_fonts(show, panel_type):
    panel = show(panel_type)
    zoomed = LIGHT.zoomed(2.0)
    panel.apply_theme(zoomed)
    tick_font = panel.plot.getAxis("left").style["tickFont"]
    assert tick_font.pointSizeF() == pytest.approx(zoomed.font_pt)
    assert colours_in(panel.grab().toImage()) > 3


@pytest.mark.parametrize("panel_type", PANELS)
def test_every_head_count_from_1_to_8(show, panel_type):
    panel = show(panel_type)
    for heads in (1, 8, 2):
        panel.set_model(head_names(heads), param_names(heads))
        panel.update_from(make_history(make_records(heads=heads, steps=20)))
        assert colours_in(panel.grab().toImage()) > 5


@pytest.mark.parametrize("panel_type", PANELS)
def test_grab_a_realistic_run(show, panel_type, tmp_path):
    history = demo_history(heads=3, steps=1500)
    panel = show(panel_type)
    panel.set_model(history.head_names, history.param_names)
    panel.update_from(history)
    path = tmp_path / f"{panel.objectName()}.png"
    assert panel.grab().save(str(path))
    assert colours_in(QtWidgets.QWidget.grab(panel).toImage()) > 10


@pytest.mark.parametrize("panel_types", [(LossPlot,), (MemoryPlot,),
                                         (GradNormBars, GlobalNormPlot, JunctionPlot,
                                          CosineHeatmap)])
def test_panels_open_alone_on_a_growing_run(qapp, panel_types, monkeypatch):
    """What `python -m gradviz.qt.widgets.NAME` runs, until its panels show data. Its
    app.exec() runs as a local event loop here: once the application's own exec() has
    returned, Qt considers the application closing, and the windows of later tests never
    came up."""
    import time

    from PySide6 import QtCore

    from gradviz.qt.widgets.demo import show_alone

    from waits import WAIT_MS
    seen = []
    loop = QtCore.QEventLoop()
    monkeypatch.setattr(qapp, "exec", loop.exec)
    before = set(qapp.topLevelWidgets())
    deadline = time.monotonic() + WAIT_MS / 1000

    def look() -> None:   # each shown panel with the data it has drawn, once all have some
        shown = [(type(p).__name__, len(p.data())) for w in set(qapp.topLevelWidgets()) - before
                 for t in panel_types for p in w.findChildren(t) if p.isVisible()]
        if (len(shown) == len(panel_types) and all(size > 0 for _, size in shown)) \
                or time.monotonic() > deadline:
            seen.extend(shown)
            timer.stop()
            for w in set(qapp.topLevelWidgets()) - before:   # never leave the loop running
                w.close()
            loop.quit()

    timer = QtCore.QTimer(interval=20)
    timer.timeout.connect(look)
    timer.start()
    assert show_alone(*panel_types) == 0
    assert sorted(name for name, _ in seen) == sorted(t.__name__ for t in panel_types)
    assert all(size > 0 for _, size in seen)
