"""A deck and the end of a lesson in the lesson controller, against fakes (no window, no
engine process): each deck slide as its lesson plays it or as a card of text with no
engine, the end said on the stage, the window's title, and leaving, which gives back the
window and the run from before (trained again where the same config gives the same
steps)."""
import dataclasses

from gradviz.plain.config.config import Config
from gradviz.plain.controllers.lesson_controller import END_WORDS
from gradviz.plain.lessons.decks import Deck, LessonSlide, TextSlide
from gradviz.plain.lessons.lessons import Lesson
from gradviz.plain.window.window_model import WindowModel

from controller_fakes import FIRST, LESSON, SECOND, A, rig

OTHER = Lesson("98-other", "Other", (SECOND, FIRST))
TITLE = TextSlide("A talk", "Three **losses**.")
RECAP = TextSlide("Recap", "- one\n- two")
DECK = Deck("talk", "My talk", (TITLE, LessonSlide(LESSON, 0), LessonSlide(OTHER, 1),
                                LessonSlide(LESSON, 1), RECAP))
MINE = A.replace(lr=0.01, strategy="in-loop")


def test_a_deck_plays_its_text_slides_without_the_engine_and_its_lessons_slides_as_they_are():
    r = rig(WindowModel(requested=MINE, confirmed=MINE, pace_ms=5))
    player, m = r.lessons, r.model
    player.open_deck(DECK)
    # a card of text: the stage shown (the model names the deck), no panel, Play paused
    assert r.cards.shown == ("A talk", "Three **losses**.") and player.staging
    assert (m.lesson, m.slide, m.panels) == ("talk", None, ())
    assert r.calls.named("show_slide") == [] and r.calls.named("pause") == [()]
    assert r.titles.title == "gradviz — My talk — 1/5: A talk"
    assert player.settings_before == (MINE, 5)
    player.next()                                      # the lesson's first slide
    assert r.cards.shown is None and (m.lesson, m.slide) == ("99-made-here", 0)
    assert r.calls.named("show_slide")[-1][0] == FIRST.config
    assert r.titles.title == "gradviz — 2/5 — Made here — slide 1/3: First x.grad"
    player.next()                                      # another lesson's second slide
    assert (m.lesson, m.slide, m.requested) == ("98-other", 1, FIRST.config)
    assert r.titles.title == "gradviz — 3/5 — Other — slide 2/2: First x.grad"
    player.next()                          # keep = "ghost": its lesson's slide 1, kept
    assert r.chart.ghost is not None and r.chart.ghost is player.runs[("99-made-here", 0)]
    player.next()                                      # the recap
    assert r.cards.shown == ("Recap", "- one\n- two") and r.chart.ghost is None
    assert r.calls.named("pause") == [(), ()]


def test_page_down_on_a_decks_last_slide_says_it_is_the_end_and_page_up_goes_back():
    r = rig()
    player = r.lessons
    player.open_deck(DECK, 4)                          # the recap
    player.next()
    assert r.cards.shown == ("End of the deck", END_WORDS) and player.ended == "deck"
    assert r.titles.title == "gradviz — My talk — end of the deck"
    player.next()                                      # the end stays the end
    assert player.ended == "deck" and r.calls.order().count("card") == 2
    player.previous()                                  # the recap, as it was
    assert r.cards.shown == ("Recap", "- one\n- two") and player.ended is None
    assert r.titles.title == "gradviz — My talk — 5/5: Recap"
    player.previous()                                  # a lesson's slide, played again
    assert r.cards.shown is None and r.model.slide == 1
    player.open_deck(DECK, 3)
    player.first()                                     # Home: the deck's first slide
    assert r.cards.shown == ("A talk", "Three **losses**.") and player.position == 0


def test_the_end_of_a_lesson_file_is_said_over_its_last_slide():
    r = rig()
    r.lessons.open(LESSON, 2)
    shown = len(r.calls.named("show_slide"))
    r.lessons.next()
    assert r.cards.shown == ("End of the lesson", END_WORDS) and r.model.slide == 2
    assert r.titles.title == "gradviz — Made here — end of the lesson"
    assert len(r.calls.named("show_slide")) == shown      # the slide goes on as it was
    r.lessons.previous()
    assert r.cards.shown is None and r.titles.title.endswith("slide 3/3: Third")
    r.lessons.next()
    r.lessons.leave()                                  # Esc from the end: out
    assert r.cards.shown is None and r.model.lesson is None and r.lessons.ended is None


def test_open_named_takes_name_colon_n():
    r = rig()
    r.lessons.open_named("backward-twice:2")
    assert (r.model.lesson, r.model.slide) == ("02-backward-twice", 1)
    assert r.titles.title.startswith("gradviz — Backward through a freed graph, and "
                                     "retain_graph — slide 2/2: ")


def test_a_setting_changed_before_the_first_step_changes_no_step():
    m = WindowModel(requested=MINE, confirmed=MINE, pace_ms=5)
    r = rig(m)
    m.generation += 1
    m.confirmed = m.requested = MINE.replace(lr=0.5)   # the settings, then Play
    m.step = 3
    r.lessons.open(LESSON)
    r.lessons.leave()
    (config, _, steps), = r.calls.named("train_again")
    assert (config, steps) == (MINE.replace(lr=0.5), 3)


def test_leaving_trains_the_run_from_before_the_lesson_again_on_its_config():
    m = WindowModel(requested=MINE, confirmed=MINE, pace_ms=200, play_mode="phases")
    r = rig(m)
    m.generation += 1                                  # a fresh model on MINE, 7 steps
    m.step = 7
    r.graph.module_view = False                        # the user's op view
    r.lessons.open_deck(DECK)
    r.lessons.next()
    r.lessons.next()
    r.lessons.leave()
    (config, settings, steps), = r.calls.named("train_again")
    assert (config, steps, settings.delay_ms, settings.animate_phases) == (MINE, 7, 200, True)
    assert (m.requested, m.pace_ms, m.play_mode) == (MINE, 200, "phases")
    assert not r.graph.module_view
    # told to the engine before the model says it: nothing is sent twice
    (_, _, then), = [s for s in r.calls.seen if s[0] == "train_again"]
    assert then["requested"] == FIRST.config and then["lesson"] is None


def test_a_run_whose_settings_changed_mid_run_is_not_trained_again():
    m = WindowModel(requested=MINE, confirmed=MINE, pace_ms=5)
    r = rig(m)
    m.generation += 1
    m.confirmed = m.requested = MINE.replace(lr=0.02)  # set up before Play: no step changed
    m.step = 4
    m.confirmed = m.requested = MINE.replace(lr=0.5)   # applied at a step's end, mid-run
    r.lessons.open(LESSON)
    r.lessons.leave()
    (config, _, steps), = r.calls.named("train_again")
    assert (config, steps) == (MINE.replace(lr=0.5), 0)   # its settings, a fresh model


def test_a_lessons_model_file_gives_way_to_the_built_in_model_on_leaving():
    r = rig(WindowModel(requested=MINE, confirmed=MINE, pace_ms=5))
    on_file = Lesson("14-cnn", "CNN", (dataclasses.replace(FIRST, model_file="cnn_two_heads"),))
    r.lessons.open(on_file)
    path = r.calls.named("open_model")[0][0]
    assert path.endswith("cnn_two_heads.py")
    r.model.model_path = path                          # the engine says it trains it
    r.lessons.leave()
    assert r.calls.named("open_model")[-1] == (None, MINE)   # first: it is sent MINE
    order = r.calls.order()
    assert order.index("train_again") > len(order) - 1 - order[::-1].index("open_model")


def test_a_deck_of_only_text_puts_nothing_aside_twice():
    r = rig(WindowModel(requested=Config(heads=2), pace_ms=5))
    deck = Deck("t", "T", (TITLE, RECAP))
    r.lessons.open_deck(deck)
    r.lessons.next()
    assert r.lessons.settings_before == (Config(heads=2), 5)
    r.lessons.leave()
    assert r.model.lesson is None and r.cards.shown is None
    assert r.calls.named("open_model") == [] and len(r.calls.named("train_again")) == 1
    r.lessons.leave()                                  # once only
    assert len(r.calls.named("train_again")) == 1
