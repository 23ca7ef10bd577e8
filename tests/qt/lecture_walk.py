"""A lecturer's walk through the bundled lessons on a real X server, from outside the app:
start `gradviz --lesson NAME`, page every slide with PageDown alone (as a clicker sends
it, through xdotool), wait until the slide has played, take a full-screen shot and read
it with tesseract, as a seat in the hall would. Per slide it reports (JSON) whether the
OCR reads the graph's module names and the state words the slide's focus is about,
whether the narration is on screen whole, and whether every panel the slide names shows
its title; and, set against the stage's rects the app writes (GRADVIZ_STAGE_GEOMETRY),
whether the named panel is the largest with its title inside it, the figures' text height
against the narration's, the smallest text the point rests on (walk_measure.py), and what
a shot 0.5 s after PageDown shows (the new slide or what it prepares, never the slide
before's data). Each slide gets a verdict; --table prints a walk's JSON as a table.

    python tests/qt/lecture_walk.py --display :7 --out /tmp/shots [--zoom 2] [LESSON[:N]...]
    python tests/qt/lecture_walk.py --table walk.json

Needs Xvfb (or another X server), xdotool, ImageMagick's `import` and tesseract;
test_lecture_walk.py runs it and says which are missing."""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

from walk_measure import (
    at_half_second,
    explanation_sizes,
    matrix_digits,
    named_panel,
    pointed_digits,
    text_sizes,
)
from walk_measure import words as word_boxes

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "resources" / "lessons"
TOOLS = ("xdotool", "import", "convert", "tesseract", "xwd", "xdpyinfo", "compare")
HALF_SECOND = 0.5   # after PageDown: what the hall sees first

# what a panel's title reads on screen (the OCR finds these words, in this order)
PANEL_WORDS = {
    "graph": "Autograd graph", "events": "What happened", "memory": "Memory",
    "code": "training loop", "junction": "How hard each loss pushes",
    "loss": "Loss per head", "global_norm": "Global gradient norm",
    "cosine": "Do the losses agree", "grad_norms": "Gradient norm per parameter",
}
# the graph's module names as PyTorch names its parameters (trunk.0, heads.1.0, ...), and
# an rnn's time steps ("trunk, step 0"). A zero may be read as the letter O: in a sans
# font out of a word's context OCR cannot tell them apart (every shot of lesson 08 slide
# 2 read "trunk, step O"), a reader can, and PyTorch's names hold no letter there (the
# lines are searched in lower case); nor a hyphen, which the dot between numbers may be
# read as (lesson 04 slide 2: "heads-1-0")
MODULE_NAME = re.compile(r"\b(?:trunk|heads)(?:[.-][\do]|\W{1,4}step [\do])")
# the words that show a slide's focus on the graph; the rnn's carried state: the step
# before's box, the cut, or what became of the step before's graph; the junction: its
# kept grad, or the box's own label (14/1 retains no grad: its z box says "junction")
FOCUS_WORDS = {
    "cut": ("detach",), "freed": ("freed",), "changed": ("changed in place",),
    "junction": ("z.grad kept", "junction"),
    "state": ("step before", "detach", "freed", "changed"), "trunk": ("trunk",),
}
LABEL_WORDS = 5   # an OCR line this short is a box's label or badge, not a paragraph
# how tesseract is asked to find the text on a full-screen shot, each read in turn (till
# what is read is enough), as a reader's eye moves from one part of the screen to the
# next: the page as one block of lines (the columns' search took the box below a detach
# bar for a picture, and read "heads." or nothing of its name; read as lines, the same
# shot gives "heads.0.0": first, as the graph's names are read best so); the page's
# columns as it finds them; sparse text (a box's label beside a bar of colour it leaves
# out of the columns)
PAGE_READINGS = (("--psm", "6"), (), ("--psm", "11"))
# the graph panel read closer a second way, its frames taken out (ImageMagick: every
# dark stroke at least 5 px thick made white): tesseract reads no word inside the thick
# black frame of a shared or focused box, whole or enlarged ("z / junction" and
# "trunk.4" on 14/1 after Ctrl+= twice), and reads them once the frame is gone; a
# letter's strokes (2-3 px here) stay
UNFRAME = ("(", "+clone", "-colorspace", "gray", "-threshold", "50%", "-negate",
           "-morphology", "Open", "Square:2", ")", "-compose", "screen", "-composite")
GAP_LINES = 1.5   # a gap between words wider than so many lines' heights parts columns
NARRATION_READ = 0.85   # of the narration's words, the share a slide's OCR must read
# of the narration's cap height, an error's explanation's and a number's the narration
# points at (OCR's boxes vary by a pixel or two)
EXPLANATION_AT_LEAST = 0.9
# the least cap height (px) of a number a slide's point rests on (the cosine matrix's
# cells): the narration's at the normal text size at 1024x768
LEAST_DIGIT_PX = 14


# the screen's pixels per Qt pixel: the status bar read is as many times higher (at 2 a
# 40 px strip cut its line in half, and no "Paused" was ever read)
SCALE = max(1, round(float(os.environ.get("QT_SCALE_FACTOR") or 1)))


# tesseract on one thread: with its default OpenMP threads on a 2-core machine that the
# app and its engine keep busy, a full-screen reading took 3.4-3.8 s, on one 0.8-1.0 s
ONE_THREAD = {"OMP_THREAD_LIMIT": "1"}


def sh(*args: str, display: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, DISPLAY=display, **ONE_THREAD)
    return subprocess.run(list(args), env=env, capture_output=True, text=kw.pop("text", True),
                          timeout=kw.pop("timeout", 60), **kw)


def narration_words(text: str) -> list[str]:
    """The narration's words a reader must see: markdown marks dropped, words of four
    letters or more (OCR reads short words and punctuation less surely). An underscore
    parts words as on screen: dropped, `retain_graph` was sought as "retaingraph",
    which no shot shows (lesson 12's slides 3 and 4 failed on it at every size)."""
    plain = re.sub(r"[*`]", "", text).replace("_", " ")
    return [w for w in re.findall(r"[A-Za-z]{4,}", plain)]


def window_id(display: str, pattern: str, timeout: float) -> str | None:
    """The gradviz window whose title matches pattern, waited for (the engine imports
    torch first on a busy machine)."""
    # --sync: xdotool itself waits until such a window exists (no polling here)
    try:
        found = sh("xdotool", "search", "--sync", "--name", pattern, display=display,
                   timeout=timeout).stdout.split()
    except subprocess.TimeoutExpired:
        return None
    return found[0] if found else None


def screen_hash(display: str) -> str:
    raw = sh("xwd", "-root", "-silent", display=display, text=False).stdout
    return hashlib.sha1(raw).hexdigest()


def status_text(display: str, path: Path, height: int) -> str:
    """OCR of the window's bottom strip (the status bar)."""
    sh("import", "-window", "root", "-gravity", "South", "-crop", f"x{height}+0+0",
       "+repage", "-resize", "200%", str(path), display=display)
    return sh("tesseract", str(path), "-", display=display).stdout


def wait_played(display: str, scratch: Path, timeout: float) -> tuple[bool, float, str]:
    """Until the slide has played: the status bar says Paused (where a slide stops: its
    last step, or PyTorch's error) and the screen stays the same for three looks. With
    the status bar's last text."""
    start = time.monotonic()
    last, same, status = None, 0, ""
    while time.monotonic() - start < timeout:
        # each look (a screen grab, then OCR of the status bar) takes a while itself,
        # so three equal looks in a row are a screen at rest, with no sleep between
        status = status_text(display, scratch, 40 * SCALE)
        now = screen_hash(display)
        same = same + 1 if now == last else 0
        last = now
        if same >= 2 and "Paused" in status:
            return True, time.monotonic() - start, status
    return False, time.monotonic() - start, status


def columns(tsv: str) -> str:
    """Tesseract's words (its tsv) as lines, a line broken where a wide gap parts its
    words: read as one block, the page ran a graph box's name on into the panel beside it
    ("heads.0.0 heads.1.0 expected version @ instead. Hint: ..."), and no name read as a
    box's own line."""
    lines: dict[tuple[str, ...], list[tuple[int, int, int, str]]] = {}
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) == 12 and cells[0] == "5" and cells[11].strip():
            left, _top, width, height = (int(c) for c in cells[6:10])
            lines.setdefault(tuple(cells[1:5]), []).append((left, width, height, cells[11]))
    out = []
    for words in lines.values():
        words.sort()
        tall = max(h for _l, _w, h, _t in words)
        part = [words[0][3]]
        for (left, width, _h, _t), (nxt, _w2, _h2, text) in zip(words, words[1:]):
            if nxt - (left + width) > GAP_LINES * tall:
                out.append(" ".join(part))
                part = []
            part.append(text)
        out.append(" ".join(part))
    return "\n".join(out)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[*`_]", "", text).lower().split())


def label_lines(ocr: str, slide: dict, lesson_title: str) -> list[str]:
    """The OCR's short lines that are no sentence's end and no title: what the graph's
    boxes, badges and cut say (searched there, the narration's own "freed" or the
    slide's title "Never detach" cannot pass for the graph's)."""
    titles = _norm(" | ".join([slide.get("title", ""), lesson_title]))
    out = []
    for line in ocr.splitlines():
        line = _norm(line)
        words = line.split()
        if words and len(words) <= LABEL_WORDS and not line.endswith(".") \
                and not (len(words) > 1 and line in titles):
            out.append(line)
    return out


def check_slide(ocr: str, slide: dict, lesson_title: str = "") -> dict:
    flat = " ".join(ocr.split())
    words = set(re.findall(r"[A-Za-z]{4,}", flat))
    wanted = narration_words(slide.get("narration", ""))
    seen = [w for w in wanted if w in words]
    out = {"narration_read": round(len(seen) / max(1, len(wanted)), 3),
           "narration_last_words": all(w in words for w in wanted[-3:]),
           "panels": {p: PANEL_WORDS.get(p, p).lower() in flat.lower()
                      for p in slide.get("panels", [])}}
    if "graph" in slide.get("panels", []):
        labels = label_lines(ocr, slide, lesson_title)
        out["modules"] = sorted({m for line in labels for m in MODULE_NAME.findall(line)})
        focus = slide.get("focus", "")
        words_for = FOCUS_WORDS.get(focus.split()[0] if focus else "", ())
        out["state_words"] = [w for w in words_for if any(w in line for line in labels)]
        out["focus"] = focus
    return out


def read_enough(read: dict) -> bool:
    """Whether a slide's reading already passes every check the walk's test makes: a
    further reading only adds words, so it could change no verdict."""
    return (read["narration_read"] >= NARRATION_READ and read["narration_last_words"]
            and all(read["panels"].values()) and read.get("modules", True) != []
            and (not read.get("focus") or bool(read["state_words"])))


def read_shot(shot: Path, slide: dict, lesson_title: str, display: str,
              graph_rect: list[int] | None = None) -> tuple[str, str]:
    """The shot's text, read each of PAGE_READINGS' ways in turn until what is read is
    enough (lesson 04's slides 1 and 2 pass on two readings and on one), and every
    page reading's word boxes (tesseract's tsv rows, each reading's under its header).
    Where the page's readings miss the graph's words, the graph panel (graph_rect, as
    the app placed it) is read on its own, enlarged, as a reader looks closer at one
    panel: on the full page tesseract missed a framed box's "trunk, step 0" (08/1) and
    "junction" (14/1) that one walk read and the next did not. Its words count for the
    checks, not for the text sizes (its boxes are not the screen's)."""
    readings: list[str] = []
    boxes: list[str] = []
    for mode in PAGE_READINGS:
        tsv = sh("tesseract", str(shot), "-", *mode, "tsv", display=display).stdout
        boxes.append(tsv)
        readings.append(columns(tsv))
        if read_enough(check_slide("\n".join(readings), slide, lesson_title)):
            return "\n".join(readings), "\n".join(boxes)
    if graph_rect is not None and "graph" in slide.get("panels", []):
        x, y, w, h = graph_rect
        closer = shot.with_name(f"{shot.stem}-graph.png")
        sh("convert", str(shot), "-crop", f"{w}x{h}+{x}+{y}", "+repage", "-resize", "200%",
           str(closer), display=display)
        unframed = shot.with_name(f"{shot.stem}-graph-unframed.png")
        sh("convert", str(shot), "-crop", f"{w}x{h}+{x}+{y}", "+repage", *UNFRAME,
           "-resize", "200%", str(unframed), display=display)
        for picture in (closer, unframed):
            for mode in (("--psm", "11"), ("--psm", "6")):
                tsv = sh("tesseract", str(picture), "-", *mode, "tsv",
                         display=display).stdout
                readings.append(columns(tsv))
                if read_enough(check_slide("\n".join(readings), slide, lesson_title)):
                    return "\n".join(readings), "\n".join(boxes)
    return "\n".join(readings), "\n".join(boxes)


def on_stage(slide: dict, geometry: dict) -> dict:
    """The slide as the stage shows it: without a panel the app left out (too low to be
    read at this text size; its rect is null). A panel the app wrote no rect for (no
    geometry yet) counts as shown."""
    rects = geometry.get("panels") or {}
    return {**slide, "panels": [p for p in slide.get("panels", [])
                                if p not in rects or rects[p] is not None]}


def read_geometry(path: Path) -> dict:
    """The stage's rects as the app wrote them last ({} before it wrote any)."""
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def same_pixels(one: Path, other: Path, rect: list[int] | None, display: str) -> bool:
    """Whether two shots show the same pixels in rect (None: no rect, not the same)."""
    if rect is None or not other.exists():
        return False
    x, y, w, h = rect
    found = sh("compare", "-metric", "AE", "-extract", f"{w}x{h}+{x}+{y}", str(one),
               str(other), "null:", display=display)
    # compare writes the count of differing pixels to stderr
    count = found.stderr.strip().split()[0] if found.stderr.strip() else ""
    return count in ("0", "0.0")


class HalfSecond:
    """The shot 0.5 s after PageDown, its OCR started at once and read back later (the
    walk goes on waiting for the slide to play meanwhile: no time added)."""

    def __init__(self, pressed: float, shot: Path, display: str):
        # not a wait for something to happen: the shot's moment is what is measured (the
        # issue's "no stale frame 0.5 s after PageDown"); a condition would move it
        time.sleep(max(0.0, pressed + HALF_SECOND - time.monotonic()))
        self.shot, self.taken = shot, time.monotonic() - pressed
        sh("import", "-window", "root", str(shot), display=display)
        env = dict(os.environ, DISPLAY=display, **ONE_THREAD)
        self.ocr = subprocess.Popen(["tesseract", str(shot), "-", "tsv"], env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    text=True)

    def text(self) -> str:
        out, _ = self.ocr.communicate(timeout=120)
        return columns(out)


def walk(lesson_path: Path, display: str, out: Path, zoom_presses: int, tag: str,
         only: int | None = None) -> list:
    """Every slide of the lesson, paged with PageDown; only: that slide (from 1) alone,
    the app started at it (`--lesson NAME:N`), its Ctrl+= presses made there."""
    lesson = tomllib.loads(lesson_path.read_text())
    name = lesson_path.stem
    slides = lesson["slides"]
    first = 0 if only is None else only - 1
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        geometry_file = Path(tmp) / "stage.json"
        env = dict(os.environ, DISPLAY=display, GRADVIZ_STAGE_GEOMETRY=str(geometry_file),
                   GRADVIZ_SETTINGS=str(Path(tmp) / "settings.json"))
        env.pop("QT_QPA_PLATFORM", None)
        at = name if only is None else f"{name}:{only}"
        app = subprocess.Popen([sys.executable, "-m", "gradviz", "--lesson", at], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               cwd=tmp)
        try:
            win = window_id(display, f"slide {first + 1}/{len(slides)}", 120)
            if win is None:
                return [{"lesson": name, "error": "no window"}]
            sh("xdotool", "windowfocus", "--sync", win, display=display)
            for _ in range(zoom_presses):   # for the back row
                sh("xdotool", "key", "--clearmodifiers", "ctrl+equal", display=display)
            before: Path | None = None   # the slide before's shot at rest
            for index, slide in enumerate(slides):
                if index < first or (only is not None and index > first):
                    continue
                half = None
                if index > first:
                    sh("xdotool", "windowfocus", "--sync", win, display=display)
                    sh("xdotool", "key", "--clearmodifiers", "Next", display=display)
                    half = HalfSecond(time.monotonic(),
                                      out / f"{tag}-{name}-{index + 1}-half.png", display)
                    if window_id(display, f"slide {index + 1}/{len(slides)}", 30) is None:
                        results.append({"lesson": name, "slide": index + 1,
                                        "error": "PageDown did not change the slide"})
                        break
                played, took, status = wait_played(display, Path(tmp) / "status.png", 240)
                shot = out / f"{tag}-{name}-{index + 1}.png"
                sh("import", "-window", "root", str(shot), display=display)
                stage = read_geometry(geometry_file)
                shown = on_stage(slide, stage)
                ocr, tsv = read_shot(shot, shown, lesson.get("title", ""), display,
                                     stage.get("panels", {}).get("graph"))
                (out / f"{shot.stem}.txt").write_text(ocr)
                (out / f"{shot.stem}.tsv").write_text(tsv)   # to measure again
                geometry = sh("xdotool", "getwindowgeometry", win, display=display).stdout
                size = re.search(r"Geometry: (\d+)x(\d+)", geometry)
                # a slide whose panels are still covered has not played, whatever the
                # status bar said (15/2's said the slide before's "Paused · step 7")
                played = played and "preparing this slide" not in ocr.lower()
                result = {"lesson": name, "slide": index + 1, "shot": str(shot),
                          "played": played, "seconds": round(took, 1),
                          "window": [int(size[1]), int(size[2])] if size else None}
                result.update(check_slide(ocr, shown, lesson.get("title", "")))
                result["left_out"] = [p for p in slide.get("panels", [])
                                      if p not in shown["panels"]]
                result.update(measure(stage, slide, tsv))
                if half is not None:
                    main = result.get("rects", {}).get(slide["panels"][0]) \
                        if slide.get("panels") else None
                    result.update(at_half_second(
                        half.text(), slide, slides[index - 1],
                        before is not None and same_pixels(half.shot, before, main, display),
                        "Paused at step" in status))
                    result["half_shot"] = str(half.shot)
                    result["half_at"] = round(half.taken, 2)   # s after PageDown
                result["verdict"] = verdict(result)
                results.append(result)
                before = shot
        finally:
            app.terminate()
            try:
                app.wait(20)
            except subprocess.TimeoutExpired:
                app.kill()
                app.wait(10)
    return results


def measure(geometry: dict, slide: dict, tsv: str) -> dict:
    """The stage's rects (as the app placed them) against the shot's word boxes: the
    named panel the largest and its title inside it, the figures' and narration's text
    heights, the smallest text the point rests on."""
    panels = slide.get("panels", [])
    if not geometry or not panels:
        return {"geometry": bool(geometry)}
    found = word_boxes(tsv)
    named = panels[0]
    out = {"geometry": True, "rects": geometry.get("panels", {})}
    out.update(named_panel(geometry, named, found, PANEL_WORDS.get(named, named)))
    out.update(text_sizes(geometry, named, found, bool(slide.get("figures")),
                          PANEL_WORDS.get(named, named)))
    out.update(explanation_sizes(geometry, found))
    out.update(pointed_digits(geometry, found, slide.get("narration", "")))
    out.update(matrix_digits(geometry, found))
    return out


def verdict(result: dict) -> str:
    """fine, partly (what fell short), or problem (not played, a stale frame)."""
    if not result.get("played") or result.get("stale"):
        return "problem: " + ", ".join((["not played"] if not result.get("played") else [])
                                      + result.get("stale", []))
    short = [what for what, ok in (
        ("narration", result["narration_read"] >= NARRATION_READ
         and result["narration_last_words"]),
        ("panel titles", all(result["panels"].values())),
        ("named panel not largest", result.get("named_largest", True)),
        ("named panel's title not in its rect", result.get("named_seen", True)),
        ("figures smaller than the narration", result.get("figures_ok", True)),
        ("explanation not whole", result.get("explanation_whole", True)
         and result.get("explanation_read", True)),
        ("explanation smaller than the narration", explanation_ok(result)),
        ("a number pointed at smaller than the narration",
         result.get("pointed_px") is None or result.get("narration_px") is None
         or result["pointed_px"] >= EXPLANATION_AT_LEAST * result["narration_px"]),
        ("matrix numbers unread or below 14 px", matrix_ok(result)),
        ("module names", result.get("modules", True) != []),
        ("focus state", not result.get("focus") or bool(result.get("state_words"))))
        if not ok]
    return "partly: " + ", ".join(short) if short else "fine"


def matrix_ok(result: dict) -> bool:
    """The cosine matrix's cells' numbers, where it is shown: read, their capitals at
    least LEAST_DIGIT_PX (less OCR's pixel or two): the narration's own height at the
    normal text size on a 1024x768 screen, which a scaled screen's and a larger text
    size's stage never goes below. Not the narration's as shown: it grows with its
    room (21 px beside 11/2's four heads at QT_SCALE_FACTOR=2), the cells with theirs."""
    if "matrix_read" not in result:
        return True
    px = result.get("matrix_px")
    return px is not None and px >= EXPLANATION_AT_LEAST * LEAST_DIGIT_PX


def explanation_ok(result: dict) -> bool:
    """An error's explanation read as the narration is: its body's capitals at least
    EXPLANATION_AT_LEAST of the narration's (OCR's boxes vary by a pixel or two), its
    headline's larger."""
    body, head = result.get("explanation_px"), result.get("explanation_headline_px")
    narration = result.get("narration_px")
    if "explanation_whole" not in result or narration is None:
        return True
    return (body is not None and head is not None and body >= EXPLANATION_AT_LEAST * narration
            and head > body)


def table(results: list[dict]) -> str:
    """The closing note's table: slide, verdict, smallest text the point rests on."""
    rows = ["| slide | verdict | smallest text (px, word) | narration px | "
            "explanation px (headline/body) | number pointed at (px) | matrix px (read) |",
            "|---|---|---|---|---|---|---|"]
    for r in results:
        where = f"{r['lesson'][:2]}/{r.get('slide', '?')}"
        if "error" in r:
            rows.append(f"| {where} | problem: {r['error']} | | | | | |")
            continue
        px, word = r.get("smallest_text_px"), r.get("smallest_text_word")
        out = f" ({', '.join(r['left_out'])} left out)" if r.get("left_out") else ""
        told = (f"{r.get('explanation_headline_px')}/{r.get('explanation_px')}"
                + ("" if r.get("explanation_whole") else ", scrolled")
                if "explanation_whole" in r else "–")
        pointed = (f"{r['pointed_px']} ({r['pointed_word']})" if r.get("pointed_px")
                   else "–")
        matrix = (f"{r.get('matrix_px') or '–'} ({r['matrix_read']})" if "matrix_read" in r
                  else "–")
        rows.append(f"| {where} | {r['verdict']}{out} | {f'{px} ({word})' if px else '–'} "
                    f"| {r.get('narration_px') or '–'} | {told} | {pointed} | {matrix} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--display", default=os.environ.get("DISPLAY", ":0"))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--zoom", type=int, default=0, help="Ctrl+= presses at the start")
    parser.add_argument("lessons", nargs="*", help="lesson names (default: every one)")
    parser.add_argument("--table", type=Path, metavar="JSON",
                        help="print the table of a walk's JSON output and stop")
    args = parser.parse_args(argv)
    if args.table:
        print(table(json.loads(args.table.read_text().strip().splitlines()[-1])))
        return 0
    if args.out is None:
        parser.error("--out is needed for a walk")
    args.out.mkdir(parents=True, exist_ok=True)
    names = args.lessons or sorted(p.stem for p in LESSONS.glob("*.toml"))
    dims = sh("xdpyinfo", display=args.display).stdout
    found = re.search(r"dimensions:\s+(\d+x\d+)", dims)
    scale = os.environ.get("QT_SCALE_FACTOR", "")   # a high-DPI screen's walk
    tag = f"{found[1] if found else 'screen'}-zoom{args.zoom}" + (f"-scale{scale}"
                                                                    if scale else "")
    results = []
    for named in names:
        name, _, slide = named.partition(":")   # NAME:N, slide N alone
        results += walk(LESSONS / f"{name}.toml", args.display, args.out, args.zoom, tag,
                        int(slide) if slide else None)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
