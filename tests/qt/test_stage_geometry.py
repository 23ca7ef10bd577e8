"""The stage's rects written for a walk from outside (GRADVIZ_STAGE_GEOMETRY): each shown
panel's, the narration's and its figures', in the screen's pixels, and the slide."""
import json
import logging

from PySide6.QtWidgets import QWidget

from gradviz.plain.window.window_model import WindowModel
from gradviz.qt.stage import Stage
from gradviz.qt.stage_geometry import StageGeometry, on_screen, stage_geometry
from gradviz.qt.widgets.narration_view import NarrationView


def _shown_stage(qtbot) -> Stage:
    stage = Stage(NarrationView())
    qtbot.addWidget(stage)
    stage.resize(1020, 660)
    stage.show()
    stage.show_slide([("graph", QWidget(), "Autograd graph"), ("events", QWidget(), None)],
                     "side-by-side", 1.0, stage.narration.height_for_width)
    qtbot.waitExposed(stage)
    return stage


def test_the_rects_are_the_stage_slots_on_screen_and_the_main_one_is_placed_largest(qtbot):
    stage = _shown_stage(qtbot)
    model = WindowModel()
    model.slide = 1
    written = stage_geometry(stage, model)
    slot = stage.slots["graph"]
    corner = slot.mapToGlobal(slot.rect().topLeft())
    ratio = slot.devicePixelRatioF()
    assert written["panels"]["graph"] == [round(corner.x() * ratio), round(corner.y() * ratio),
                                          round(slot.width() * ratio),
                                          round(slot.height() * ratio)]
    graph, events = (written["panels"][n] for n in ("graph", "events"))
    assert graph[2] * graph[3] > events[2] * events[3] > 0
    assert written["slide"] == 1 and written["narration"] == on_screen(stage.narration)
    # the figures are hidden on a slide without any: no rect
    assert written["figures"] is None and written["preparing"] is False


def test_a_file_it_cannot_write_is_said_in_one_line_and_not_tried_again(qtbot, tmp_path,
                                                                       caplog):
    stage = _shown_stage(qtbot)
    writer = StageGeometry(stage, WindowModel(), str(tmp_path / "no" / "such" / "stage.json"))
    with caplog.at_level(logging.WARNING):
        writer.write()
    assert len(caplog.records) == 1
    said = caplog.records[0].getMessage()
    assert "\n" not in said and said.startswith("GRADVIZ_STAGE_GEOMETRY: cannot write")
    stage.arrange()
    assert not writer.timer.isActive()   # not tried again
    good = StageGeometry(stage, WindowModel(), str(tmp_path / "stage.json"))
    stage.arrange()   # arranged: written once the burst is over
    qtbot.waitUntil(lambda: (tmp_path / "stage.json").exists())
    assert set(json.loads((tmp_path / "stage.json").read_text())["panels"]) == \
        {"graph", "events"}
    del good


def test_an_explanation_is_written_with_the_rect_it_is_read_in_and_whether_it_is_whole(qtbot):
    """What a walk measures an error's text in: the part of What happened in view, and
    whether all of it is there (a scrolled Why and What to do is not)."""
    from gradviz.qt.widgets.demo import recorded_event
    from gradviz.qt.widgets.events_view import EventsView

    stage = Stage(NarrationView())
    qtbot.addWidget(stage)
    events = EventsView()
    events.set_on_stage(True)
    events.show_event(recorded_event())
    stage.resize(1020, 660)
    stage.show()
    stage.show_slide([("graph", QWidget(), "Autograd graph"),
                      ("events", events, "What happened")],
                     "side-by-side", 1.0, stage.narration.height_for_width)
    qtbot.waitExposed(stage)
    qtbot.waitUntil(lambda: events.scroll_area.viewport().height() > 0)
    written = stage_geometry(stage, WindowModel())["texts"]["events"]
    assert written == {"rect": on_screen(events.scroll_area.viewport()), "whole": True}
    stage.resize(1020, 300)   # too low for it: scrolled
    qtbot.waitUntil(lambda: not stage_geometry(stage, WindowModel())["texts"]["events"]
                    ["whole"])
