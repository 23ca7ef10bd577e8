"""The lesson stage with every bundled slide's real narration, at a projector's room and
text sizes: the narration whole (its text never scrolled), every panel inside the stage
and none over another."""
import json
from pathlib import Path

import pytest
from PySide6.QtGui import QFontMetrics, QTextDocument
from PySide6.QtWidgets import QWidget

from gradviz.plain.controllers.lesson_controller import cramped
from gradviz.plain.lessons.lessons import bundled_names, find_lesson
from gradviz.plain.stage.stage_layout import least_size
from gradviz.qt.stage import Stage
from gradviz.qt.theme import LIGHT, TEXT_STEP
from gradviz.qt.widgets.narration_view import NarrationView

# the stage's room in a maximised window on a 1024x768 and a 1280x720 screen
ROOMS = [(1020, 660), (1276, 612)]
SLIDES = [(name, i) for name in bundled_names() for i in range(len(find_lesson(name).slides))]


@pytest.fixture(scope="module")
def stage(qapp):
    narration = NarrationView()
    stage = Stage(narration)
    stage.panel_widgets = {}
    yield stage
    stage.deleteLater()


@pytest.mark.parametrize("room", ROOMS)
@pytest.mark.parametrize("presses", [0, 2])    # normal text, and Ctrl+= twice
def test_every_slide_is_whole_on_the_stage_its_titles_apart(qtbot, stage, room, presses):
    """Every part inside the stage and none over another, the narration never scrolled;
    and each panel's title at least 10 px from the part beside it (lesson 06 at
    1024x768 after Ctrl+= twice: "Autograd graph" began 6 px from the narration column
    beside it, and OCR of the hall's view read it as "/utograd")."""
    theme = LIGHT.zoomed(TEXT_STEP ** presses)
    stage.narration.apply_theme(theme)
    stage.resize(*room)
    stage.show()
    qtbot.waitExposed(stage)
    cut, close, left_out = [], [], []
    for name, index in SLIDES:
        lesson = find_lesson(name)
        slide = lesson.slides[index]
        stage.narration.show_slide(lesson.title, slide, index, len(lesson.slides))
        panels = [(p, stage.panel_widgets.setdefault(p, QWidget()), p.title())
                  for p in slide.panels]
        stage.show_slide(panels, slide.layout, theme.zoom, stage.narration.height_for_width)
        qtbot.waitUntil(lambda: stage.narration.text.viewport().width() > 0)
        text = stage.narration.text
        if text.document().size().height() > text.viewport().height() + 1:
            cut.append((name, index + 1))
        # a secondary panel too low to be read is left out, its slot hidden; never at
        # the normal text size
        shown = [p for p in slide.panels if stage.slots[p].isVisible()]
        assert shown == list(stage.placement.panels)
        assert presses or shown == list(slide.panels), (name, index)
        left_out += [(name, index + 1, p) for p in stage.placement.left_out]
        parts = [stage.slots[p].geometry() for p in shown] + [stage.narration.geometry()]
        for i, a in enumerate(parts):
            assert stage.rect().contains(a), (name, index, a)
            assert not any(a.intersects(b) for b in parts[i + 1:]), (name, index)
        close += _titles_close(stage, shown, parts, (name, index + 1))
    assert cut == [] and close == []
    # the bundled slides' panels that give way so after Ctrl+= twice: graphs only, 03/2's
    # and two beside an error's explanation (the slide's named panel, whole at the larger
    # text), 02/1's and 08/3's
    assert len(left_out) <= 3 and {p for _n, _i, p in left_out} <= {"graph"}, left_out


def _titles_close(stage, names, parts, where) -> list:
    """Each panel whose title's text begins less than 10 px right of a part beside it."""
    close = []
    for p in names:
        title = stage.slots[p].title
        text_left = title.mapTo(stage, title.contentsRect().topLeft()).x()
        top = title.mapTo(stage, title.rect().topLeft()).y()
        for other in parts:
            beside = other.right() < text_left and other.top() <= top <= other.bottom()
            if beside and text_left - other.right() - 1 < 10:
                close.append((*where, p, text_left - other.right() - 1))
    return close


# the error slides, beside the graph or (lesson 07) the training loop, each with the
# error its run raises (recorded; tests/core/test_error_slide_events.py keeps it so)
ERROR_EVENTS = json.loads((Path(__file__).parent / "error_slide_events.json")
                          .read_text(encoding="utf-8"))
ERROR_SLIDES = [(r["lesson"], r["slide"] - 1) for r in ERROR_EVENTS]
# the cap heights (px) an explanation's text has on the stage at 1024x768 at the normal
# text size: the narration's 14 for its body and PyTorch's message, 18 for its headline
BODY_CAP_PX, HEADLINE_CAP_PX = 14, 18


def error_event(name: str, index: int):
    from gradviz.plain.records.events import Event
    return Event(**next(r["event"] for r in ERROR_EVENTS
                        if (r["lesson"], r["slide"] - 1) == (name, index)))


def cap_heights(events) -> tuple[int, int]:
    """(the headline's, the body's) cap height in px, as the panel lays its text out
    now: the first paragraph's font, and the smallest of the rest's (PyTorch's message,
    Why, What to do)."""
    document = QTextDocument()
    document.setDefaultFont(events.current.font())
    document.setHtml(events.current.text())
    fonts = []   # (paragraph, font) of every run of text
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fonts.append((block.blockNumber(),
                          it.fragment().charFormat().font().resolve(document.defaultFont())))
            it += 1
        block = block.next()
    caps = [(n, QFontMetrics(font).capHeight()) for n, font in fonts]
    return (min(c for n, c in caps if n == 0), min(c for n, c in caps if n > 0))


@pytest.mark.parametrize("room", ROOMS)
@pytest.mark.parametrize("presses", [0, 2])    # normal text, and Ctrl+= twice
def test_an_errors_explanation_is_whole_on_every_error_slide(qtbot, room, presses):
    """Every error slide with the error its run raises: What happened is whole on the
    stage, Why and What to do in view (After Ctrl+= twice at 1024x768 it scrolled on
    lessons 02, 04, 05 and 08), at the narration's size: its headline's capitals 18 px
    high, its body's and PyTorch's message's 14 (they were 12, and 10 after Ctrl+=),
    never smaller after Ctrl+=; where the larger text cannot be whole, the stage says
    the text size is too large for the slide (the lesson takes the Ctrl+= back). Beside
    the loop (lesson 07) the loop's font steps down instead, never below the normal
    size either."""
    from gradviz.plain.config.config import Config
    from gradviz.qt.widgets.code_view import CodeView
    from gradviz.qt.widgets.events_view import EventsView

    theme = LIGHT.zoomed(TEXT_STEP ** presses)
    stage = Stage(NarrationView())
    qtbot.addWidget(stage)
    events = EventsView()
    events.set_on_stage(True)
    code = CodeView()
    code.set_config(Config(misplace_head=1))
    for part in (stage.narration, events, code):
        part.apply_theme(theme)
    stage.resize(*room)
    stage.show()
    qtbot.waitExposed(stage)
    cut, small = [], []
    for name, index in ERROR_SLIDES:
        lesson = find_lesson(name)
        slide = lesson.slides[index]
        events.show_event(error_event(name, index))
        stage.narration.show_slide(lesson.title, slide, index, len(lesson.slides))
        widgets = {"events": events, "code": code}
        panels = [(p, widgets.get(p, QWidget()), "What happened" if p == "events" else None)
                  for p in slide.panels]
        stage.show_slide(panels, slide.layout, theme.zoom, stage.narration.height_for_width)
        qtbot.waitUntil(lambda: events.scroll_area.viewport().height() > 0)
        shown = events.scroll_area.viewport().height()
        needed = events.current.heightForWidth(events.scroll_area.viewport().width())
        # cut only where the stage says the text size is too large for the slide: the
        # lesson then takes the Ctrl+= back rather than shrink the panel the slide names
        if needed > shown and not cramped(stage.placement):
            cut.append((name, index + 1, needed, shown))
        assert presses or not cramped(stage.placement), (name, index)   # normal text: whole
        assert "What to do:" in events.text()
        headline, body = cap_heights(events)
        if headline < HEADLINE_CAP_PX or body < BODY_CAP_PX:
            small.append((name, index + 1, headline, body))
        # the panel the slide names keeps its least size beside it
        main = stage.placement.panels[slide.panels[0]]
        least_w, least_h = least_size(slide.panels[0], theme.zoom)
        assert (main.w >= least_w and main.h >= least_h) or cramped(stage.placement)
        if "code" in slide.panels:   # the loop's too, and larger with the text where it fits
            assert code.text_scale * theme.font_pt >= LIGHT.font_pt - 0.01
            assert code.isVisible() and code.text.viewport().height() > 0
        text = stage.narration.text
        assert text.document().size().height() <= text.viewport().height() + 1 \
            or cramped(stage.placement)
    assert cut == [] and small == []


def test_an_errors_explanation_grows_with_ctrl_plus_where_the_stage_has_room(qtbot):
    """On a projector of 1920x1080 Ctrl+= makes the explanation larger on every error
    slide (at 1024x768 it did so only on lesson 07's, where it is the named panel)."""
    from gradviz.qt.widgets.events_view import EventsView

    stage = Stage(NarrationView())
    qtbot.addWidget(stage)
    events = EventsView()
    events.set_on_stage(True)
    stage.resize(1916, 960)
    stage.show()
    qtbot.waitExposed(stage)
    sizes: dict[tuple[str, int], list[int]] = {}
    for presses in (0, 1, 2):
        theme = LIGHT.zoomed(TEXT_STEP ** presses)
        for part in (stage.narration, events):
            part.apply_theme(theme)
        for name, index in ERROR_SLIDES:
            lesson = find_lesson(name)
            slide = lesson.slides[index]
            events.show_event(error_event(name, index))
            stage.narration.show_slide(lesson.title, slide, index, len(lesson.slides))
            stage.show_slide([(p, events if p == "events" else QWidget(), None)
                              for p in slide.panels], slide.layout, theme.zoom,
                             stage.narration.height_for_width)
            assert not cramped(stage.placement), (name, index, presses)
            sizes.setdefault((name, index + 1), []).append(cap_heights(events)[1])
    assert all(a < b < c for a, b, c in sizes.values()), sizes


def test_a_chart_on_the_stage_shows_no_controls_and_gets_them_back_at_home(qtbot):
    """log scale and smooth are no slide's point: beside them a secondary chart's title
    took three lines of its height after Ctrl+= twice (lesson 09 slide 2)."""
    from gradviz.qt.widgets.loss_plot import LossPlot

    stage = Stage(NarrationView())
    qtbot.addWidget(stage)
    loss = LossPlot()
    stage.resize(1020, 660)
    stage.show()
    stage.show_slide([("memory", QWidget(), None), ("loss", loss, None)], "side-by-side",
                     1.0, stage.narration.height_for_width)
    qtbot.waitExposed(stage)
    assert not loss.log_scale.isVisible() and not loss.smoothing.isVisible()
    assert loss.isVisible()
    stage.release()
    loss.show()
    qtbot.waitExposed(loss)
    assert loss.log_scale.isVisible() and loss.smoothing.isVisible()


def test_lesson_13s_crowded_slide_keeps_its_panels_readable_after_ctrl_plus_twice(qtbot):
    """Lesson 13 slide 2 at 1024x768 after Ctrl+= twice: the narration takes half the
    stage, and the cosine matrix, the loss chart and the loop share the rest. The
    matrix's numbers were 13-14 px, the loss chart's step axis was cut and the loop
    showed one line: now the numbers are at least 14 px (the matrix's title on one line),
    the step axis and its title are inside the chart, and the loop shows three lines,
    the second and third panels' text no smaller than the normal size. The matrix's
    numbers, and the line under it, which the narration points at, are read as the
    narration is: their capitals at least 14 px high (its font steps down, never below
    the narration's normal size)."""
    import numpy as np

    from gradviz.qt.widgets.code_view import CodeView
    from gradviz.qt.widgets.cosine_heatmap import CosineHeatmap
    from gradviz.qt.widgets.loss_plot import LossPlot

    theme = LIGHT.zoomed(TEXT_STEP ** 2)
    stage = Stage(NarrationView())
    qtbot.addWidget(stage)
    heads = ["head0", "head1", "head2"]
    cosine, loss, code = CosineHeatmap(), LossPlot(), CodeView()
    cosine.set_on_stage(True)
    cosine.set_model(heads, [])
    cosine._show(np.array([[1.0, -0.45, 0.43], [-0.45, 1.0, 0.09], [0.43, 0.09, 1.0]]))
    loss.set_model(heads, [])
    lesson = find_lesson("13-aggregate-conflicts")
    slide = lesson.slides[1]
    code.set_wrapped(True)
    code.set_config(slide.config)
    assert tuple(slide.panels) == ("cosine", "loss", "code")
    for part in (stage.narration, cosine, loss, code):
        part.apply_theme(theme)
    stage.resize(1020, 659)
    stage.show()
    qtbot.waitExposed(stage)
    stage.narration.show_slide(lesson.title, slide, 1, len(lesson.slides))
    stage.show_slide([("cosine", cosine, None), ("loss", loss, None), ("code", code, "Code")],
                     slide.layout, theme.zoom, stage.narration.height_for_width)
    qtbot.waitUntil(lambda: code.text.viewport().height() > 0 and cosine.plot.getViewBox()
                    .height() > 0)
    text = stage.narration.text
    assert text.document().size().height() <= text.viewport().height() + 1
    qtbot.waitUntil(lambda: number_cap(cosine) >= BODY_CAP_PX)
    assert QFontMetrics(cosine.update_line.font()).capHeight() >= BODY_CAP_PX
    title = cosine._title
    assert title.heightForWidth(title.width()) <= 1.5 * title.fontMetrics().lineSpacing()
    # the step axis, its numbers and its title inside the chart
    axis = loss.plot.getAxis("bottom")
    view = loss.plot_widget
    bottom = view.mapFromScene(axis.label.sceneBoundingRect()).boundingRect().bottom()
    assert axis.label.isVisible() and bottom <= view.height() + 1
    assert axis.mapRectToScene(axis.boundingRect()).bottom() <= view.height() + 1
    # the loop: three lines of it, at no smaller than the normal text size
    lines = code.text.viewport().height() / code.text.fontMetrics().lineSpacing()
    assert lines >= 3
    for panel in (loss, code, cosine):
        assert panel.text_scale * theme.font_pt >= LIGHT.font_pt - 0.01


def number_cap(cosine) -> int:
    """The cap height (px) of the matrix's cells' numbers as drawn."""
    return QFontMetrics(cosine._texts[0][1].textItem.font()).capHeight()


@pytest.mark.parametrize("heads", [0, 1])      # lesson 11's slides: three heads, four
@pytest.mark.parametrize("presses", [0, 2])    # normal text, and Ctrl+= twice
def test_lesson_11s_cosine_numbers_are_legible_at_1024x768(qtbot, heads, presses):
    """Lesson 11 slide 2 (four heads) at 1024x768 after Ctrl+= twice: the matrix is the
    main panel, about 557x361 px; with its notes below it the matrix was 176 px high and
    the colour bar took 70 px of its width: its numbers were 9 px (19 at the normal
    size). Now the notes stand beside it, the colour bar gives way (the notes say what
    red and blue mean), the numbers are at least 14 px and the notes whole. On the stage
    the numbers and the line under the matrix are read as the narration is: capitals
    14 px high (the cells' were 12 at the normal size), or the stage says the text size
    is too large for the slide (the lesson takes the Ctrl+= back)."""
    import numpy as np

    from gradviz.qt.widgets.cosine_heatmap import CosineHeatmap
    from gradviz.qt.widgets.grad_views import JunctionPlot

    theme = LIGHT.zoomed(TEXT_STEP ** presses)
    stage = Stage(NarrationView())
    qtbot.addWidget(stage)
    lesson = find_lesson("11-losses-disagree")
    slide = lesson.slides[heads]
    names = [f"head{k}" for k in range(slide.config.heads)]
    cosine, junction = CosineHeatmap(), JunctionPlot()
    cosine.set_on_stage(True)
    cosine.set_model(names, [])
    junction.set_model(names, [])
    matrix = np.eye(len(names))
    matrix[0, -1] = matrix[-1, 0] = -0.45   # the widest number a cell shows
    cosine._show(matrix)
    for part in (stage.narration, cosine, junction):
        part.apply_theme(theme)
    assert tuple(slide.panels) == ("cosine", "junction")
    stage.resize(*ROOMS[0])
    stage.show()
    qtbot.waitExposed(stage)
    stage.narration.show_slide(lesson.title, slide, heads, len(lesson.slides))
    stage.show_slide([("cosine", cosine, None), ("junction", junction, None)],
                     slide.layout, theme.zoom, stage.narration.height_for_width)
    qtbot.waitUntil(lambda: cosine.plot.getViewBox().height() > 0)
    qtbot.waitUntil(lambda: number_cap(cosine) >= BODY_CAP_PX or cramped(stage.placement))
    assert presses or not cramped(stage.placement)
    assert QFontMetrics(cosine.update_line.font()).capHeight() >= BODY_CAP_PX
    assert cosine.cell_text(0, len(names) - 1) == "-0.45"

    def whole(label) -> bool:
        return (label.height() >= label.heightForWidth(label.width())
                and label.width() >= label.minimumSizeHint().width()
                and cosine.rect().contains(label.geometry()))
    # the notes whole and in the panel, once its layout has run
    qtbot.waitUntil(lambda: whole(cosine.caption) and whole(cosine.update_line))
    text = stage.narration.text
    assert text.document().size().height() <= text.viewport().height() + 1


def _inplace_error_message() -> str:
    """PyTorch's own message for lesson 05's error: a tensor a Linear saved, edited in
    place through a detached alias."""
    import torch

    # a leaf, as the app's message names no op that made z
    z = torch.randn(64, 32, requires_grad=True)
    out = torch.nn.Linear(32, 16)(z)          # saves z for its weight's gradient
    zk = z.detach()
    zk.mul_(1.0)                               # no value changes; the version does
    with pytest.raises(RuntimeError) as raised:
        out.sum().backward()
    return str(raised.value)


def test_lesson_05s_error_is_whole_and_the_largest_panel_beside_its_graph(qtbot):
    """Lesson 05 slide 1 at 1024x768 after Ctrl+= twice: What happened scrolled its last
    line of What to do out of view, and the graph was left 261 px, its boxes a 136 px
    strip, while the explanation's font was larger than it needed. The slide names What
    happened (an error slide's point is the error: beside the graph it took more of the
    stage than the panel the slide named, and at QT_SCALE_FACTOR=2 it scrolled). Now the
    explanation is whole, no smaller than the normal text, the largest panel, and the
    graph is shown beside it, at least LEFT_OUT_BELOW of its least height; the narration
    is set as small as the explanation has to be (the lesson takes the Ctrl+= back)."""
    from gradviz.plain.records.events import from_exception
    from gradviz.plain.stage.stage_layout import LEFT_OUT_BELOW, TEXT_SHRINK
    from gradviz.qt.widgets.events_view import EventsView

    message = _inplace_error_message()
    assert "modified by an inplace operation" in message
    theme = LIGHT.zoomed(TEXT_STEP ** 2)
    stage = Stage(NarrationView())
    qtbot.addWidget(stage)
    events = EventsView()
    events.set_on_stage(True)
    events.show_event(from_exception(RuntimeError(message), 0, "backward",
                                     "backward 1 of 1: total", "edit-detached"))
    assert message.split("\n\n")[0].replace("\n", " ").strip() in events.text()
    for part in (stage.narration, events):
        part.apply_theme(theme)
    stage.resize(*ROOMS[0])
    stage.show()
    qtbot.waitExposed(stage)
    lesson = find_lesson("05-edit-detached")
    slide = lesson.slides[0]
    assert tuple(slide.panels) == ("events", "graph")
    stage.narration.show_slide(lesson.title, slide, 0, len(lesson.slides))
    stage.show_slide([("events", events, "What happened"),
                      ("graph", QWidget(), "Autograd graph")],
                     slide.layout, theme.zoom, stage.narration.height_for_width)
    qtbot.waitUntil(lambda: events.scroll_area.viewport().height() > 0)
    needed = events.current.heightForWidth(events.scroll_area.viewport().width())
    assert events.current.font().pointSizeF() >= LIGHT.font_pt - 0.01
    graph, shown = stage.slots["graph"].geometry(), stage.slots["events"].geometry()
    assert stage.slots["graph"].isVisible()
    assert graph.height() >= LEFT_OUT_BELOW * least_size("graph", theme.zoom)[1]
    assert shown.width() * shown.height() > graph.width() * graph.height()
    assert needed <= events.scroll_area.viewport().height()
    # the narration no larger than the explanation it sits beside, more than a step
    # smaller (it was 20 px to the explanation's 15): the stage says the text size is
    # too large for the slide
    placement = stage.placement
    assert placement.text_scale < TEXT_SHRINK
    assert placement.narration_scale <= placement.text_scale and cramped(placement)
    text = stage.narration.text
    assert text.document().size().height() <= text.viewport().height() + 1


def test_an_empty_stage_resized_before_the_next_slide_arranges_nothing(qtbot):
    """Leave a lesson whose slide had What happened, then open another at a new window
    size: the stage, shown again, laid out the old slide's explanation before the new
    slide's panels came (a KeyError in Qt's event loop)."""
    from gradviz.qt.widgets.demo import recorded_event
    from gradviz.qt.widgets.events_view import EventsView

    stage = Stage(NarrationView())
    qtbot.addWidget(stage)
    events = EventsView()
    events.show_event(recorded_event())
    stage.resize(*ROOMS[0])
    stage.show_slide([("graph", QWidget(), None), ("events", events, None)], "side-by-side",
                     1.0, stage.narration.height_for_width)
    assert stage.release().keys() == {"graph", "events"}
    stage.resize(*ROOMS[1])
    stage.arrange()
    assert stage.placement is not None and stage.placement.panels == {}
