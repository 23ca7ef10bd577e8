"""What happened, in a dock too small for the whole explanation: it scrolls, and a new
error starts at its title."""
from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.qt.widgets.events_view import EventsView


def _real_error():
    # PyTorch's own error: separate backward calls with retain_graph never
    session = Session(Config(strategy="separate", retain_graph="never", batch_size=16))
    assert session.step() is None
    return session.error


def test_a_long_explanation_in_a_small_dock_is_whole_and_scrolls(qtbot):
    view = EventsView()
    qtbot.addWidget(view)
    view.resize(200, 260)          # What happened beside the graph on a 1024-px screen
    view.show()
    qtbot.waitExposed(view)
    view.show_event(_real_error())
    label = view.current
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()))
    bar = view.scroll_area.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == 0      # the title first
    assert "What to do:" in label.text()
    bar.setValue(bar.maximum())                          # scrolled: the last line in view
    shown = label.visibleRegion().boundingRect()
    assert shown.bottom() >= label.height() - 2


def test_a_new_error_is_shown_from_its_title(qtbot):
    view = EventsView()
    qtbot.addWidget(view)
    view.resize(200, 260)
    view.show()
    error = _real_error()
    view.show_event(error)
    bar = view.scroll_area.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    view.show_event(error)
    assert bar.value() == 0
    assert view.log.count() == 2


def _in_place_edit_error():
    # PyTorch's hint ends in a long run of code: "torch.autograd.set_detect_anomaly(True,"
    session = Session(Config(detach=(1,), edit_detached=1, batch_size=16))
    assert session.step() is None
    assert "set_detect_anomaly" in session.error.message
    return session.error


def test_a_long_run_of_code_wraps_inside_a_narrow_dock(qtbot):
    view = EventsView()
    qtbot.addWidget(view)
    view.resize(190, 400)           # What happened beside the graph at 1024x768
    view.show()
    qtbot.waitExposed(view)
    view.show_event(_in_place_edit_error())
    viewport = view.scroll_area.viewport()
    # every line within the dock: before, the label was as wide as that run of code
    # and cut at the dock's edge, the heading too
    qtbot.waitUntil(lambda: view.current.width() <= viewport.width())
    assert view.current.minimumSizeHint().width() <= viewport.width()
    assert "torch.autograd.set_detect_anomaly(True, check_nan=False)" in view.text()


def test_the_log_shows_only_earlier_errors_not_the_one_above_it(qtbot):
    view = EventsView()
    qtbot.addWidget(view)
    view.show()
    assert not view.log.isVisibleTo(view)           # nothing yet
    view.show_event(_real_error())
    assert not view.log.isVisibleTo(view)           # only the one shown above
    view.show_event(_in_place_edit_error())
    assert view.log.isVisibleTo(view) and view.log.count() == 2
    view.clear_current()
    assert view.log.isVisibleTo(view)               # both are earlier now


def test_where_says_the_phase_once_when_the_call_is_the_phase(qtbot):
    session = Session(Config(misplace_head=1, batch_size=16))   # fails in the forward
    assert session.step() is None and session.error.call == "forward"
    view = EventsView()
    qtbot.addWidget(view)
    view.show_event(session.error)
    assert "<b>Where:</b> step 0, forward</p>" in view.text()
    view.show_event(_real_error())          # a backward call: the phase, then the call
    assert "<b>Where:</b> step 0, backward — backward 2 of 3" in view.text()


def test_the_height_for_a_width_follows_the_text_the_scale_and_the_theme(qtbot):
    """height_for_width remembers what it measured (the lesson stage asks thousands of
    times a slide): a new explanation, scale or theme is measured anew, as a view that
    never measured before measures it."""
    from gradviz.plain.records.events import from_exception
    from gradviz.qt.theme import DARK, LIGHT
    from gradviz.qt.widgets.demo import recorded_event

    def fresh(event, theme) -> EventsView:
        view = EventsView()
        qtbot.addWidget(view)
        view.set_on_stage(True)      # the explanation alone, as on the stage
        view.apply_theme(theme)
        view.show_event(event)
        return view
    view = fresh(recorded_event(), LIGHT)
    asked = [(width, scale) for width in (240, 480) for scale in (1.0, 0.8)]
    first = [view.height_for_width(*a) for a in asked]
    assert first == [view.height_for_width(*a) for a in asked]       # asked again
    assert first[0] > first[2] and first[0] > first[1]    # narrower, larger: taller
    short = from_exception(RuntimeError("a short message"), 0, "backward", "backward", "")
    for event, theme in ((short, None), (short, LIGHT.zoomed(1.5)), (_real_error(), DARK)):
        if theme is not None:
            view.apply_theme(theme)
        view.show_event(event)
        assert [view.height_for_width(*a) for a in asked] == \
            [fresh(event, theme or LIGHT).height_for_width(*a) for a in asked]
