"""Lessons in the window, driven as a lecturer does: the Lessons menu, PageDown / PageUp,
Home, Esc, F5, the stage's layout and the window's docks around a lesson. What each slide
asks of the engine and the model is tests/plain/test_lesson_controller.py's (no window)."""
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction

from gradviz.app import main
from gradviz.plain.lessons.lessons import find_lesson, load_lesson

from shared_window import shared_window_fixture, window_fixture  # noqa: F401
from waits import WAIT_MS


def engine(window):
    return window.engine.session.config


def fast(w) -> None:
    """The slide on screen played as fast as it goes, step by step, not phase by phase
    with a sweep of the graph after each backward call (the engine is sent the pace as
    the run bar's slider sends it): where the test is about what the slide shows, not
    when."""
    w.model.pace_ms, w.model.play_mode = 0, "steps"


def test_the_lessons_menu_opens_a_lesson_and_names_it(qtbot, window):
    w = window
    action = w.findChild(QAction, "lesson_02-backward-twice")
    assert action is not None
    action.trigger()
    lesson = find_lesson("backward-twice")
    assert w.windowTitle() == (f"gradviz — {lesson.title} — slide 1/2: "
                               f"{lesson.slides[0].title}")
    assert w.lessons.stage.isVisible()
    assert w.controls.config() == lesson.slides[0].config       # the controls show it
    # one model says what is on screen; Compare's slide menu follows it, not the
    # lesson's widgets
    m = w.model
    assert (m.lesson, m.slide, m.panels) == ("02-backward-twice", 0, ("events", "graph"))
    assert m.pace_ms == w.run_bar.delay_ms() and w.run_bar.phase_play.isChecked()
    assert w.compare.slides_menu.isEnabled()            # told by the model, no menu opened
    qtbot.keyClick(w, Qt.Key_Escape)
    assert (m.lesson, m.slide, m.panels) == (None, None, ())
    assert not w.compare.slides_menu.isEnabled()


def test_f5_presents_and_esc_leaves_it_then_the_lesson_giving_the_settings_back(qtbot,
                                                                                window):
    w = window
    w.lessons.open_named("leaves-and-grad")
    qtbot.keyClick(w, Qt.Key_PageDown)                # retain_grad on
    qtbot.waitUntil(lambda: engine(w).retain_grad, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_F5)
    assert w.lessons.presenting and w.isFullScreen()
    assert not w.controls_dock.isVisible() and not w.menuBar().isVisible()
    assert w.lessons.stage.isVisible()
    qtbot.keyClick(w, Qt.Key_Escape)                  # leaves the presentation only
    assert not w.lessons.presenting and not w.isFullScreen()
    assert w.menuBar().isVisible() and w.lessons.stage.isVisible()
    assert w.lessons.player.lesson is not None
    qtbot.keyClick(w, Qt.Key_Escape)                  # now the lesson
    assert w.lessons.player.lesson is None
    assert w.windowTitle().startswith("gradviz — autograd") and not w.lessons.stage.isVisible()
    # the settings, as before it (z.retain_grad() was the slide's): the engine's answers
    # to the slides' configs and to the one giving them back arrive in order
    assert w.controls_dock.isVisible()
    qtbot.waitUntil(lambda: not engine(w).retain_grad and not w.controls.config().retain_grad,
                    timeout=WAIT_MS)
    assert w.memory_dock.isVisible() and w.graph_dock.isVisible()


def test_an_unknown_lesson_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path):
    # the settings file its own (another version's, in the user's folder, is said first)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with pytest.raises(SystemExit) as raised:
        main(["--lesson", "no-such-lesson", "--screenshot", "x.png"])
    assert raised.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == "gradviz: no lesson named 'no-such-lesson' (gradviz lessons lists them)"


def test_every_head_is_in_the_legends_before_the_engine_answers(qtbot, settings):
    from gradviz.plain.config.config import Config
    from gradviz.qt.main_window import MainWindow
    from gradviz.qt.settings import Remembered
    w = MainWindow(Remembered(Config(heads=4)), settings, engine_in_process=True)
    qtbot.addWidget(w)
    try:
        assert w.model.generation < 1                       # no answer from the engine yet
        assert [label.text for _, label in w.junction.legend.items] == [
            "head0", "head1", "head2", "head3"]
    finally:
        w.close()


def on_stage(w) -> list[str]:
    """The panels the stage shows, by name, in the slide's order."""
    return [name for name in w.lessons.stage.shown
            if w.lessons.stage.slots[name].isVisible()]


def rects(w) -> dict:
    """Each shown part of the stage (the narration too) as (x, y, width, height)."""
    stage = w.lessons.stage
    parts = {name: stage.slots[name] for name in on_stage(w)}
    parts["narration"] = stage.narration
    return {name: widget.geometry().getRect() for name, widget in parts.items()}


def overlap(a, b) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


def test_a_slide_shows_its_panels_side_by_side_and_nothing_else(qtbot, window):
    """The leak on the memory chart and the graph at once, both whole: not one a tab
    behind the other, and no loss chart the slide does not name; and again so at a new
    window size."""
    w = window
    w.drawn_off_screen = True   # laid out as on a 1280x720 screen, not the offscreen one
    w.resize(1280, 720)
    w.findChild(QAction, "lesson_03-leaky-graphs").trigger()
    qtbot.waitUntil(lambda: w.lessons.stage.isVisible(), timeout=WAIT_MS)
    assert on_stage(w) == ["memory", "graph"]
    assert w.memory.isVisible() and w.graph_view.isVisible()
    assert not w.loss_plot.isVisible() and not w.junction.isVisible()
    assert not any(d.isVisible() for d in w.panel_docks())    # the docks put away
    parts = rects(w)
    memory, graph = parts["memory"], parts["graph"]
    assert abs(memory[1] - graph[1]) < 5 and graph[0] >= memory[0] + memory[2]
    assert memory[2] > graph[2] > 300                 # the first panel named is the main one
    names = list(parts)
    assert not any(overlap(parts[a], parts[b]) for a in names for b in names if a < b)
    stage = w.lessons.stage.rect().getRect()
    assert all(x >= 0 and y >= 0 and x + cw <= stage[2] and y + ch <= stage[3]
               for x, y, cw, ch in parts.values())
    w.resize(1024, 768)                               # laid out again for a new size
    qtbot.waitUntil(lambda: rects(w) != parts)
    stage = w.lessons.stage.rect().getRect()
    assert all(x + cw <= stage[2] and y + ch <= stage[3] for x, y, cw, ch in rects(w).values())


def test_the_start_page_lists_every_lesson_and_opens_one(qtbot, window):
    from gradviz.plain.lessons.lessons import bundled_names
    w = window
    page = w.lessons.start_page
    assert page.names() == bundled_names() and len(page.names()) >= 10
    assert w.lessons.start_dock.isVisible() or w.lessons.start_dock in \
        w.tabifiedDockWidgets(w.controls_dock)               # a tab beside the settings
    w.findChild(QAction, "lessonStartPage").trigger()        # Lessons → All lessons
    qtbot.waitUntil(lambda: page.isVisible(), timeout=WAIT_MS)
    row = page.names().index("09-accumulation")
    page.list.setCurrentRow(row)
    qtbot.keyClick(page.list, Qt.Key_Return)
    lesson = find_lesson("accumulation")
    qtbot.waitUntil(lambda: w.windowTitle().startswith(f"gradviz — {lesson.title}"),
                    timeout=WAIT_MS)
    assert w.lessons.stage.isVisible()


def test_the_chart_a_slide_is_about_is_its_main_panel_never_a_tab(qtbot, window):
    """Where the screen put the charts in tabs, the tab in front was "per parameter", on
    a slide about the cosine matrix (seen at 1280x720): on the stage each chart the slide
    names is shown whole, the first it names the largest."""
    w = window
    w.drawn_off_screen = True
    w.resize(1280, 720)
    w.lessons.open_named("losses-disagree")            # panels: cosine, then junction
    assert on_stage(w) == ["cosine", "junction"]
    parts = rects(w)
    assert parts["cosine"][2] * parts["cosine"][3] > parts["junction"][2] * parts["junction"][3]
    w.lessons.open_named("zero-grad")                   # panels: global_norm, then loss
    qtbot.keyClick(w, Qt.Key_PageDown)                  # "the gradient norm climbs"
    assert on_stage(w) == ["global_norm", "loss"]
    assert w.global_norm.isVisible() and w.loss_plot.isVisible()
    qtbot.keyClick(w, Qt.Key_Escape)                    # out of the lesson: no preference
    qtbot.waitUntil(lambda: not w.lessons.stage.isVisible(), timeout=WAIT_MS)
    stack = w.plot_stack
    stack.set_compact(False)
    stack.set_compact(True)
    assert stack.tabs.currentWidget() is w.loss_plot
    assert {stack.tabs.widget(i) for i in range(stack.tabs.count())} == \
        {w.loss_plot, w.global_norm}                    # both home again


def _docks(w):
    """Each dock's area, whether it is open, and the docks tabbed with it."""
    from PySide6.QtWidgets import QDockWidget
    return {d.objectName(): (w.dockWidgetArea(d), d.isVisibleTo(w),
                             sorted(t.objectName() for t in w.tabifiedDockWidgets(d)
                                    if t.isVisibleTo(w)))
            for d in w.findChildren(QDockWidget) if d.isVisibleTo(w)}


def test_leaving_a_lesson_puts_every_dock_back_as_the_user_had_it(qtbot, window):
    w = window
    w.memory_dock.close()                      # the user closed Memory before the lesson
    qtbot.waitUntil(lambda: not w.memory_dock.isVisible())
    before = _docks(w)
    w.lessons.open_named("detach-vs-detach_")  # What happened and the graph side by side
    qtbot.keyClick(w, Qt.Key_PageDown)
    assert on_stage(w) == ["events", "graph"]
    w.lessons.open_named("leaky-graphs")       # the memory chart shown by a slide
    assert on_stage(w) == ["memory", "graph"]
    qtbot.keyClick(w, Qt.Key_Escape)
    qtbot.waitUntil(lambda: not w.lessons.stage.isVisible())
    assert _docks(w) == before
    # every panel back in its dock, none left on the stage
    assert w.graph_dock.widget() is w.graph_view and w.events_dock.widget() is w.events_view
    assert w.memory_dock.widget() is w.memory and w.lessons.stage.panels == {}
    assert not w.memory_dock.isVisible()       # still closed, as the user left it
    w.memory_dock.show()                       # View > Memory: back in its tab group
    qtbot.waitUntil(lambda: w.memory_dock.isVisible())
    assert w.memory_dock in w.tabifiedDockWidgets(w.graph_dock)


def test_quitting_mid_lesson_remembers_the_layout_settings_and_pace_before_it(qtbot, window):
    """The next launch is the user's free mode, not the slide's (detach_ on head 1, a
    step a second: its first Space raised the slide's error with no lesson around)."""
    from gradviz.plain.config.config import Config
    mine = Config(heads=2, batch_size=16, lr=0.05)
    w = window
    w.model.requested = mine                     # the user's settings, in free mode
    qtbot.waitUntil(lambda: w.controls.config() == mine)
    w.run_bar.speed.setValue(0)
    before = w.saveState()
    w.lessons.open_named("detach-vs-detach_")
    qtbot.keyClick(w, Qt.Key_PageDown)
    assert w.saveState() != before               # the slide put the docks away
    assert w.remembered().window_state == before  # the layout from before the lesson
    qtbot.keyClick(w, Qt.Key_PageDown)
    qtbot.waitUntil(lambda: w.controls.config().detach_mode == "detach_")
    assert w.run_bar.speed.value() != 0          # the slide's pace
    remembered = w.remembered()
    assert remembered.config == mine and remembered.pace_ms == 0
    qtbot.keyClick(w, Qt.Key_Escape)             # left: what is on screen is remembered
    assert w.remembered().config == w.controls.config()


def test_the_clickers_keys_move_between_slides_each_laid_out_as_its_own(qtbot, window):
    # the first slide's graph in the module view, framed on its focus;
    # slide 1 and slide 3 of detach-vs-detach_ show the same panels (the push on the
    # trunk and the graph); slide 2 (the graph and What happened) another pair. With
    # docks, slide 3 kept slide 2's shares: at 1280x720 its chart was 60 px high
    w = window
    w.drawn_off_screen = True   # laid out as on a 1280x720 screen, not the offscreen one
    w.resize(1280, 720)
    w.graph_view.set_module_view(False)          # the user's op view, in free mode
    w.lessons.open_named("detach-vs-detach_")    # focus = "cut"
    assert w.graph_view.module_view and w.graph_view._focus == "cut"
    canvas = w.graph_view.canvas

    def framed() -> bool:   # the slide's graph drawn: the cut's ends bright, the rest dim
        cut = canvas.focus_ids & set(canvas.nodes)
        return bool(cut) and all((canvas.nodes[i].opacity() == 1) == (i in cut)
                                 for i in canvas.nodes)
    qtbot.waitUntil(framed)
    first = rects(w)
    assert list(first) == ["junction", "graph", "narration"]
    for key, shown in ((Qt.Key_PageDown, 2), (Qt.Key_PageUp, 1), (Qt.Key_PageDown, 2),
                       (Qt.Key_Home, 1), (Qt.Key_PageDown, 2)):
        qtbot.keyClick(w, key)
        assert f"slide {shown}/3" in w.windowTitle() and w.model.slide == shown - 1
    assert on_stage(w) == ["events", "graph"]    # the slide's panels, and only those
    assert list(rects(w)) == ["events", "graph", "narration"]
    qtbot.keyClick(w, Qt.Key_PageDown)
    third = rects(w)
    assert {k: v for k, v in third.items() if k != "narration"} == \
        {k: v for k, v in first.items() if k != "narration"} or \
        third["narration"] != first["narration"]     # the same, unless its text is longer
    assert third["junction"][3] > 250                 # the chart whole, not a strip


def test_a_slide_naming_an_unknown_focus_is_a_bad_lesson(tmp_path):
    from gradviz.plain.lessons.lessons import LessonError
    path = tmp_path / "f.toml"
    path.write_text('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\n'
                    'focus = "the cut"\n')
    with pytest.raises(LessonError, match="slide 1: unknown graph focus 'the cut'"):
        load_lesson(path)


def test_the_graphs_key_is_shown_where_the_graph_is_the_slides_main_panel(qtbot, window):
    # (its width rule at each text size: tests/plain/test_lesson_controller.py)
    w = window
    w.drawn_off_screen = True   # laid out as on a 1920x1080 screen, not the offscreen one
    w.resize(1920, 1080)
    w.lessons.open_named("leaky-graphs")          # memory, then graph: the key away
    assert w.graph_view.isVisible() and not w.graph_view.side_scroll.isVisible()
    w.lessons.open_named("leaves-and-grad")       # graph, then the push chart
    assert w.graph_view.side_scroll.isVisible()
    w.lessons.open_named("leaky-graphs")
    qtbot.keyClick(w, Qt.Key_Escape)              # free mode: the key, as before
    qtbot.waitUntil(lambda: w.graph_view.isVisible(), timeout=WAIT_MS)
    assert w.graph_view.side_scroll.isVisible()


def test_on_the_stage_errors_are_whole_the_code_wraps_and_earlier_errors_stay_out(
        qtbot, window):
    """At 1024x768: an error's explanation beside the graph was cut; lesson 01's last
    slide's marked loop beside the chart was cut at the panel's right edge; an error
    slide after another showed a log of the slide before's error in a quarter of its
    panel. Free mode gets the last two back."""
    w = window
    w.drawn_off_screen = True
    w.resize(1024, 768)
    # lesson 02's first slide: PyTorch's message, Where, Why and What to do all in
    # view, no scrolling (at 38% of the width What to do was below the panel)
    w.lessons.open_named("backward-twice")
    fast(w)
    qtbot.waitUntil(lambda: w.events_view.event is not None, timeout=WAIT_MS)
    bar = w.events_view.scroll_area.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() == 0, timeout=WAIT_MS)
    assert "What to do:" in w.events_view.text()
    stage = w.lessons.stage
    graph, events = (stage.placement.panels[n] for n in ("graph", "events"))
    assert stage.placement.fits >= 1 and graph.w >= 340 and events.w > 0.38 * 1024
    assert not w.graph_view.side_scroll.isVisible()     # the graph keeps its room
    lesson = find_lesson("add-or-separate")
    w.lessons.open(lesson, 2)
    bars = w.code_view.text.horizontalScrollBar()
    qtbot.waitUntil(lambda: w.code_view.text.isVisible(), timeout=WAIT_MS)
    assert bars.maximum() == 0 and "total.backward(retain_graph=" in w.code_view.code()
    # the change in view after the reflow: the loop's first marked line (total = 0)
    text = w.code_view.text
    document = text.document()
    first = document.findBlockByNumber(w.code_view.changed[0])
    assert first.text().strip() == "total = 0"
    top = document.documentLayout().blockBoundingRect(first).top()

    def in_view() -> bool:
        shown = text.verticalScrollBar().value()
        return shown <= top < shown + text.viewport().height()
    qtbot.waitUntil(in_view, timeout=WAIT_MS)
    w.lessons.open(find_lesson("rnn-truncation"), 1)   # its first error slide
    fast(w)
    qtbot.waitUntil(lambda: w.events_view.event is not None, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_PageDown)                  # a second error slide
    fast(w)
    qtbot.waitUntil(lambda: w.events_view.log.count() >= 2, timeout=WAIT_MS)
    assert not w.events_view.log.isVisibleTo(w.events_view)
    qtbot.keyClick(w, Qt.Key_Escape)
    qtbot.waitUntil(lambda: not w.lessons.staging, timeout=WAIT_MS)
    assert w.events_view.log.isVisibleTo(w.events_view)
    assert w.code_view.text.lineWrapMode() == w.code_view.text.LineWrapMode.NoWrap


def test_a_slide_that_keeps_a_ghost_draws_the_slide_befores_run_on_its_axes(qtbot, window):
    """Lesson 09: the full batch's saved memory, then four micro-batches'. The memory
    axis followed each slide alone, so 32 KiB and 8 KiB were the same full-height box."""
    import numpy as np
    w = window
    w.lessons.open_named("accumulation")
    fast(w)
    stop = w.lessons.slide.stop
    qtbot.waitUntil(lambda: w.model.generation >= 1 and not w.model.running
                    and len(w.history) == stop, timeout=WAIT_MS)
    first = w.history
    w.refresh()
    full_batch = w.memory.data()                       # slide 1's lines as drawn
    assert w.memory.ghost is None
    qtbot.keyClick(w, Qt.Key_PageDown)                 # keep = "ghost"
    assert w.lessons.slide.keep == "ghost" and w.memory.ghost is first
    fast(w)
    qtbot.waitUntil(lambda: w.history is not first and len(w.history) > 2 and not w.model.running,
                    timeout=WAIT_MS)
    w.refresh()
    ghost = w.memory.ghost_data()
    for name, (x, y) in ghost.items():
        if name in full_batch:
            assert np.array_equal(x, full_batch[name][0])
            assert np.allclose(y, full_batch[name][1], equal_nan=True), name
    top = w.memory.plot.getViewBox().viewRange()[1][1]
    assert top >= np.nanmax(full_batch["peak after forward"][1])   # one axis for both
    assert np.nanmax(w.memory.data()["peak after forward"][1]) < \
        np.nanmax(full_batch["peak after forward"][1])             # micro-batches hold less
    assert any("slide before" in label.text for _, label in w.memory.legend.items)
    qtbot.keyClick(w, Qt.Key_Escape)                    # out of the lesson: no ghost
    assert w.memory.ghost is None and w.junction.ghost is None


def test_lesson_01s_last_slide_shows_3x_2x_1x_against_the_slide_befores_ghost(qtbot, window):
    """total += L_k; total.backward() in the loop: at step 0 (the same model as the
    slide before) head 0's push on the trunk is 3x one backward per loss, head 1's 2x,
    head 2's 1x, and both are on screen at once."""
    import numpy as np
    lesson = find_lesson("01-add-or-separate")
    w = window
    w.lessons.open(lesson, 1)                          # one backward per loss
    fast(w)
    qtbot.waitUntil(lambda: w.model.generation >= 1 and len(w.history) >= 3, timeout=WAIT_MS)
    before = w.history
    qtbot.keyClick(w, Qt.Key_PageDown)                 # in the loop; keep = "ghost"
    qtbot.waitUntil(lambda: w.history is not before and len(w.history) >= 1, timeout=WAIT_MS)
    w.refresh()
    assert w.junction.ghost is before
    ghost = w.junction.ghost_data()
    now = w.junction.data()
    ratios = [now[f"head{k}"][1][0] / ghost[f"head{k}"][1][0] for k in range(3)]
    assert np.allclose(ratios, [3.0, 2.0, 1.0], rtol=1e-4), ratios


def test_lesson_12s_figure_and_its_data_slides_line_from_the_clean_run(qtbot, window):
    """Lesson 12's figure on its second slide; its .data slide: head 2's push in the
    clean run (slide 1, step 0) as a labelled line on the junction chart; the next
    slide, and leaving, take it away."""
    from PySide6.QtGui import QFontInfo
    lesson = find_lesson("12-one-pass-or-k")
    w = window
    w.resize(1024, 768)
    w.lessons.open(lesson, 0)                          # the sum: the clean run
    fast(w)
    qtbot.waitUntil(lambda: w.model.generation >= 1 and len(w.history) >= 2, timeout=WAIT_MS)
    clean = w.history
    # 12/2 draws "trunk walked 3×" above its narration, larger than the narration's
    # text, once its run has measured it (what a figure says: tests/plain's)
    w.lessons.player.next()                            # 12/2: one backward per loss
    view = w.lessons.narration
    figures = view.figures
    qtbot.waitUntil(lambda: figures.text() == "trunk walked 3×", timeout=WAIT_MS)
    assert figures.isVisible()
    assert QFontInfo(figures.font()).pixelSize() > QFontInfo(view.text.font()).pixelSize()
    # on the stage, above the narration's text and inside the narration's part
    assert figures.geometry().bottom() <= view.text.geometry().top()
    w.lessons.open(lesson, 4)                          # z.data.mul_(0.5)
    ((ref, line),) = w.junction.references()
    assert ref.value == clean.column("junction")[0, 2] and line.value() == ref.value
    assert line.label.toPlainText() == "head2, clean run, step 0"
    assert w.global_norm.references() == []
    qtbot.keyClick(w, Qt.Key_PageDown)                 # no_grad: junction, no line
    assert w.junction.references() == []
    w.lessons.open(lesson, 4)
    assert len(w.junction.references()) == 1
    qtbot.keyClick(w, Qt.Key_Escape)
    assert w.junction.references() == []
    assert not figures.isVisible() or figures.text() == ""


def test_larger_text_stops_where_the_slide_no_longer_fits(qtbot, window):
    """Ctrl+= for the back row grows the text as far as the slide's panels keep their
    least sizes and its narration stays whole on this 1024x768 window: pressed past
    that, it is taken back (where each bundled slide stops, and why, is
    tests/plain/test_text_size_stop.py's; this is the window using it). Twice is past
    it here: each press beyond costs the window seconds of layout at a larger size."""
    from gradviz.plain.controllers.lesson_controller import cramped
    from gradviz.plain.stage.stage_layout import least_size
    from gradviz.qt.theme import TEXT_STEP
    w = window
    w.resize(1024, 768)
    w.lessons.open_named("edit-detached")               # a long narration, two panels
    presses = 2
    for _ in range(presses):
        qtbot.keyClick(w, Qt.Key_Equal, Qt.ControlModifier)

    def settled() -> bool:   # each larger size that does not fit is taken back a step
        p = w.lessons.stage.placement
        return 1.0 < w.theme.zoom < TEXT_STEP ** presses and p.fits >= 1 \
            and p.narration_whole
    qtbot.waitUntil(settled, timeout=WAIT_MS)
    zoom = w.theme.zoom
    assert w.model.zoom == pytest.approx(zoom) and not cramped(w.lessons.stage.placement)
    for name, (_, _, width, height) in rects(w).items():
        if name != "narration":
            least_w, least_h = least_size(name, zoom)
            assert width >= least_w and height >= least_h, (name, width, height)
    w.zoom_by(None)   # the normal size on the stage: the docks come back laid out once


