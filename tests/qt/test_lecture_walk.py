"""A lecturer's walk on a real X server, read back by OCR (lecture_walk.py does it from
outside the app: PageDown through xdotool, full-screen shots, tesseract). By default one
lesson at 1024x768 at normal text size; GRADVIZ_LECTURE_WALK=all walks every lesson at
1024x768 and 1280x720, at normal text size and after Ctrl+= twice (half an hour on a
laptop). Skipped without Xvfb, Qt's X libraries, xdotool, ImageMagick or tesseract."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lecture_walk import (
    NARRATION_READ,
    TOOLS,
    UNFRAME,
    check_slide,
    columns,
    on_stage,
    read_enough,
    table,
    verdict,
)
from test_real_display import _start_xvfb, needs_x
from walk_measure import (
    at_half_second,
    explanation_sizes,
    matrix_digits,
    named_panel,
    pointed_digits,
    text_sizes,
    words,
)

HERE = Path(__file__).resolve().parent
ALL = os.environ.get("GRADVIZ_LECTURE_WALK") == "all"
RUNS = [("1024x768", 0), ("1024x768", 2), ("1280x720", 0), ("1280x720", 2)] if ALL \
    else [("1024x768", 0)]

# of the graph slides, those whose OCR reads a module name; of the focused ones, those
# whose OCR reads the state the focus is about (measured by the full walk: see below)
MODULES_READ, STATES_READ = 0.9, 0.9
# the least cap height (px) of the text a slide's point rests on: a 14 px font's (the
# graph's boxes' floor); lesson 02 at 1024x768 measured 11 px (slide 1's box names)
LEAST_CAP_PX = 10

needs_tools = pytest.mark.skipif(not all(shutil.which(t) for t in TOOLS),
                                 reason=f"needs {', '.join(TOOLS)} (xdotool, imagemagick, "
                                        "tesseract-ocr, x11-apps, x11-utils)")


@needs_x
@needs_tools
@pytest.mark.parametrize("size,presses", RUNS)
def test_paged_with_page_down_alone_every_slide_plays_and_reads(tmp_path, size, presses):
    xvfb, n = _start_xvfb(size)
    try:
        # lesson 02 by default: an error slide played phase by phase beside the graph,
        # then a slide of steps beside a chart, both framed on a focus (lesson 04 showed
        # the same kinds of slide with one more, which cost the walk a third of its time)
        lessons = [] if ALL else ["02-backward-twice"]
        proc = subprocess.run([sys.executable, str(HERE / "lecture_walk.py"),
                               "--display", f":{n}", "--zoom", str(presses),
                               "--out", str(tmp_path), *lessons],
                              capture_output=True, text=True, timeout=3600)
    finally:
        xvfb.terminate()
        xvfb.wait(10)
    assert proc.returncode == 0, proc.stderr[-2000:]
    slides = json.loads(proc.stdout.strip().splitlines()[-1])
    width, height = map(int, size.split("x"))
    assert slides and not [s for s in slides if "error" in s], slides
    for s in slides:
        where = (s["lesson"], s["slide"])
        assert s["played"], where                       # PageDown alone played it
        assert s["window"][0] <= width and s["window"][1] <= height, where
        assert s["narration_read"] >= NARRATION_READ and s["narration_last_words"], where
        assert all(s["panels"].values()), (where, s["panels"])
        # the stage's rects as the app wrote them: the named panel the largest, and its
        # title read inside its own rect; the text the point rests on large enough
        assert s["named_largest"] and s["named_seen"], (where, s["panel_areas"])
        assert s.get("figures_ok", True), (where, s["figures_px"], s["narration_px"])
        assert s["smallest_text_px"] >= LEAST_CAP_PX, (where, s["smallest_text_word"])
        # 0.5 s after PageDown: the new slide's title, never the slide before's data
        assert s["slide"] == 1 or s["stale"] == [], (where, s["stale"], s["half_shot"])
    # the graph read from a seat: its module names, and the state its focus is about.
    # The walk of every lesson (GRADVIZ_LECTURE_WALK=all) read the names on 18-19 of
    # 20 graph slides at each size and text size, and the state on 9-10 of 10 focused
    # slides, once each shot was read three ways and its lines parted into columns (with
    # tesseract's own columns alone: 14-16 of 20); a slide missed is a different one
    # each walk, its names whole on screen and read from a crop of its panel
    graph = [s for s in slides if "modules" in s]
    focused = [s for s in graph if s["focus"]]
    assert sum(not s["modules"] for s in graph) <= misses(MODULES_READ, len(graph)), graph
    assert sum(not s["state_words"] for s in focused) <= misses(STATES_READ, len(focused)), \
        focused


def misses(rate: float, slides: int) -> int:
    """The slides OCR may miss of so many: what the rate leaves, and one at least (OCR
    misses a label now and then; the default walk has two graph slides)."""
    return max(1, round((1 - rate) * slides))


def test_a_code_name_in_the_narration_is_sought_as_the_shot_shows_it():
    """`retain_graph` on screen is read as "retain_graph": the walk sought
    "retaingraph" and failed lesson 12's slides 3 and 4 at every size."""
    slide = {"narration": "**Notice:** walks the trunk once. No `retain_graph` needed.",
             "panels": []}
    read = check_slide("Notice: walks the trunk once. No retain_graph needed.", slide)
    assert read["narration_read"] == 1.0 and read["narration_last_words"]
    assert not check_slide("Notice: walks the trunk once.", slide)["narration_last_words"]


def test_a_zero_read_as_the_letter_o_is_still_a_module_name():
    """Lesson 08 slide 2: every shot read the rnn's box as "trunk, step O"; a name
    needs its number, and a paragraph's "trunk" is no box's name."""
    slide = {"narration": "", "panels": ["graph"], "focus": ""}
    assert check_slide("trunk, step O\nheads.O.1", slide)["modules"] == \
        ["heads.o", "trunk, step o"]
    assert check_slide("| heads-1-0", slide)["modules"] == ["heads-1"]
    assert check_slide("the trunk and the heads\ntrunk.", slide)["modules"] == []


def _tsv(*words: tuple[int, int, str]) -> str:
    """Tesseract's tsv for words on one line: (left, width, text), 20 px high."""
    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth" \
           "\theight\tconf\ttext"
    return "\n".join([head] + [f"5\t1\t1\t1\t1\t{i}\t{left}\t100\t{width}\t20\t95\t{text}"
                               for i, (left, width, text) in enumerate(words, 1)])


def test_a_wide_gap_parts_a_line_into_columns():
    """Lesson 05 slide 1 at 1280x720, read as one block: the graph's names ran on into
    the error beside them, a line too long to be a box's label."""
    line = _tsv((10, 80, "heads.0.0"), (100, 80, "heads.1.0"), (400, 70, "expected"),
                (475, 60, "version"), (540, 10, "@"), (555, 60, "instead."))
    assert columns(line).splitlines() == ["heads.0.0 heads.1.0", "expected version @ instead."]
    slide = {"narration": "", "panels": ["graph"], "focus": ""}
    assert check_slide(columns(line), slide)["modules"] == ["heads.0", "heads.1"]
    # words a space apart stay one line
    assert columns(_tsv((10, 50, "What"), (65, 20, "to"), (90, 25, "do:"))) == "What to do:"


def test_a_shot_is_read_again_until_every_check_the_walk_makes_passes():
    """The walk stops reading a shot once what it read passes: any check still failing
    (a narration word short, its last words, a panel's title, the graph's names, the
    focus's state) asks for the next reading."""
    slide = {"narration": "Notice: the graph is freed after backward.",
             "panels": ["graph", "events"], "focus": "freed"}
    whole = "Notice: the graph is freed after backward.\nAutograd graph\nWhat happened\n" \
            "heads.0.0\nfreed"
    assert read_enough(check_slide(whole, slide))
    for missing in ("Notice: the graph is freed after backward.", "Autograd graph",
                    "What happened", "heads.0.0", "\nfreed"):
        assert not read_enough(check_slide(whole.replace(missing, ""), slide)), missing
    # the share of the narration read: one word of six missed is under NARRATION_READ
    assert not read_enough(check_slide(whole.replace("Notice", "Nofice"), slide))
    no_graph = {"narration": "Notice: the loss.", "panels": ["loss"]}
    assert read_enough(check_slide("Notice: the loss.\nLoss per head", no_graph))
    # seven words of eight are enough of the narration, but not without its last ones
    long = {"narration": "Notice that each loss, each loss, each loss pushes.", "panels": []}
    assert read_enough(check_slide("Notice that each loss, each loss, each loss pushes.", long))
    assert not read_enough(check_slide("Notice that each loss, each loss, each loss", long))


def _words(*found: tuple[int, int, int, str]) -> str:
    """Tesseract's tsv of words (left, top, height, text), 40 px wide each, sure."""
    head = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth" \
           "\theight\tconf\ttext"
    return "\n".join([head] + [f"5\t1\t1\t1\t1\t{i}\t{left}\t{top}\t40\t{height}\t95\t{text}"
                               for i, (left, top, height, text) in enumerate(found, 1)])


GEOMETRY = {"panels": {"junction": [0, 200, 600, 400], "code": [610, 200, 300, 400]},
            "narration": [0, 0, 1000, 190], "figures": [0, 120, 1000, 60]}


def test_the_named_panel_is_the_largest_rect_and_its_title_is_read_inside_it():
    found = words(_words((20, 210, 14, "pushes"), (700, 210, 14, "loop")))
    read = named_panel(GEOMETRY, "junction", found, "How hard each loss pushes")
    assert read["named_largest"] and read["named_seen"]
    # its title read elsewhere (a dock's, the narration's) is not its own
    elsewhere = words(_words((700, 210, 14, "pushes")))
    assert not named_panel(GEOMETRY, "junction", elsewhere, "How hard each loss pushes")[
        "named_seen"]
    assert not named_panel(GEOMETRY, "code", found, "The training loop")["named_largest"]


def test_figures_are_measured_against_the_narration_by_cap_height():
    """Words with a descender (g, p, y) stand lower than a capital: left out of both."""
    narration = [(20, 20, 15, "Notice"), (90, 20, 15, "trunk"), (150, 20, 20, "every")]
    big = words(_words(*narration, (20, 130, 19, "all-reduces"), (80, 130, 19, "walked"),
                       (20, 250, 12, "head0")))
    sizes = text_sizes(GEOMETRY, "junction", big, True)
    assert (sizes["narration_px"], sizes["figures_px"], sizes["figures_ok"]) == (15, 19, True)
    assert (sizes["smallest_text_px"], sizes["smallest_text_word"]) == (12, "head0")
    small = words(_words(*narration, (20, 130, 11, "trunk"), (80, 130, 11, "walked")))
    assert not text_sizes(GEOMETRY, "junction", small, True)["figures_ok"]
    # a slide with figures none of which is read fails; one without has no such check
    assert not text_sizes(GEOMETRY, "junction", words(_words(*narration)), True)["figures_ok"]
    assert "figures_ok" not in text_sizes(GEOMETRY, "junction", big, False)


def test_the_half_second_shot_shows_the_new_slide_or_what_it_prepares():
    new = {"title": "Retain the graph for every call but the last"}
    old = {"title": "Backward per loss, graph not retained"}
    heading = "Retain the graph for every call but the last\n"
    assert at_half_second(heading + "Preparing this slide: the first step…", new, old,
                          True, False) == {"preparing_at_half": True, "ran_at_half": False,
                                           "stale": []}
    # no cover: the slide before's panel as it was, or its title
    assert at_half_second(heading, new, old, True, False)["stale"] == ["previous panel"]
    assert at_half_second("Backward per loss, graph not retained", new, old, False,
                          False)["stale"] == ["no new title", "previous title"]
    # "Nothing went wrong" on a slide that fails once it has run: nothing ran yet
    assert at_half_second(heading + "Nothing went wrong", new, old, False, True)[
        "stale"] == ["nothing went wrong before it ran"]
    assert at_half_second(heading + "Nothing went wrong", new, old, False, False)[
        "stale"] == []
    # ...but after its forward phase nothing has gone wrong yet: true at that moment
    ran = heading + "Nothing went wrong\nPlaying phase by phase · Step 0 · just done: forward"
    assert at_half_second(ran, new, old, False, True)["stale"] == []


def test_a_slide_s_verdict_names_what_fell_short_and_the_table_shows_it():
    fine = {"lesson": "01-add-or-separate", "slide": 3, "played": True, "stale": [],
            "narration_read": 1.0, "narration_last_words": True, "panels": {"junction": True},
            "named_largest": True, "named_seen": True, "figures_ok": True,
            "smallest_text_px": 12, "smallest_text_word": "head0"}
    assert verdict(fine) == "fine"
    assert verdict(dict(fine, figures_ok=False)) == \
        "partly: figures smaller than the narration"
    assert verdict(dict(fine, stale=["previous panel"])) == "problem: previous panel"
    assert verdict(dict(fine, played=False)) == "problem: not played"
    rows = table([dict(fine, verdict=verdict(fine)),
                  {"lesson": "08-rnn-truncation", "error": "no window"}]).splitlines()
    assert rows[2:] == ["| 01/3 | fine | 12 (head0) | – | – | – | – |",
                        "| 08/? | problem: no window | | | | | |"]


def test_an_errors_explanation_is_measured_in_the_rect_it_is_read_in():
    """Issue 45: the headline's capitals (its first line) and the body's, against the
    narration's; Why and What to do read in view, and the app's word that it is whole.
    An error slide names it: it is the largest panel, as any named one (the rule once
    let it be larger than the graph the slide named)."""
    geometry = {"panels": {"graph": [0, 200, 350, 400], "events": [360, 200, 660, 400]},
                "narration": [0, 0, 1000, 190],
                "texts": {"events": {"rect": [360, 230, 660, 370], "whole": True}}}
    narration = [(20, 20, 14, "Notice"), (90, 20, 14, "trunk")]
    body = [(370, 280, 14, "Trying"), (420, 280, 14, "backward"), (370, 330, 14, "Why:"),
            (370, 380, 14, "What"), (420, 380, 14, "to"), (450, 380, 14, "do:")]
    found = words(_words(*narration, (370, 240, 18, "Backward"), (430, 240, 18, "freed"),
                         *body))
    sizes = explanation_sizes(geometry, found)
    assert sizes == {"explanation_headline_px": 18, "explanation_px": 14,
                     "explanation_whole": True, "explanation_read": True}
    fine = {"played": True, "stale": [], "narration_read": 1.0, "narration_last_words": True,
            "panels": {}, "narration_px": 14, **sizes}
    assert verdict(fine) == "fine"
    small = dict(fine, explanation_px=11)
    assert verdict(small) == "partly: explanation smaller than the narration"
    scrolled = dict(fine, explanation_whole=False)
    assert verdict(scrolled) == "partly: explanation not whole"
    assert named_panel(geometry, "events", found, "What happened")["named_largest"]
    assert not named_panel(geometry, "graph", found, "Autograd graph")["named_largest"]
    # a speck read just above the headline at low confidence is not its line
    speck = words(_words(*narration, (365, 231, 10, "nl"), (370, 240, 18, "Backward"),
                         (430, 240, 18, "freed"), *body))
    speck = [w if w.text != "nl" else type(w)(w.left, w.top, w.width, w.height, 28.0, w.text)
             for w in speck]
    assert explanation_sizes(geometry, speck)["explanation_headline_px"] == 18
    # nothing of it read in its rect: not read, whatever the app says
    assert explanation_sizes(geometry, words(_words(*narration)))["explanation_read"] is False
    assert explanation_sizes({"panels": {}}, found) == {}


def test_the_numbers_the_narration_points_at_are_measured_where_the_shot_shows_them():
    """Issue 45: 13/1's narration names "0.161" and "−0.0049", shown under the matrix
    (8 px high) and in the figures; the narration's own copy of them does not count."""
    geometry = {"panels": {"cosine": [0, 300, 600, 300]}, "narration": [0, 0, 1000, 190]}
    narration = "The trunk moved 0.161 (step 3); its loss −0.0049, lr 0.05."
    found = words(_words((20, 20, 15, "0.161"), (20, 400, 8, "0.161"),
                         (200, 400, 15, "−0.0049"), (300, 400, 15, "3")))
    assert pointed_digits(geometry, found, narration) == {"pointed_px": 8,
                                                          "pointed_word": "0.161"}
    fine = {"played": True, "stale": [], "narration_read": 1.0,
            "narration_last_words": True, "panels": {}, "narration_px": 15}
    assert verdict(dict(fine, pointed_px=8)) == \
        "partly: a number pointed at smaller than the narration"
    assert verdict(dict(fine, pointed_px=14)) == "fine"
    assert pointed_digits(geometry, found[:1], narration) == {}   # only the narration's


def test_the_cosine_matrix_s_numbers_are_measured_in_its_cells_rect():
    """Issue 45: at QT_SCALE_FACTOR=2 on 1280x720 13/2's cells were 20 px squares, their
    numbers drawn over each other, and the walk said fine. The cells' numbers read in
    the rect the app says its cells are drawn in, against the narration's height; the
    update line's numbers under it (outside that rect) do not count."""
    geometry = {"panels": {"cosine": [0, 300, 600, 300]}, "narration": [0, 0, 1000, 190],
                "matrices": {"cosine": [0, 330, 400, 200]}}
    found = words(_words((20, 350, 16, "1.00"), (120, 350, 9, "−0.05"),
                         (220, 350, 16, "head0"), (20, 560, 15, "−0.03")))
    assert matrix_digits(geometry, found) == {"matrix_px": 9, "matrix_read": 2}
    fine = {"played": True, "stale": [], "narration_read": 1.0,
            "narration_last_words": True, "panels": {}, "narration_px": 15}
    assert verdict(dict(fine, matrix_px=9, matrix_read=2)) == \
        "partly: matrix numbers unread or below 14 px"
    assert verdict(dict(fine, matrix_px=None, matrix_read=0)) == \
        "partly: matrix numbers unread or below 14 px"
    assert verdict(dict(fine, matrix_px=13, matrix_read=16)) == "fine"   # OCR's pixel
    assert verdict(dict(fine, matrix_px=12, matrix_read=16)) != "fine"
    assert matrix_digits({"panels": {"graph": [0, 0, 9, 9]}}, found) == {}
    row = table([dict(fine, lesson="13-aggregate-conflicts", slide=1, verdict="fine",
                      matrix_px=18, matrix_read=9)]).splitlines()[2]
    assert row.endswith("| 18 (9) |")


def test_a_panel_the_stage_left_out_is_not_sought_on_the_shot():
    """03/2 after Ctrl+= twice: the app left the graph out (its rect null), so the walk
    seeks neither its title nor module names there; the table says it."""
    slide = {"narration": "Notice: the memory.", "panels": ["memory", "graph"]}
    shown = on_stage(slide, {"panels": {"memory": [0, 0, 500, 600], "graph": None}})
    assert shown["panels"] == ["memory"] and slide["panels"] == ["memory", "graph"]
    read = check_slide("Notice: the memory.\nMemory held", shown)
    assert read_enough(read) and "modules" not in read
    assert not read_enough(check_slide("Notice: the memory.\nMemory held", slide))
    # no rects yet, or a rect for another slide's panels: every panel is sought
    assert on_stage(slide, {})["panels"] == ["memory", "graph"]
    assert on_stage(slide, {"panels": {"loss": None}})["panels"] == ["memory", "graph"]
    row = table([{"lesson": "03-leaky-graphs", "slide": 2, "verdict": "fine",
                  "left_out": ["graph"], "smallest_text_px": 14,
                  "smallest_text_word": "nodes"}]).splitlines()[2]
    assert row == "| 03/2 | fine (graph left out) | 14 (nodes) | – | – | – | – |"


@needs_tools
def test_a_word_in_a_thick_frame_is_read_once_the_frame_is_taken_out(qapp, tmp_path):
    """A shared box as the graph draws it (bold 20 px text in a 6 px black frame): its
    words are read once the frame is taken out, the text's own strokes kept (tesseract
    5.3 read nothing in the same picture as it is, whole or enlarged)."""
    from PySide6.QtCore import QRect, Qt
    from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen

    image = QImage(420, 200, QImage.Format.Format_RGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(QColor("black"), 6))
    painter.drawRoundedRect(QRect(40, 40, 300, 110), 12, 12)
    font = QFont("DejaVu Sans")
    font.setPixelSize(20)
    font.setBold(True)
    painter.setFont(font)
    painter.drawText(QRect(70, 55, 260, 80), Qt.AlignmentFlag.AlignLeft, "z\njunction")
    painter.end()
    framed = tmp_path / "framed.png"
    assert image.save(str(framed))
    unframed = tmp_path / "unframed.png"
    subprocess.run(["convert", str(framed), *UNFRAME, "-resize", "200%", str(unframed)],
                   check=True, timeout=60)

    def read(path: Path) -> str:
        return subprocess.run(["tesseract", str(path), "-", "--psm", "11"],
                              capture_output=True, text=True, check=True,
                              timeout=60).stdout
    assert "junction" in read(unframed)
