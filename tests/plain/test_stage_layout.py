"""The lesson stage's placement, without a window: the screens a lecturer meets, text
sizes up to Ctrl+= twice, and any room, narration and panel list (hypothesis)."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.plain.lessons.lessons import PANELS
from gradviz.plain.stage.stage_layout import (
    GAP,
    KEEP_SIDE,
    KEPT,
    LEFT_OUT_BELOW,
    NEVER_LEFT_OUT,
    STRIP_AT_MOST,
    TEXT_SHRINK,
    least_size,
    place,
    steps,
)

# the stage's room on a 1024x768 and a 1280x720 screen: the window less its title bar,
# menu bar, run bar and status bar (about 110 px)
ROOMS = [(1024, 658), (1280, 610)]
ZOOMS = [1.0, 1.15, 1.3225]   # normal text, and Ctrl+= once and twice
PAIRS = [("memory", "graph"), ("junction", "graph"), ("graph", "events"),
         ("cosine", "junction"), ("global_norm", "loss")]


def lines(text_chars: int, px_per_char: float = 9.0, line_px: int = 26, chrome: int = 60):
    """A narration's height at a width: its text wrapped into lines of that width."""
    def height(width: int, scale: float = 1.0) -> int:
        if scale != 1:   # set smaller: laid out as the full size in a wider room
            return int(scale * height(int(width / scale)))
        per_line = max(1, int((width - 20) / px_per_char))
        return chrome + line_px * -(-text_chars // per_line)
    return height


def overlaps(a, b) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def inside(r, width, height) -> bool:
    return r.x >= 0 and r.y >= 0 and r.right <= width and r.bottom <= height


def test_one_panel_takes_all_the_room_below_a_strip_sized_to_the_text():
    needed = lines(300)
    p = place(1280, 610, ["graph"], narration_height=needed)
    assert p.narration.h == needed(1280) and p.narration.w == 1280   # a strip, its height
    (graph,) = p.panels.values()
    assert graph.y == p.narration.bottom + GAP and graph.h == 610 - graph.y
    assert graph.w == 1280 and p.narration_whole and p.fits >= 1


@pytest.mark.parametrize("room", ROOMS)
@pytest.mark.parametrize("zoom", ZOOMS)
@pytest.mark.parametrize("pair", PAIRS)
def test_every_slide_pair_fits_whole_on_a_projector_at_every_text_size(room, zoom, pair):
    width, height = room
    # a bundled slide's narration: about 450 characters, in a font that grows with zoom
    needed = lines(450, px_per_char=9 * zoom, line_px=int(26 * zoom), chrome=int(60 * zoom))
    p = place(width, height, pair, zoom, narration_height=needed)
    assert p.narration_whole
    assert needed(p.narration.w) <= p.narration.h            # its text has the room
    main, second = (p.panels[name] for name in pair)
    # (at its font's step where it has one: the cosine matrix's numbers, never below the
    # narration's normal size)
    least_w, least_h = least_size(pair[0], zoom, p.font_scale.get(pair[0], 1.0))
    assert main.w >= least_w and main.h >= least_h, main
    # the second gives way to the main one (down to half its least size) after Ctrl+=
    least_w, least_h = least_size(pair[1], zoom)
    assert second.w >= least_w / 2 and second.h >= least_h / 2, second
    if zoom == 1.0:
        assert p.fits >= 1
    assert main.w * main.h > second.w * second.h              # the main one the largest


def test_a_secondary_panel_moves_below_when_beside_it_would_be_too_narrow():
    pair = ("junction", "graph")
    beside = place(1280, 610, pair, 1.0, narration_height=lines(200))
    assert beside.arrangement == "row"
    least_w = least_size("junction", 1.3225)[0] + least_size("graph", 1.3225)[0]
    narrow = place(least_w + 40, 900, pair, 1.3225, narration_height=lines(200))
    assert narrow.arrangement == "column"                     # below, never behind a tab
    first, second = narrow.panels.values()
    assert second.y >= first.bottom and narrow.fits >= 0.5
    assert first.w >= least_size("junction", 1.3225)[0]
    assert first.h >= least_size("junction", 1.3225)[1]


def test_a_narration_too_tall_for_a_strip_becomes_a_column_beside_the_panels():
    needed = lines(1000)                      # a long slide
    assert needed(1024) > STRIP_AT_MOST * 658
    p = place(1024, 658, ["graph"], 1.0, narration_height=needed)
    assert p.narration.h == 658 and p.narration.w < 1024 / 2 + 1
    assert p.narration_whole and needed(p.narration.w) <= 658
    (graph,) = p.panels.values()
    assert graph.x == p.narration.right + GAP


def test_stacked_prefers_the_panels_one_above_another():
    p = place(1280, 610, ["memory", "loss"], layout="stacked", narration_height=lines(100))
    first, second = p.panels.values()
    assert p.arrangement == "column" and second.y > first.y


def test_three_panels_the_main_one_beside_two_that_share_the_rest():
    p = place(1280, 610, ["junction", "loss", "code"], narration_height=lines(200))
    main, a, b = p.panels.values()
    assert p.arrangement == "main-left"
    assert a.x == b.x >= main.right and b.y >= a.bottom and main.h >= a.h + b.h


@settings(max_examples=300, deadline=None)
@given(width=st.integers(1, 3000), height=st.integers(1, 2000),
       panels=st.lists(st.sampled_from(PANELS), min_size=0, max_size=3, unique=True),
       zoom=st.floats(0.5, 3.0), chars=st.integers(0, 5000),
       layout=st.sampled_from(["side-by-side", "stacked", "tabs"]))
def test_any_room_gets_parts_inside_it_that_never_overlap(width, height, panels, zoom,
                                                          chars, layout):
    p = place(width, height, panels, zoom, layout, narration_height=lines(chars))
    parts = list(p.panels.values()) + [p.narration]
    # every panel placed in the slide's order, but a secondary one too low to be read
    assert list(p.panels) == [n for n in panels if n not in p.left_out]
    assert not panels or panels[0] in p.panels
    assert not set(p.left_out) & NEVER_LEFT_OUT
    for name, r in list(p.panels.items())[1:]:
        if name in NEVER_LEFT_OUT:
            continue
        least = least_size(name, zoom, p.font_scale.get(name, 1.0))[1]
        assert r.h >= LEFT_OUT_BELOW * least, (name, r)
    for r in parts:
        assert r.w >= 0 and r.h >= 0 and inside(r, width, height), r
    for i, a in enumerate(parts):
        for b in parts[i + 1:]:
            assert not (a.w and a.h and b.w and b.h and overlaps(a, b)), (a, b)
    # the loop's font: never larger than the text size's, never below the normal size
    for scale in p.font_scale.values():
        assert min(1.0, 1 / zoom) - 1e-9 <= scale <= 1.0


def test_the_loops_font_steps_down_so_an_error_beside_it_is_whole():
    """Lesson 07 after Ctrl+= twice at 1024x768: the loop's least size grown in full with
    the text left the error's explanation 94% of its height. The loop's panel now grows
    a quarter as much, and its font steps down instead (to the normal size at most), as
    the graph's boxes are fitted to theirs; at the normal text size nothing changes."""
    # (an explanation this long was cut beside a loop grown in full; 94% whole)
    explanation = lines(2550, px_per_char=8.5, line_px=20, chrome=40)
    zoomed = place(1024, 658, ("events", "code"), 1.3225, narration_height=lines(330),
                   content_height={"events": explanation})
    events, code = zoomed.panels["events"], zoomed.panels["code"]
    assert explanation(events.w, zoomed.text_scale) <= events.h and zoomed.fits >= 1
    # (the loop shows no Copy buttons on the stage: here it keeps the text size)
    assert 1 / 1.3225 <= zoomed.font_scale["code"] <= 1.0
    assert code.w >= least_size("code", 1.3225)[0] and code.h >= least_size("code", 1.3225)[1]
    normal = place(1280, 610, ("events", "code"), 1.0, narration_height=lines(330),
                   content_height={"events": explanation})
    assert normal.font_scale == {"code": 1.0}


def test_a_short_narration_is_a_strip_not_a_half_empty_column():
    for width, height in ROOMS:
        p = place(width, height, ["graph"], narration_height=lines(300))
        assert p.narration.w == width, (width, height)
        p = place(width, height, ["loss", "junction", "code"], narration_height=lines(300))
        assert p.narration.w == width and p.fits >= 1, (width, height, p)


@pytest.mark.parametrize("room", ROOMS)
def test_an_errors_explanation_gets_the_room_to_be_read_whole(room):
    """An error slide's What happened beside the graph: at 38% of 1024 px its Why and
    What to do ran below the panel (lessons 02, 04, 05, 08). Its text's height at a
    width decides its share: the graph, which the slide names, the larger where the
    text is whole so (02/1 and 08/2 gave What happened as much width as the graph), and
    where it is not, the text the wider, the graph keeping its least size."""
    width, height = room
    explanation = lines(1400, px_per_char=8.5, line_px=20, chrome=40)
    at_38 = int((width - GAP) * 0.38)
    p = place(width, height, ("graph", "events"), 1.0, narration_height=lines(330),
              content_height={"events": explanation})
    events, graph = p.panels["events"], p.panels["graph"]
    # more of it shown than at 38% (as high a panel, wider), and all of it
    assert events.h / explanation(events.w) > events.h / explanation(at_38)
    assert p.text_whole and events.h >= explanation(events.w)
    least_w, least_h = least_size("graph", 1.0)
    assert graph.w >= least_w and graph.h >= least_h and p.fits >= 1
    assert p.narration_whole
    shorter = lines(900, px_per_char=8.5, line_px=20, chrome=40)
    p = place(width, height, ("graph", "events"), 1.0, narration_height=lines(330),
              content_height={"events": shorter})
    events, graph = p.panels["events"], p.panels["graph"]
    assert p.text_whole and graph.w * graph.h > events.w * events.h


# 02/1 on the stage at the normal text size, as the real views measured it: its
# explanation at the narration's size (headline, PyTorch's message of 361 characters,
# Why, What to do, under the panel's title) and its narration, each height at a width
EXPLANATION_02_1 = {400: 735, 500: 591, 560: 488, 600: 464, 660: 440, 700: 416, 800: 368,
                    900: 344, 1000: 320}
NARRATION_02_1 = {340: 492, 500: 324, 674: 276, 1000: 200}


def measured(table: dict[int, int]):
    def height(width: int, scale: float = 1.0) -> int:
        if scale != 1:   # set smaller: the same lines in a room as much wider
            return int(scale * height(int(width / scale)))
        below = [h for w, h in table.items() if w <= width]
        return min(below) if below else 2000
    return height


explanation_02_1 = measured(EXPLANATION_02_1)


@pytest.mark.parametrize("room", ROOMS)
def test_at_the_narrations_size_an_error_is_whole_beside_a_graph_of_its_least_size(room):
    """Issue 45: on the stage an error's explanation is read as the narration is (14 px
    capitals at 1024x768), Why and What to do in view. 02/1's needs 440 px at 660 px
    wide: a share above half gave it 500 px at most, 591 px high where 450 were there.
    The graph gives way to its least size, no further."""
    width, height = room
    p = place(width, height, ("graph", "events"), 1.0,
              narration_height=measured(NARRATION_02_1),
              content_height={"events": explanation_02_1})
    events, graph = p.panels["events"], p.panels["graph"]
    assert p.text_whole and p.text_scale == 1.0 and p.narration_whole
    assert events.h >= explanation_02_1(events.w)
    least_w, least_h = least_size("graph", 1.0)
    assert graph.w >= least_w and graph.h >= least_h and p.fits >= 1


@pytest.mark.parametrize("room", ROOMS)
def test_an_error_slide_names_its_explanation_the_largest_whole_beside_the_graph(room):
    """Issue 45: an error slide names What happened (the walk's rule "the named panel is
    the largest" had an exception for it beside the graph). Named, 02/1's explanation is
    whole at the narration's size beside a graph of its least size: at 1024x768 at 0.66
    of the room (0.62 left it 30 px short), the larger of the two."""
    width, height = room
    p = place(width, height, ("events", "graph"), 1.0,
              narration_height=measured(NARRATION_02_1),
              content_height={"events": explanation_02_1})
    events, graph = p.panels["events"], p.panels["graph"]
    assert p.text_whole and p.text_scale == 1.0 and p.narration_whole and p.left_out == ()
    assert events.h >= explanation_02_1(events.w)
    assert events.w * events.h > graph.w * graph.h
    least_w, least_h = least_size("graph", 1.0)
    assert graph.w >= least_w and graph.h >= least_h and p.fits >= 1


def test_on_a_scaled_screen_a_named_text_or_matrix_takes_a_secondary_panels_room():
    """Issue 45: at QT_SCALE_FACTOR=2 on a 1280x720 screen (a stage of 638x266 to Qt)
    02/1's explanation scrolled beside the graph, and 13/1's matrix, 312x182 above the
    loss chart, drew its numbers 8 px high. The graph gives the explanation its room
    (whole at the reading floor, half the text size there); the loss chart the matrix
    its. On a plain screen of such a room the loss chart stays (its text there is the
    text size's)."""
    p = place(638, 266, ("events", "graph"), 1.0, narration_height=measured(NARRATION_02_1),
              content_height={"events": explanation_02_1}, ratio=2.0)
    assert p.left_out == ("graph",) and p.text_whole and list(p.panels) == ["events"]
    # the narration no larger than the explanation beside it, or within a step of it
    assert p.text_scale >= 0.5 and (p.narration_scale <= p.text_scale
                                    or p.narration_scale * TEXT_SHRINK <= p.text_scale)
    scaled = place(700, 340, ("cosine", "loss"), 1.0, narration_height=lines(450),
                   ratio=2.0)
    plain = place(700, 340, ("cosine", "loss"), 1.0, narration_height=lines(450))
    assert scaled.left_out == ("loss",) and list(scaled.panels) == ["cosine"]
    assert plain.left_out == () and list(plain.panels) == ["cosine", "loss"]


def test_a_text_panel_that_fits_anyway_leaves_the_main_panel_its_largest_share():
    short = place(1280, 610, ("graph", "events"), 1.0, narration_height=lines(330),
                  content_height={"events": lambda width, scale: 120})
    plain = place(1280, 610, ("graph", "events"), 1.0, narration_height=lines(330))
    assert short.panels == plain.panels


def test_a_text_too_long_to_be_whole_scrolls_and_squeezes_nothing():
    """After Ctrl+= twice at 1024x768 an error's explanation cannot be whole anywhere:
    its panel then scrolls, and that is no reason to take the larger text back (counted
    as a squeeze, it set the text to 100% for every slide after)."""
    p = place(1024, 658, ("graph", "events"), 1.3225, narration_height=lines(330),
              content_height={"events": lambda width, scale: 5000})
    assert p.fits >= 0.5 and p.narration_whole and not p.text_whole
    least_w, least_h = least_size("graph", 1.3225)
    assert p.panels["graph"].w >= least_w and p.panels["graph"].h >= least_h


def test_a_text_that_cannot_be_whole_gets_the_most_of_its_lines_shown():
    """Ctrl+= twice at 1024x768, an error slide: a column of narration beside the graph
    and What happened left the explanation a third of its lines: the narration that
    leaves the most of it shown wins (an explanation too long to be whole at the normal
    size)."""
    explanation = lines(3000, px_per_char=11, line_px=26, chrome=50)
    p = place(1024, 658, ("graph", "events"), 1.3225,
              narration_height=lines(330, px_per_char=12, line_px=34, chrome=80),
              content_height={"events": explanation})
    assert not p.text_whole and p.fits >= 0.5 and p.narration_whole
    events = p.panels["events"]
    scale = p.text_scale   # set as small as it may be: the normal text size
    assert abs(scale - 1 / 1.3225) < 0.01
    shown = events.h / explanation(events.w, scale)
    assert abs(shown - p.text_fit) < 0.02
    # every other narration: a strip forced (a column could not be whole), no more shown
    strip = place(1024, 658, ("graph", "events"), 1.3225,
                  narration_height=lambda width: 10_000 if width < 1000 else 216,
                  content_height={"events": explanation})
    # (the graph, which the slide names, keeps its room at the normal text size first)
    assert strip.narration.w == 1024 and p.main_kept and strip.main_kept


# lesson 13 slide 2's narration after Ctrl+= twice, as the real narration view measured
# it at 1024x768: 367 px high at the stage's 1020 px, 689 px at 500 (its text reflows)
LESSON_13_2 = {1020: 367, 800: 466, 700: 528, 600: 627, 500: 689, 400: 943, 340: 1036}


def lesson_13_2(width: int) -> int:
    below = [h for w, h in LESSON_13_2.items() if w <= width]
    return min(below) if below else 2000


def test_lesson_13_slide_2_after_ctrl_plus_twice_keeps_the_matrix_its_room():
    """The cosine matrix, the loss chart and the loop below a narration half the stage
    high (1024x768, Ctrl+= twice): every panel was squeezed (the matrix's numbers 13 px,
    the loss chart's step axis cut, one line of the loop). Nothing can move below the
    narration's strip, so the second and third panels' fonts step down to the normal
    size, and the main panel keeps the lecturer's size (the narration steps down, to
    keep the matrix the room it has at the normal size)."""
    zoom = 1.15 ** 2
    p = place(1020, 659, ["cosine", "loss", "code"], zoom, narration_height=lesson_13_2)
    # (the narration set smaller, never below the normal size, where the matrix would
    # otherwise have less room than at the normal size)
    scale = p.narration_scale
    assert 1 / zoom - 1e-9 <= scale <= 1 and p.main_kept
    assert p.narration_whole and p.narration.h >= scale * lesson_13_2(int(p.narration.w / scale))
    # the loss chart and the loop give way to the matrix (down to half their least size)
    assert p.fits >= 0.5
    # the matrix keeps its least size at its numbers' font, which steps down no further
    # than the narration's normal size (its numbers' capitals 14 px high)
    scale = p.font_scale["cosine"]
    least_w, least_h = least_size("cosine", zoom, scale)
    assert 1 / zoom - 1e-9 <= scale <= 1.0
    assert p.panels["cosine"].w >= least_w and p.panels["cosine"].h >= least_h
    for name in ("loss", "code"):                            # never below the normal size
        assert 1 / zoom - 1e-9 <= p.font_scale[name] < 1.0
    cosine = p.panels["cosine"]
    assert cosine.w * cosine.h > max(r.w * r.h for n, r in p.panels.items() if n != "cosine")


def test_a_slide_that_fits_at_the_text_size_sets_no_chart_smaller():
    """The charts' fonts step down only where no arrangement fits at the text size."""
    for width, height in ROOMS:
        for zoom in ZOOMS:
            p = place(width, height, ["memory", "loss"], zoom, narration_height=lines(300))
            if p.fits >= 1 and all(r.w >= least_size(n, zoom)[0] and
                                   r.h >= least_size(n, zoom)[1]
                                   for n, r in p.panels.items()):
                assert p.font_scale.get("loss", 1.0) == 1.0, (width, height, zoom)


def test_only_the_loop_the_matrix_and_charts_after_the_main_one_may_be_set_smaller():
    assert steps(["cosine", "loss", "code"]) == {"cosine", "loss", "code"}
    assert steps(["loss", "cosine"]) == {"cosine"}
    assert steps(["loss", "junction"]) == {"junction"}
    assert steps(["code", "graph"]) == {"code"}
    assert steps(["graph", "events"]) == set()


def normal_text(needed, zoom: float):
    """The narration at the normal text size: its text at zoom in a room zoom times as
    wide, 1 / zoom as high (the same lines)."""
    return lambda width: int(needed(int(width * zoom)) / zoom) + 1


@pytest.mark.parametrize("room", ROOMS + [(1280, 900), (1500, 800)])
@pytest.mark.parametrize("panels", PAIRS + [("cosine", "loss", "code"),
                                            ("junction", "loss", "code")])
def test_ctrl_plus_never_makes_the_named_panel_smaller(room, panels):
    """After Ctrl+= twice the junction chart was ~150 px tall on 01/2 and the memory
    chart ~60 px on 09/2: the main panel now keeps the room it has at the normal text
    size (the others give way, the narration wraps into a column), or the placement says
    it did not (main_kept False: the lesson takes the Ctrl+= back)."""
    zoom = 1.3225
    needed = lines(450, px_per_char=9 * zoom, line_px=int(26 * zoom), chrome=int(60 * zoom))
    normal = place(*room, panels, 1.0, narration_height=normal_text(needed, zoom))
    large = place(*room, panels, zoom, narration_height=needed)
    before, after = normal.panels[panels[0]], large.panels[panels[0]]
    assert large.main_kept == (after.w * after.h >= KEPT * before.w * before.h
                               and after.w >= KEEP_SIDE * before.w
                               and after.h >= KEEP_SIDE * before.h), (before, after)
    assert large.narration_whole
    area = after.w * after.h
    assert all(area > r.w * r.h for n, r in large.panels.items() if n != panels[0])


def test_at_1280x720_the_main_chart_keeps_its_room_and_the_second_gives_way():
    """The case the rule is for: Ctrl+= twice at 1280x720 left the main chart 321 px of
    its 414 (the narration's strip grew). Now the narration becomes a column and the
    second chart, below the main one, is the one smaller than its least size."""
    zoom = 1.3225
    needed = lines(600, px_per_char=9 * zoom, line_px=int(26 * zoom), chrome=int(60 * zoom))
    normal = place(1280, 610, ("junction", "graph"), 1.0,
                   narration_height=normal_text(needed, zoom))
    large = place(1280, 610, ("junction", "graph"), zoom, narration_height=needed)
    before, after = normal.panels["junction"], large.panels["junction"]
    assert large.main_kept and large.narration_whole
    assert after.h >= before.h and after.w * after.h >= KEPT * before.w * before.h
    graph = large.panels.get("graph")
    if graph is None:   # too low to be read: left out, the main chart in its room
        assert large.left_out == ("graph",) and after.h == 610
    else:
        assert LEFT_OUT_BELOW * least_size("graph", zoom)[1] <= graph.h \
            < least_size("graph", zoom)[1]


def test_a_secondary_panel_too_low_to_be_read_is_left_out():
    """03/2 after Ctrl+= twice at 1024x768: the narration a column, the memory chart
    keeping its room, the graph below it was 144 px high with one box of 18 in view.
    It is left out, and the memory chart takes the column's height; at the normal text
    size both are placed."""
    zoom = 1.3225
    needed = lines(400, px_per_char=9 * zoom, line_px=int(26 * zoom), chrome=int(60 * zoom))
    large = place(1014, 658, ("memory", "graph"), zoom, narration_height=needed)
    assert large.left_out == ("graph",) and list(large.panels) == ["memory"]
    memory = large.panels["memory"]
    assert memory.h == 658 and memory.right == 1014 and large.narration_whole
    # the same slide at the normal text size: both placed, the graph at its least height
    normal = place(1014, 658, ("memory", "graph"), 1.0,
                   narration_height=normal_text(needed, zoom))
    assert normal.left_out == () and set(normal.panels) == {"memory", "graph"}
    graph = normal.panels["graph"]
    assert graph.h >= least_size("graph", 1.0)[1]


@pytest.mark.parametrize("room", ROOMS)
@pytest.mark.parametrize("pair", PAIRS)
def test_at_the_normal_text_size_no_panel_is_left_out(room, pair):
    p = place(*room, pair, 1.0, narration_height=lines(400))
    assert p.left_out == () and list(p.panels) == list(pair)


@settings(max_examples=200, deadline=None)
@given(width=st.integers(400, 3000), height=st.integers(300, 2000),
       panels=st.lists(st.sampled_from(PANELS), min_size=2, max_size=3, unique=True),
       zoom=st.sampled_from(ZOOMS), chars=st.integers(0, 2000))
def test_the_named_panel_is_the_largest_on_screen(width, height, panels, zoom, chars):
    p = place(width, height, panels, zoom, narration_height=lines(chars))
    main = p.panels[panels[0]]
    assert all(main.w * main.h >= r.w * r.h for r in p.panels.values())


def test_a_tiny_logical_screen_scrolls_the_narration_rather_than_crush_the_main_panel():
    """QT_SCALE_FACTOR=2 on a 1280x720 screen: Qt's room is 640x360, the stage ~640x290.
    A whole narration left the panels ~10 px high; now the narration scrolls in its
    strip and the main panel keeps at least half its least size."""
    p = place(640, 290, ("junction", "graph"), 1.0, narration_height=lines(450))
    junction = p.panels["junction"]
    least_w, least_h = least_size("junction", 1.0)
    assert not p.narration_whole and p.narration.h <= STRIP_AT_MOST * 290 + 1
    assert junction.h >= least_h / 2 and junction.w >= least_w / 2


def test_where_no_placement_keeps_the_main_panel_the_narration_is_set_smaller():
    """Ctrl+= twice at 1024x768 with a long narration (12/5): no column or strip leaves
    the main chart its room at the text size (it was ~100 px high). The narration's font
    steps down, never below the normal size, until the chart keeps its room."""
    zoom = 1.3225
    needed = lines(600, px_per_char=9 * zoom, line_px=int(26 * zoom), chrome=int(60 * zoom))
    normal = place(1024, 658, ("junction", "grad_norms"), 1.0,
                   narration_height=normal_text(needed, zoom))
    large = place(1024, 658, ("junction", "grad_norms"), zoom, narration_height=needed)
    assert large.main_kept and large.narration_whole
    assert 1 / zoom - 1e-9 <= large.narration_scale < 1
    before, after = normal.panels["junction"], large.panels["junction"]
    assert after.w * after.h >= KEPT * before.w * before.h
    # at the normal size nothing is set smaller
    assert normal.narration_scale == 1.0


def test_on_a_scaled_screen_the_narration_is_set_smaller_to_be_whole():
    """QT_SCALE_FACTOR=2 on a 1280x720 screen leaves the stage about 636x287 of Qt's
    pixels: lesson 13's first slide (its narration and figures about 880 characters)
    showed one line of its narration behind a scroll bar. Its font may now step down to
    half (the normal size's height in the screen's own pixels) to be whole, the named
    panel keeping half its least size at least; on a screen of one pixel per pixel, never
    below the normal size."""
    from gradviz.plain.stage.stage_layout import MAIN_AT_LEAST, reading_floor

    assert reading_floor(1.0) == 1.0 and reading_floor(1.3225) == 1 / 1.3225
    assert reading_floor(1.0, 2.0) == 0.5 and reading_floor(0.5, 1.0) == 1.0
    narration = lines(880)
    scaled = place(636, 287, ("cosine", "loss"), 1.0, narration_height=narration, ratio=2.0)
    assert scaled.narration_whole and 0.5 <= scaled.narration_scale < 1.0
    main = scaled.panels["cosine"]
    least_w, least_h = least_size("cosine", 1.0, scaled.font_scale["cosine"])
    assert min(main.w / least_w, main.h / least_h) >= MAIN_AT_LEAST
    assert scaled.font_scale["cosine"] >= 0.5
    plain = place(636, 287, ("cosine", "loss"), 1.0, narration_height=narration)
    assert plain.narration_scale == 1.0 and plain.font_scale["cosine"] == 1.0
