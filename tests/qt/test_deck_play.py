"""A deck in the window, played as a lecturer with a clicker plays it: opened from the
Lessons menu, then PageDown alone, each slide shown (a lesson's slide prepared and on the
stage, a title or recap slide's large text), and PageDown on the last saying it is the
end of the deck; and the end of a lesson said the same way."""
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QTextDocument

from gradviz.plain.lessons.decks import LessonSlide, TextSlide, deck_slide_title, find_deck
from gradviz.plain.lessons.lessons import title_text

from shared_window import shared_window_fixture, window_fixture  # noqa: F401
from waits import WAIT_MS


def card_says(w) -> str:
    card = w.lessons.stage.card
    return card.plain_text() if card.isVisible() else ""


def test_the_bundled_deck_plays_end_to_end_with_page_down_alone(qtbot, window):
    w = window
    w.drawn_off_screen = True   # laid out as on a 1280x720 projector
    w.resize(1280, 720)
    deck = find_deck("several-losses")
    assert len(deck.slides) == 20 and len(deck.lessons) == 8
    w.findChild(QAction, "deck_several-losses").trigger()       # Lessons → Deck: …
    seen = []
    for i, slide in enumerate(deck.slides):
        if i:
            qtbot.keyClick(w, Qt.Key_PageDown)
        assert w.windowTitle() == deck_slide_title(deck, i)
        # shown: a lesson's slide once its first state is drawn, a card at once
        qtbot.waitUntil(lambda: w.model.preparing is None, timeout=WAIT_MS)
        assert w.lessons.stage.isVisible()
        if isinstance(slide, TextSlide):
            said = card_says(w)
            assert said.startswith(slide.title) and slide.text.split()[0] in said
            assert w.model.panels == ()
            qtbot.waitUntil(lambda: not w.model.running, timeout=WAIT_MS)   # no engine
            seen.append(("text", slide.title))
        else:
            assert isinstance(slide, LessonSlide)
            lesson_slide = slide.lesson.slides[slide.index]
            assert card_says(w) == ""
            assert (w.model.lesson, w.model.slide) == (slide.lesson.name, slide.index)
            assert w.model.panels == lesson_slide.panels
            main = w.lessons.stage.slots[lesson_slide.panels[0]]
            assert main.isVisible() and main.width() > 200
            heading = QTextDocument()
            heading.setHtml(w.lessons.narration.heading.text())
            assert title_text(lesson_slide.title) in heading.toPlainText()
            seen.append((slide.lesson.name, slide.index))
    assert len(seen) == 20 and len({s[0] for s in seen if s[0] != "text"}) == 8
    qtbot.keyClick(w, Qt.Key_PageDown)                 # past the last slide
    assert card_says(w).lower().startswith("end of the deck")
    assert w.windowTitle().endswith("end of the deck")
    qtbot.keyClick(w, Qt.Key_PageDown)                 # still the end, nothing else
    assert card_says(w).lower().startswith("end of the deck")
    qtbot.keyClick(w, Qt.Key_PageUp)                   # the recap again
    assert card_says(w).startswith("Recap")
    qtbot.keyClick(w, Qt.Key_Escape)
    qtbot.waitUntil(lambda: not w.lessons.stage.isVisible(), timeout=WAIT_MS)
    assert not w.lessons.stage.card.isVisible() and w.model.lesson is None


def test_page_down_on_a_lesson_files_last_slide_says_it_is_the_end(qtbot, window, tmp_path):
    w = window
    path = tmp_path / "mine.toml"
    path.write_text('title = "Mine"\n[[slides]]\ntitle = "Only"\nnarration = "n"\n'
                    'config = { heads = 2 }\npanels = ["loss"]\nstop = 2\n')
    assert w.lessons.open_file(str(path))              # File → Open a lesson…
    qtbot.waitUntil(lambda: w.model.preparing is None, timeout=WAIT_MS)
    qtbot.keyClick(w, Qt.Key_PageDown)                 # its one slide was the last
    assert card_says(w).lower().startswith("end of the lesson")
    assert w.lessons.stage.card.geometry() == w.lessons.stage.rect()
    assert w.windowTitle() == "gradviz — Mine — end of the lesson"
    qtbot.keyClick(w, Qt.Key_PageUp)                   # the slide, as it was left
    assert card_says(w) == "" and w.lessons.stage.isVisible()
    assert w.windowTitle() == "gradviz — Mine — slide 1/1: Only"
