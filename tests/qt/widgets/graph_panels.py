"""A graph panel as the window makes it, for the graph's widget tests."""
from gradviz.qt.graph_renderer import GraphRenderer
from gradviz.qt.widgets.graph_view import GraphView


def shown_graph_view(qtbot, size, key: bool = True) -> GraphView:
    """A graph panel of size on screen, laid out by the app's own renderer (here, on
    this thread: a test waits for its layouts); key False: without its key, as on a
    slide where the graph is not wide."""
    view = GraphView()
    view.set_key_shown(key)
    qtbot.addWidget(view)
    renderer = GraphRenderer()
    view.renderer = renderer   # kept alive with the view
    view.requestLayout.connect(renderer.render)
    renderer.layoutReady.connect(view.on_layout)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    return view
