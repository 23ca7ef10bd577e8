"""A lecturer's walk through the bundled lessons on a real X server, from outside the app:
start `gradviz --lesson NAME`, page every slide with PageDown alone (as a clicker sends
it, through xdotool), wait until the slide has played, take a full-screen shot and read
it with tesseract, as a seat in the hall would. Per slide it reports (JSON) whether the
OCR reads the graph's module names and the state words the slide's focus is about,
whether the narration is on screen whole, and whether every panel the slide names shows
its title.

    python tests/qt/lecture_walk.py --display :7 --out /tmp/shots [--zoom 2] [LESSON...]

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

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ROOT / "resources" / "lessons"
TOOLS = ("xdotool", "import", "tesseract", "xwd", "xdpyinfo")

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
# before's box, the cut, or what became of the step before's graph
FOCUS_WORDS = {
    "cut": ("detach",), "freed": ("freed",), "changed": ("changed in place",),
    "junction": ("z.grad kept",), "state": ("step before", "detach", "freed", "changed"),
    "trunk": ("trunk",),
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
GAP_LINES = 1.5   # a gap between words wider than so many lines' heights parts columns
NARRATION_READ = 0.85   # of the narration's words, the share a slide's OCR must read


def sh(*args: str, display: str, **kw) -> subprocess.CompletedProcess:
    env = dict(os.environ, DISPLAY=display)
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


def wait_played(display: str, scratch: Path, timeout: float) -> tuple[bool, float]:
    """Until the slide has played: the status bar says Paused (where a slide stops: its
    last step, or PyTorch's error) and the screen stays the same for three looks."""
    start = time.monotonic()
    last, same = None, 0
    while time.monotonic() - start < timeout:
        # each look (a screen grab, then OCR of the status bar) takes a while itself,
        # so three equal looks in a row are a screen at rest, with no sleep between
        paused = "Paused" in status_text(display, scratch, 40)
        now = screen_hash(display)
        same = same + 1 if now == last else 0
        last = now
        if same >= 2 and paused:
            return True, time.monotonic() - start
    return False, time.monotonic() - start


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


def read_shot(shot: Path, slide: dict, lesson_title: str, display: str) -> str:
    """The shot's text, read each of PAGE_READINGS' ways in turn until what is read is
    enough (lesson 04's slides 1 and 2 pass on two readings and on one)."""
    readings: list[str] = []
    for mode in PAGE_READINGS:
        readings.append(columns(sh("tesseract", str(shot), "-", *mode, "tsv",
                                   display=display).stdout))
        if read_enough(check_slide("\n".join(readings), slide, lesson_title)):
            break
    return "\n".join(readings)


def walk(lesson_path: Path, display: str, out: Path, zoom_presses: int, tag: str) -> list:
    lesson = tomllib.loads(lesson_path.read_text())
    name = lesson_path.stem
    slides = lesson["slides"]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, DISPLAY=display,
                   GRADVIZ_SETTINGS=str(Path(tmp) / "settings.json"))
        env.pop("QT_QPA_PLATFORM", None)
        app = subprocess.Popen([sys.executable, "-m", "gradviz", "--lesson", name], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               cwd=tmp)
        try:
            win = window_id(display, f"slide 1/{len(slides)}", 120)
            if win is None:
                return [{"lesson": name, "error": "no window"}]
            sh("xdotool", "windowfocus", "--sync", win, display=display)
            for _ in range(zoom_presses):   # for the back row
                sh("xdotool", "key", "--clearmodifiers", "ctrl+equal", display=display)
            for index, slide in enumerate(slides):
                if index:
                    sh("xdotool", "windowfocus", "--sync", win, display=display)
                    sh("xdotool", "key", "--clearmodifiers", "Next", display=display)
                    if window_id(display, f"slide {index + 1}/{len(slides)}", 30) is None:
                        results.append({"lesson": name, "slide": index + 1,
                                        "error": "PageDown did not change the slide"})
                        break
                played, took = wait_played(display, Path(tmp) / "status.png", 240)
                shot = out / f"{tag}-{name}-{index + 1}.png"
                sh("import", "-window", "root", str(shot), display=display)
                ocr = read_shot(shot, slide, lesson.get("title", ""), display)
                (out / f"{shot.stem}.txt").write_text(ocr)
                geometry = sh("xdotool", "getwindowgeometry", win, display=display).stdout
                size = re.search(r"Geometry: (\d+)x(\d+)", geometry)
                result = {"lesson": name, "slide": index + 1, "shot": str(shot),
                          "played": played, "seconds": round(took, 1),
                          "window": [int(size[1]), int(size[2])] if size else None}
                result.update(check_slide(ocr, slide, lesson.get("title", "")))
                results.append(result)
        finally:
            app.terminate()
            try:
                app.wait(20)
            except subprocess.TimeoutExpired:
                app.kill()
                app.wait(10)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--display", default=os.environ.get("DISPLAY", ":0"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--zoom", type=int, default=0, help="Ctrl+= presses at the start")
    parser.add_argument("lessons", nargs="*", help="lesson names (default: every one)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    names = args.lessons or sorted(p.stem for p in LESSONS.glob("*.toml"))
    dims = sh("xdpyinfo", display=args.display).stdout
    found = re.search(r"dimensions:\s+(\d+x\d+)", dims)
    tag = f"{found[1] if found else 'screen'}-zoom{args.zoom}"
    results = []
    for name in names:
        results += walk(LESSONS / f"{name}.toml", args.display, args.out, args.zoom, tag)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
