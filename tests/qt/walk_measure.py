"""What a lecturer's walk measures on a screenshot beyond the words it reads: tesseract's
word boxes (its tsv) set against the rects the app says its stage's parts have
(GRADVIZ_STAGE_GEOMETRY), for the named panel's size and title, the figures' text height
against the narration's, the smallest text the slide's point rests on, and whether the
shot taken 0.5 s after PageDown shows the new slide or the one before."""
from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

# a word whose box is as high as a capital: letters and digits with no descender
# (g, j, p, q, y reach below the line) and one ascender at least (a capital, a digit,
# b d f h k l t; a hyphen or minus between, as in "all-reduces" or "−0.03"): its box
# height is the text's cap height, whatever the word
CAP_WORD = re.compile(r"^(?=.*[A-Z0-9bdfhklt])[A-Za-z0-9.,:×%\-−]+$")
NO_DESCENDER = re.compile(r"^[^gjpqy]+$")
LEAST_CONF = 60          # tesseract's confidence below which a word's box is not trusted
FIGURES_AT_LEAST = 0.95  # of the narration's cap height (OCR's boxes vary by a pixel)
TITLE_READ = 0.6         # of a title's words, the share that shows it on screen
# a panel's own chrome, not what its point rests on: the graph's caption ("Graph paused ·
# 17 boxes") and buttons, a chart's check boxes
CHROME = frozenset({"graph", "paused", "boxes", "box", "modules", "fit", "export", "error",
                    "log", "scale", "smooth", "the", "at"})


@dataclass(frozen=True)
class Word:
    left: int
    top: int
    width: int
    height: int
    conf: float
    text: str

    def within(self, rect: list[int] | None) -> bool:
        """Its centre inside rect ([x, y, w, h]; None: nowhere)."""
        if rect is None:
            return False
        x, y = self.left + self.width / 2, self.top + self.height / 2
        return rect[0] <= x < rect[0] + rect[2] and rect[1] <= y < rect[1] + rect[3]


def words(tsv: str) -> list[Word]:
    """Tesseract's words (level 5 rows of its tsv)."""
    out = []
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) == 12 and cells[0] == "5" and cells[11].strip():
            left, top, width, height = (int(c) for c in cells[6:10])
            out.append(Word(left, top, width, height, float(cells[10]), cells[11].strip()))
    return out


def cap_heights(found: list[Word]) -> list[int]:
    """The box heights of the trusted words that stand as high as a capital."""
    return [w.height for w in found if w.conf >= LEAST_CONF and len(w.text) >= 2
            and CAP_WORD.match(w.text) and NO_DESCENDER.match(w.text)]


def cap_height(found: list[Word]) -> float | None:
    heights = cap_heights(found)
    return statistics.median(heights) if heights else None


def area(rect: list[int] | None) -> int:
    return 0 if rect is None else rect[2] * rect[3]


def named_panel(geometry: dict, named: str, found: list[Word], title: str) -> dict:
    """The slide's named panel: the largest on screen (by the rects the app placed), and
    its title read inside its own rect (so the rect is where the shot shows it)."""
    rects = geometry.get("panels", {})
    mine = rects.get(named)
    # no exception for What happened: an error slide names it (it needs more of the
    # stage than the graph beside it, and the rule once let it be larger than the panel
    # the slide named)
    others = [area(r) for name, r in rects.items() if name != named]
    longest = max(title.split(), key=len).lower()
    return {"named_largest": mine is not None and all(area(mine) >= a for a in others),
            "named_seen": any(longest in w.text.lower() for w in found if w.within(mine)),
            "panel_areas": {name: area(r) for name, r in rects.items()}}


def text_sizes(geometry: dict, named: str, found: list[Word], has_figures: bool,
               title: str = "") -> dict:
    """The narration's cap height, the figures' (at least the narration's where the
    slide has figures), and the smallest text the point rests on: the figures' words
    and the named panel's labels (words with a letter: its title, legend, axis titles,
    a graph's box names), each word's own height."""
    figures_rect = geometry.get("figures")
    narration = [w for w in found if w.within(geometry.get("narration"))
                 and not w.within(figures_rect)]
    figures = [w for w in found if w.within(figures_rect)]
    chrome = CHROME | {t.lower() for t in title.split()}
    panel = [w for w in found if w.within(geometry.get("panels", {}).get(named))
             and re.search(r"[A-Za-z]{2}", w.text)
             and w.text.lower().strip(".,:·") not in chrome]
    narration_px, figures_px = cap_height(narration), cap_height(figures)
    out: dict = {"narration_px": narration_px, "figures_px": figures_px}
    if has_figures:
        out["figures_ok"] = (figures_px is not None and narration_px is not None
                             and figures_px >= FIGURES_AT_LEAST * narration_px)
    # a word of three characters at least: OCR reads a legend's line or marker as "xX"
    # or "SY" (10/3, 09/4), no text of the slide's
    rested = [(h, w.text) for w in figures + panel if len(w.text) >= 3
              for h in cap_heights([w])]
    smallest = min(rested, default=None)
    out["smallest_text_px"] = smallest[0] if smallest else None
    out["smallest_text_word"] = smallest[1] if smallest else None
    return out


def explanation_sizes(geometry: dict, found: list[Word]) -> dict:
    """An error's explanation as read on screen (the rect the app says it is read in):
    its headline's cap height (its first line's words), its body's (the median of the
    rest: PyTorch's message, Why, What to do), whether Why and What to do are read in
    view, and whether the app says it is whole there. {} where none is on the stage."""
    text = (geometry.get("texts") or {}).get("events")
    if not text or text.get("rect") is None:
        return {}
    inside = sorted((w for w in found if w.within(text["rect"])), key=lambda w: w.top)
    if not inside:
        return {"explanation_whole": text.get("whole"), "explanation_read": False}
    # the headline's line found by a trusted word: a speck OCR read above it ("nl", 31 px
    # high at 28% on 07/1 at 1280x720) was taken for the line, and no headline was read
    first = next((w for w in inside if w.conf >= LEAST_CONF), inside[0])
    headline = [w for w in inside if abs(w.top - first.top) < first.height / 2]
    body = [w for w in inside if w not in headline]
    said = " ".join(w.text for w in inside).lower()
    return {"explanation_headline_px": max(cap_heights(headline), default=None),
            "explanation_px": cap_height(body),
            "explanation_whole": text.get("whole"),
            "explanation_read": "why:" in said and "do:" in said}


# a number a narration points at: with a decimal point ("0.161", "−0.0049", "+0.00096");
# a count ("step 3") may be anywhere on screen, a setting ("lr 0.05") nowhere
POINTED = re.compile(r"[−+-]?\d+\.\d+")


def _number(text: str) -> str:
    return text.replace("−", "-").replace("+", "").lstrip("-")


def pointed_digits(geometry: dict, found: list[Word], narration: str) -> dict:
    """The numbers the narration names, as read on screen outside the narration (in a
    panel, the figures, the line under a matrix): the smallest cap height of any of
    them, and which ({} where none is read: a number the run does not show)."""
    wanted = {_number(n) for n in POINTED.findall(narration)}
    rect = geometry.get("narration")
    read = [(h, w.text) for w in found if not w.within(rect)
            and _number(w.text.strip("()[],:;·×'\"")) in wanted
            for h in cap_heights([w])]
    if not read:
        return {}
    px, word = min(read)
    return {"pointed_px": px, "pointed_word": word}


# a cosine matrix cell's number as drawn ("0.13", "−0.05", "1.00")
CELL_NUMBER = re.compile(r"^[−-]?[01]\.\d\d$")


def matrix_digits(geometry: dict, found: list[Word]) -> dict:
    """The cosine matrix's cells' numbers as read inside the rect the app says its cells
    are drawn in, where it is on the stage: the smallest cap height of those read, and
    how many ({} where none is shown). At QT_SCALE_FACTOR=2 on 1280x720 13/2's cells
    were 20 px squares, their numbers drawn over each other, and the walk said fine:
    nothing it measured was in them."""
    rect = (geometry.get("matrices") or {}).get("cosine")
    if rect is None:
        return {}
    read = [(h, w.text) for w in found if w.within(rect) and CELL_NUMBER.match(w.text)
            for h in cap_heights([w])]
    return {"matrix_px": min(read)[0] if read else None, "matrix_read": len(read)}


def title_words(title: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]{4,}", title.replace("_", " "))}


def shows_title(text: str, title_set: set[str]) -> bool:
    seen = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", text)}
    return bool(title_set) and len(title_set & seen) >= TITLE_READ * len(title_set)


def at_half_second(text: str, slide: dict, before: dict, panel_unchanged: bool,
                   error_slide: bool) -> dict:
    """The shot 0.5 s after PageDown: the new slide's title; never the slide before's
    title, its panel as it was (unchanged pixels, no "preparing" cover), nor "Nothing
    went wrong" on a slide that fails, while its status line names nothing it ran (a
    phase slide's forward done at 0.5 s has gone right so far: 04/2, 08/2, 12/7)."""
    new = title_words(slide.get("title", ""))
    lower = " ".join(re.sub(r"[*`_]", " ", text).lower().split())
    # the slide before's title as a phrase: its words alone are in the lesson's title and
    # the new narration too
    old = " ".join(re.sub(r"[*`_]", " ", before.get("title", "")).lower().split())
    preparing = "preparing" in lower
    nothing_wrong = "nothing went wrong" in lower
    ran = bool(re.search(r"just done|step \d+ done", lower))
    reasons = []
    if not shows_title(text, new):
        reasons.append("no new title")
    if old and old in lower:
        reasons.append("previous title")
    if not preparing and panel_unchanged:
        reasons.append("previous panel")
    if not preparing and nothing_wrong and error_slide and not ran:
        reasons.append("nothing went wrong before it ran")
    return {"preparing_at_half": preparing, "ran_at_half": ran, "stale": reasons}
