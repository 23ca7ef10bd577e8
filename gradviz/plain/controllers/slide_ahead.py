"""The lesson's next slide, prepared while the slide on screen plays, so that PageDown
never waits for what could have been started while the lecturer spoke: an engine on the
next slide's model where it trains another one (a model file, or the built-in model
after one: a fresh Python importing torch), else what it needs of the engine on screen
(DDP ranks, each a Python importing torch; the meta device's first kernel). Asked once
the slide on screen moves (its first state is shown), so that it never slows the slide
it follows; what no slide needs any more (the lecturer went back, or left) ends."""
from __future__ import annotations

from ..config.config import Config
from ..config.model_names import model_path
from ..lessons.lessons import Lesson, LessonError, Slide, bundled_names, find_lesson
from .controller_views import SlideEngine

NOTHING = "nothing"   # asked: no next slide, nothing started ahead


def slide_model_path(slide: Slide) -> str | None:
    """The path of the bundled model file a slide trains (None: the built-in model)."""
    if not slide.model_file:
        return None
    with model_path(slide.model_file) as path:
        return str(path)


def next_place(lesson: Lesson, index: int) -> tuple[Lesson, int] | None:
    """Where PageDown goes from slide `index`: the next slide; after the last one, the
    next bundled lesson's first (None: there is none)."""
    if index + 1 < len(lesson.slides):
        return lesson, index + 1
    names = bundled_names()
    if lesson.name in names and names.index(lesson.name) + 1 < len(names):
        try:
            return find_lesson(names[names.index(lesson.name) + 1]), 0
        except LessonError:   # a broken bundled file: PageDown says so, not this
            return None
    return None


class SlideAhead:
    """What the engine was asked to prepare for the next slide, asked once per slide."""

    def __init__(self, engine: SlideEngine):
        self.engine = engine
        # what was asked for the slide on screen: (the next slide's model path, its
        # config), or NOTHING; None: nothing asked since it was shown
        self.asked: tuple[str | None, Config] | str | None = None

    def shown(self) -> None:
        """A slide is on screen: what was prepared is taken, or to be asked again for
        the slide after it (it may have been the one before: PageUp)."""
        self.asked = None

    def prepare(self, following: Slide | None, training: str | None) -> None:
        """following: the slide PageDown shows next (None: none); training: the model
        file the engine on screen trains (None: the built-in model)."""
        if following is None:
            self.drop()
            return
        path = slide_model_path(following)
        if self.asked == (path, following.config):
            return
        self.asked = (path, following.config)
        if path != training:   # another model: an engine of its own, built now
            self.engine.prepare_engine(path, following.config)
            self.engine.warm_next(None)
        else:
            self.engine.drop_prepared()
            self.engine.warm_next(following.config)

    def drop(self) -> None:
        """Nothing is prepared (no next slide, the lesson left): what was started ahead
        ends."""
        if self.asked != NOTHING:
            self.asked = NOTHING
            self.engine.drop_prepared()
            self.engine.warm_next(None)
