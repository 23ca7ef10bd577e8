"""A lesson (or a deck) in the window, without the window: which slide is on (PageDown /
PageUp, Home, leaving), and what each slide writes into the window's model and asks of the
engine, the stage, the graph, the charts' ghosts, the narration and the title bar
(controller_views). Leaving gives the window back as it was before
(plain.controllers.lesson_before)."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from ..config.config import Config
from ..graph.sweep_pace import box_ms
from ..lessons.decks import Deck, TextSlide, deck_slide_title
from ..lessons.lesson_at import find_lesson_at
from ..lessons.lesson_figures import figure_text
from ..lessons.lesson_references import REFERENCE_PANELS, reference_lines
from ..lessons.lessons import Lesson, Slide, title_text
from ..records.engine_settings import EngineSettings
from ..records.history import History
from ..stage.stage_layout import Placement
from ..window.window_model import WindowModel, nearest_pace_ms
from .controller_views import (
    Cards,
    Ghosts,
    GraphFraming,
    Narration,
    ReferenceLines,
    SlideEngine,
    StageView,
    Titles,
)
from .lesson_before import RunTrack, WindowBefore, give_back
from .slide_ahead import SlideAhead, next_place, slide_model_path
from .slide_preparing import SlidePreparing

BASE_TITLE = "gradviz — autograd with several losses"
# px at text size 1: a graph panel narrower shows no key (beside a 620 px graph at
# 1024x768 the key took 240 px and the graph's heads were cut off; its boxes say their
# state in words, "freed", "changed in place", and the narration says what is drawn)
KEY_LEAST_WIDTH = 900
# of its least size, how far a secondary panel gives way to the main one after Ctrl+=
# before the text size counts as too large (a chart at half its least height still shows
# its lines and axis)
SECONDARY_AT_LEAST = 0.5
# PageDown past the very last slide: said on the stage (nothing happening read as a
# clicker out of battery), as a slide deck's "end of slide show"
END_WORDS = "PageUp goes back to the last slide; Esc leaves."


@dataclass(frozen=True)
class LessonViews:
    """What a lesson drives, handed over by the window (which owns them all)."""
    engine: SlideEngine
    stage: StageView
    graph: GraphFraming
    ghosts: Ghosts                    # the charts a keep = "ghost" slide draws on
    references: ReferenceLines        # the charts a slide draws reference lines on
    narration: Narration
    titles: Titles
    history: Callable[[], History]    # the run on screen now (kept for a ghost)
    # run a check once the events pending now are handled (the stage's room settles)
    later: Callable[[Callable[[], None]], None]
    cards: Cards                      # a deck's slides of text, the end of the deck


def slide_title(lesson: Lesson, index: int) -> str:
    """The window's title on a slide: the lesson, where in it, the slide."""
    return (f"gradviz — {title_text(lesson.title)} — slide {index + 1}/"
            f"{len(lesson.slides)}: {title_text(lesson.slides[index].title)}")


def free_title(model_name: str) -> str:
    """The window's title out of a lesson: the model file that trains, if one does."""
    return f"gradviz — {model_name}" if model_name else BASE_TITLE


def slide_settings(slide: Slide, model: WindowModel) -> EngineSettings:
    """The engine's settings on a slide: its pace, play mode and stop, and per-node
    gradients only where the slide shows the graph (they cost hooks; the window's rule
    then writes the same into the model, so nothing is sent twice); saved tensors as the
    window has them."""
    return dataclasses.replace(
        model.engine_settings(), delay_ms=nearest_pace_ms(slide.pace),
        animate_phases=slide.play == "phases", sweep_box_ms=box_ms(slide.sweep_pace),
        stop_at=slide.stop if isinstance(slide.stop, int) else None,
        track_node_grads="graph" in slide.panels)


def cramped(placement: Placement) -> bool:
    """The narration scrolling or set smaller than the text size, the main panel smaller
    than at the normal text size (the secondary panels give way first), a secondary one
    below SECONDARY_AT_LEAST of its least size, or a text panel (an error's What
    happened) cut even at the normal text size's font: the text size is too large for
    the slide."""
    return placement.fits < SECONDARY_AT_LEAST or not placement.narration_whole \
        or not placement.main_kept or placement.narration_scale < 1 \
        or not placement.text_whole


class LessonController:
    def __init__(self, model: WindowModel, views: LessonViews):
        # the one writer of lesson, slide, panels, named_metrics, focus (and focus_facts),
        # text_too_large
        self.model = model
        self.views = views
        self.lesson: Lesson | None = None   # the lesson whose slide is on screen
        self.index = 0
        self.deck: Deck | None = None       # the deck played (None: a lesson alone)
        self.position = 0                   # the deck's slide on screen, from 0
        self.card: TextSlide | None = None  # a deck's slide of text on screen
        # "deck" or "lesson": PageDown went past the very last slide, and the stage says so
        self.ended: str | None = None
        # the window as the user had it before the lesson (its settings and pace, not a
        # slide's, are what quitting mid-lesson remembers; leaving gives it all back)
        self.before: WindowBefore | None = None
        self.run_track = RunTrack(model)    # whether the run on screen can be had again
        # the model file the engine trains for the lesson (None: the built-in model): a
        # slide naming another one starts a fresh engine on it
        self._training: str | None = None
        self._lesson_files: set[str] = set()   # the files the lesson itself opened
        # each slide's run as it was left ((lesson, slide index) -> History): a slide that
        # keeps the one before as a ghost draws that run, dashed, on its own axes
        self.runs: dict[tuple[str, int], History] = {}
        self._on_screen: tuple[str, int] | None = None   # the slide shown, by the same key
        self._zoom_asked = False   # the text size changed on this slide: is it still whole?
        self._ghosted = False      # the charts draw a slide's ghost (not Compare's B)
        # until a slide's first state is in, the stage says what is being done instead of
        # showing the slide before's data or empty charts (the window tells it the news)
        self.preparing = SlidePreparing(model)
        # the next slide's engine, or what it needs of this one, started once this one
        # moves (never slowing it), so that PageDown does not wait for it
        self.ahead = SlideAhead(views.engine)
        model.events.preparing.connect(self._prepare_next)
        self._kept: dict[int, History] = {}   # this lesson's kept runs, by slide index
        # a new text size: the narration's height and every least size changed
        model.events.zoom.connect(self.on_text_size)

    @property
    def slide(self) -> Slide | None:
        return None if self.lesson is None else self.lesson.slides[self.index]

    @property
    def staging(self) -> bool:
        """A lesson is open: its slides are on the stage, the docks put away."""
        return (self.lesson is not None or self.card is not None) and self.model.in_lesson

    @property
    def settings_before(self) -> tuple[Config, int] | None:
        """The settings and pace (ms) from before the lesson (None: no lesson open)."""
        return None if self.before is None else (self.before.config, self.before.pace_ms)

    @property
    def model_before(self) -> str | None:
        """The model file that trained before the lesson (lessons put it aside)."""
        return None if self.before is None else self.before.model_path

    # ---- moving between slides -----------------------------------------------------------
    def open_named(self, name: str) -> None:
        """A bundled lesson by name, or a lesson file, at NAME:N's slide N (from 1);
        LessonError if there is none."""
        self.open(*find_lesson_at(name))

    def open(self, lesson: Lesson, index: int = 0) -> None:
        """A lesson at a slide (from 0, kept within it); a deck playing is left."""
        self.deck = None
        self._lesson_slide(lesson, index)

    def open_deck(self, deck: Deck, position: int = 0) -> None:
        self.deck = deck
        self._deck_slide(max(0, min(position, len(deck.slides) - 1)))

    def _deck_slide(self, position: int) -> None:
        deck = self.deck
        assert deck is not None
        self.position = position
        slide = deck.slides[position]
        if isinstance(slide, TextSlide):
            self._show_card(slide)
        else:
            self._lesson_slide(slide.lesson, slide.index)

    def _lesson_slide(self, lesson: Lesson, index: int) -> None:
        self.lesson, self.index = lesson, max(0, min(index, len(lesson.slides) - 1))
        self._show_slide(lesson, self.index)

    def next(self) -> None:
        """The next slide; after a bundled lesson's last one, the next bundled lesson;
        after the very last (a deck's, a lesson file's, the last lesson's), the end."""
        if self.ended is not None or (self.lesson is None and self.card is None):
            return
        if self.deck is not None:
            if self.position + 1 < len(self.deck.slides):
                self._deck_slide(self.position + 1)
            else:
                self._end("deck")
            return
        assert self.lesson is not None
        place = next_place(self.lesson, self.index)
        if place is not None:
            self.open(*place)
        else:
            self._end("lesson")

    def previous(self) -> None:
        if self.ended is not None:   # the end said: back to the last slide, as it was
            self._back_from_end()
        elif self.deck is not None:
            if self.position > 0:
                self._deck_slide(self.position - 1)
        elif self.lesson is not None and self.index > 0:
            self.open(self.lesson, self.index - 1)

    def first(self) -> None:
        if self.deck is not None:
            self._deck_slide(0)
        elif self.lesson is not None:
            self.open(self.lesson, 0)

    def replay(self) -> None:
        """The slide on screen again from step 0, as PageDown shows it (Compare's B,
        just pinned, then trains beside it without Space)."""
        if self.staging and self.slide is not None:
            self._send_slide(self.slide)

    def leave(self) -> None:
        """Out of the lesson or deck (Esc): the window as it was before it."""
        if self.lesson is not None or self.card is not None:
            self.lesson = self.card = self.deck = self.ended = None
            self._leave()

    # ---- the end, and a deck's slides of text ----------------------------------------------
    def _title(self) -> str:
        if self.deck is not None:
            return deck_slide_title(self.deck, self.position)
        assert self.lesson is not None
        return slide_title(self.lesson, self.index)

    def _end(self, what: str) -> None:
        """PageDown past the very last slide: the stage says it is the end (the slide
        stays as it was under it); PageUp takes it away, Esc leaves."""
        self.ended = what
        self.model.blank = False
        self.views.cards.show_card(f"End of the {what}", END_WORDS)
        title = self.deck.title if self.deck is not None else \
            self.lesson.title if self.lesson is not None else ""
        self.views.titles.set_title(f"gradviz — {title_text(title)} — end of the {what}")

    def _back_from_end(self) -> None:
        self.ended = None
        if self.card is not None:
            self.views.cards.show_card(self.card.title, self.card.text)
        else:
            self.views.cards.hide_card()
        self.views.titles.set_title(self._title())

    def _show_card(self, card: TextSlide) -> None:
        """A deck's slide of text: large, over the whole stage; no engine (Play paused:
        nothing trains behind it), no panel, no ghost."""
        m, views = self.model, self.views
        m.blank = False
        if not m.in_lesson:
            self._put_model_file_aside()
        self._keep_run()
        self.lesson, self.card, self.ended = None, card, None
        self.preparing.stop()
        views.engine.pause()
        assert self.deck is not None
        # the stage stays (m.lesson names the deck while a slide of text is on it)
        m.lesson, m.slide, m.panels, m.named_metrics, m.focus, m.focus_facts = \
            self.deck.name, None, (), (), None, False
        views.titles.set_title(self._title())
        views.cards.show_card(card.title, card.text)
        self._clear_ghost()
        views.references.set_references({panel: [] for panel in REFERENCE_PANELS})

    def _keep_run(self) -> None:
        """The run the slide on screen leaves, kept for a ghost (none after a card)."""
        if self._on_screen is not None:
            self.runs[self._on_screen] = self.views.history()
        self._on_screen = None

    # ---- a slide -------------------------------------------------------------------------
    def _show_slide(self, lesson: Lesson, index: int) -> None:
        slide, m, views = lesson.slides[index], self.model, self.views
        m.blank = False   # PageDown on a blank screen: the next slide, seen
        if not m.in_lesson:
            self._put_model_file_aside()
        self.ahead.shown()
        if self.card is not None or self.ended is not None:
            self.card = self.ended = None
            views.cards.hide_card()
        self._train_model_of(slide)
        self._keep_run()
        self._on_screen = (lesson.name, index)
        self._zoom_asked = False   # the lecturer's text size is kept from here on
        m.text_too_large = False
        # the lesson open: the window puts its docks away (their layout kept for the
        # lesson's end) and shows the stage; nothing a slide does not name is on screen
        m.lesson = lesson.name
        views.titles.set_title(self._title())
        views.narration.show_slide(lesson.title, slide, index, len(lesson.slides))
        self._kept = {i: run for (name, i), run in self.runs.items() if name == lesson.name}
        # its figures, large (before the stage is arranged: the narration's height counts
        # them), measured once its run has steps
        self.update_figures(None)
        self._send_slide(slide)
        # (what it is about before the stage places its panels: the memory chart splits
        # its height for it as it is placed, not after a first frame split otherwise)
        m.slide, m.panels, m.named_metrics = index, slide.panels, slide.named_metrics
        views.stage.show_slide(slide.panels, slide.layout, m.zoom)
        self._show_ghost(lesson, index)
        # the lines the slide draws at the values it names (this lesson's kept runs)
        views.references.set_references(reference_lines(slide, self._kept))
        # a room reads one box per module call, framed on what the slide is about
        views.graph.set_module_view(True)
        m.focus, m.focus_facts = slide.focus or None, slide.facts

    def _prepare_next(self, preparing: str | None) -> None:
        """The slide on screen moves (its first state is shown): the next one's engine,
        or what it needs of this one, is started now."""
        if preparing is None and self.staging and self.lesson is not None:
            self.ahead.prepare(self._slide_after(), self._training)

    def _slide_after(self) -> Slide | None:
        """The lesson slide PageDown shows next (None: a text slide, or the end)."""
        if self.deck is not None:
            later = self.deck.slides[self.position + 1:self.position + 2]
            if not later or isinstance(later[0], TextSlide):
                return None
            return later[0].lesson.slides[later[0].index]
        assert self.lesson is not None
        place = next_place(self.lesson, self.index)
        return None if place is None else place[0].slides[place[1]]

    def _put_model_file_aside(self) -> None:
        """The first slide: the window as the user has it (their model file put aside:
        lessons are about the built-in model), kept for the lesson's end."""
        m = self.model
        self._training = m.model_path
        self.before = self.run_track.before(self.views.graph.module_view)

    def _train_model_of(self, slide: Slide) -> None:
        """A fresh engine on the slide's model where the engine trains another (before
        anything of the slide: the slide message then goes to it)."""
        path = slide_model_path(slide)
        if path != self._training:
            self._training = path
            self._lesson_files |= {path} if path else set()
            self.views.engine.open_model(path, slide.config if path else None)

    def _send_slide(self, slide: Slide) -> None:
        """The engine gets the slide as one message: a fresh model at step 0 (each slide
        starts there), its pace and play mode, where it stops (the engine pauses itself
        there: exact at full speed) and, a clicker sending no Space, Play where the slide
        autoplays. Then the model says the same, and the engine is sent nothing more."""
        settings = slide_settings(slide, self.model)
        self.preparing.start(slide)
        self.views.engine.show_slide(slide.config, settings, slide.autoplay)
        m = self.model
        m.pace_ms, m.play_mode, m.stop_at = settings.delay_ms, slide.play, settings.stop_at
        m.sweep_box_ms = settings.sweep_box_ms
        m.requested = slide.config
        m.slide_shown += 1   # (after requested: its observers find the slide's config)

    def _show_ghost(self, lesson: Lesson, index: int) -> None:
        """keep = "ghost": the slide before's run (as it was left), dashed, beside this
        one's, on the same axes; else no ghost. Compare's B, while pinned, comes first."""
        if self.model.pinned_b is not None:
            return
        before = self.runs.get((lesson.name, index - 1))
        if lesson.slides[index].keep == "ghost" and before is not None:
            self.views.ghosts.set_ghost(before)
            self._ghosted = True
        else:
            self._clear_ghost()

    def _clear_ghost(self) -> None:
        if self._ghosted and self.model.pinned_b is None:
            self.views.ghosts.set_ghost(None)
        self._ghosted = False

    def update_figures(self, run: History | None) -> None:
        """The slide's figures off the run on screen (None: the slide's run has no steps
        yet), each as measured, over a kept run's where it names a slide. Until the
        engine has the slide's fresh model, the run on screen is the slide before's
        (its last steps may still come): its numbers are not this slide's."""
        slide, wait = self.slide, self.preparing.wait
        if wait is not None and not wait.answered:
            run = None
        if slide is not None and self.staging:
            self.views.narration.show_figures(
                [figure_text(f, run, self._kept) for f in slide.figures])

    # ---- the stage's room ---------------------------------------------------------------
    def on_arranged(self) -> None:
        """The stage placed its parts again (a slide, a resize, a text size)."""
        if self.staging and self.slide is not None:
            self._place_graph_key()
            self._check_room()

    def _place_graph_key(self) -> None:
        """The graph's key where the graph is the slide's main panel and wide enough for
        it; beside a chart, or in a column narrowed by large text, it took half the
        panel (the narration says what is drawn)."""
        placement, m, graph = self.views.stage.placement, self.model, self.views.graph
        placed = placement.panels.get("graph") if placement else None
        wide = placed is not None and placed.w >= KEY_LEAST_WIDTH * m.zoom
        shown = bool(m.panels) and m.panels[0] == "graph" and wide
        if shown != graph.key_shown:
            graph.set_key_shown(shown)

    def _check_room(self) -> None:
        """Text too large for the stage just after Ctrl+=: one step smaller, as the docks'
        screen fitting does, so Ctrl+= stops where the slide no longer fits, not at a size
        that crushes its charts. Only then: a later slide that is cramped at the
        lecturer's size is fitted by the stage itself (its text and the code's font a
        step smaller); taking the size back there left lesson 13 at normal text from its
        second slide on."""
        placement, m = self.views.stage.placement, self.model
        if not self._zoom_asked or placement is None or m.zoom <= 1.0 or m.drawn_off_screen:
            return
        if cramped(placement):
            self.views.later(self._shrink_if_still_cramped)

    def _shrink_if_still_cramped(self) -> None:
        placement = self.views.stage.placement
        if self.staging and self._zoom_asked and placement is not None and \
                self.model.zoom > 1.0 and cramped(placement):
            self.model.text_too_large = True   # the screen fitting takes it a step smaller

    def on_text_size(self, _zoom: float | None = None) -> None:
        """After Ctrl+= or Ctrl+-: the narration's height and every least size changed."""
        self._zoom_asked = True   # does the slide still fit? (until the next slide)
        self.model.text_too_large = False   # (not known at this size until arranged)
        if self.staging:
            self.views.stage.set_zoom(self.model.zoom)

    def rearrange(self) -> None:
        """The stage laid out again for its room (a new explanation, a fitted window)."""
        if self.staging:
            self.views.stage.arrange()

    # ---- leaving --------------------------------------------------------------------------
    def _leave(self) -> None:
        m, views = self.model, self.views
        m.stop_at, m.sweep_box_ms = None, 0   # free mode: the sweep within the pace
        self.preparing.stop()
        self.ahead.drop()   # an engine or ranks started for a next slide end
        views.cards.hide_card()
        views.narration.clear()
        views.narration.show_figures([])
        # (the model file that trains, once the engine says which: the window's own rule)
        views.titles.set_title(free_title(m.model_name))
        self._clear_ghost()
        views.references.set_references({panel: [] for panel in REFERENCE_PANELS})
        self.runs, self._on_screen = {}, None
        # the window takes the stage's panels home, and every dock back where, and as
        # shown or closed as, the user had it (and per-node gradients as its graph dock is)
        m.lesson, m.slide, m.panels, m.focus, m.named_metrics = None, None, (), None, ()
        m.focus_facts = False
        m.text_too_large = False
        self._give_back()
        views.graph.set_key_shown(True)

    def _give_back(self) -> None:
        """The window as it was before the lesson (plain.controllers.lesson_before)."""
        before, self.before = self.before, None
        files, self._lesson_files = self._lesson_files, set()
        training, self._training = self._training, None
        if before is not None:
            give_back(before, self.model, self.views.engine, self.views.graph,
                      training, files)
