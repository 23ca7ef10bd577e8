"""A lesson slide from PageDown until its first state can be seen whole: what it waits for
(the engine's answer with the slide's fresh model, its first step, phase or error, and
that state's graph drawn), and the line the stage shows meanwhile in place of its panels,
saying what the engine is doing (from its heartbeat), never the slide before's data."""
from __future__ import annotations

from dataclasses import dataclass

from ..lessons.lessons import Slide
from ..records.engine_stages import BUILDING_MODEL, IMPORTING_TORCH, READY, STARTING_PYTHON, WORKING
from ..window.window_model import WindowModel

# what a slide's first state is: its first step (played by steps), its first phase with
# something to see (played by phases: the forward pass or its error, not zero_grad, which
# draws nothing), or, on a slide that does not play, its fresh model at step 0
FIRST_STEP, FIRST_PHASE, FIRST_MODEL = "step", "phase", "model"
NOTHING_TO_SEE = ("zero_grad",)   # phases after which the stage would show nothing new
# an engine's stages that say nothing of a slide's preparation: idle or at other work, or
# its start's last beat, heard before the beat after it
NOT_THE_SLIDES = ("", WORKING, READY, STARTING_PYTHON, IMPORTING_TORCH)


@dataclass
class SlideWait:
    first: str                 # FIRST_STEP, FIRST_PHASE or FIRST_MODEL
    needs_graph: bool          # the slide shows the graph: its first state's, drawn
    answered: bool = False     # the engine has the slide's fresh model
    state: bool = False        # the first state came (or the slide's error)
    graph: object = None       # the graph that came after the state (None: none yet)
    drawn: object = None       # the graph the graph panel has drawn last
    graph_asked: bool = False  # the engine was asked for the first state's graph

    @classmethod
    def of(cls, slide: Slide) -> SlideWait:
        first = FIRST_MODEL if not slide.autoplay else \
            FIRST_PHASE if slide.play == "phases" else FIRST_STEP
        return cls(first, "graph" in slide.panels)

    @property
    def ready(self) -> bool:
        return self.state and (not self.needs_graph or
                               (self.graph is not None and self.graph is self.drawn))


def preparing_line(wait: SlideWait, engine_state: str, engine_stage: str) -> str:
    """What the stage says while the slide is prepared: what the engine is doing now."""
    return f"Preparing this slide: {_doing(wait, engine_state, engine_stage)}…"


def _doing(wait: SlideWait, engine_state: str, engine_stage: str) -> str:
    if engine_state == "starting":   # a fresh engine: starting Python, importing torch
        stage = engine_stage if engine_stage not in ("", WORKING, READY) else STARTING_PYTHON
        return f"the training engine is {stage}"
    if engine_state == "building":
        return engine_stage
    if not wait.answered:   # what the engine said it does for the slide, if it said
        return BUILDING_MODEL if engine_stage in NOT_THE_SLIDES else engine_stage
    if not wait.state:
        return "the first forward pass" if wait.first == FIRST_PHASE else "the first step"
    return "drawing the autograd graph"


class SlidePreparing:
    """The one writer of the model's `preparing`: the slide's line until it is ready."""

    def __init__(self, model: WindowModel):
        self.model = model
        self.wait: SlideWait | None = None
        model.events.engine_state.connect(self._engine_changed)
        model.events.engine_stage.connect(self._engine_changed)

    def start(self, slide: Slide) -> None:
        """A slide sent to the engine: nothing of it can be seen yet."""
        self.wait = SlideWait.of(slide)
        self._say()

    def stop(self) -> None:
        """No slide is waited for (the lesson left)."""
        self.wait = None
        self.model.preparing = None

    def ask_graph(self) -> bool:
        """Whether to ask the engine for the graph now, once: the slide's first step is
        in and it waits for that step's graph, which during Play the engine sends only
        when asked (the window's live graph, every 1.5 s: the cover stayed that long over
        a slide already moving). Played by phases, each phase's graph comes by itself."""
        wait = self.wait
        if wait is None or not wait.state or not wait.needs_graph or wait.graph is not None \
                or wait.first != FIRST_STEP or wait.graph_asked:
            return False
        wait.graph_asked = True
        return True

    # ---- what the engine says (the window's adapter tells these) -------------------------
    def answered(self) -> None:
        """The engine's answer to the slide sent last: its fresh model is in."""
        if self.wait is not None and not self.wait.answered:
            self.wait.answered = True
            self.wait.state = self.wait.first == FIRST_MODEL
            self._say()

    def refused(self) -> None:
        """The engine refused the slide (the status line says why): nothing will come,
        the stage shows what there is."""
        if self.wait is not None and not self.wait.answered:
            self._done()

    def phase_done(self, name: str, failed: bool) -> None:
        if self.wait is not None and self.wait.answered and \
                (failed or name not in NOTHING_TO_SEE):
            self._came()

    def steps_came(self) -> None:
        if self.wait is not None and self.wait.answered:
            self._came()

    def failed(self) -> None:
        """The slide's error: it is its first state (What happened explains it)."""
        if self.wait is not None and self.wait.answered:
            self._came()

    def graph_came(self, graph: object) -> None:
        """The engine sent a graph (after the first state: that state's, or a newer one,
        which the panel draws instead)."""
        wait = self.wait
        if wait is not None and wait.state:
            wait.graph = graph
            self._say()

    def graph_drawn(self, graph: object) -> None:
        """The graph panel has drawn this graph, and has no other one to lay out."""
        if self.wait is not None:
            self.wait.drawn = graph
            self._say()

    def graph_late(self) -> None:
        """No graph came after the first state, or it is not drawn, after a while: the
        slide is shown without waiting further (its caption says what it has drawn)."""
        if self.wait is not None and self.wait.state:
            self._done()

    # ---- the line ---------------------------------------------------------------------
    def _came(self) -> None:
        wait = self.wait
        if wait is not None and not wait.state:
            wait.state = True
            self._say()

    def _engine_changed(self, *_: object) -> None:
        if self.wait is not None and self.model.engine_state == "stopped":
            self._done()   # it died: What happened says so, on the slide's stage
        else:
            self._say()

    def _say(self) -> None:
        wait, m = self.wait, self.model
        if wait is None:
            return
        if wait.ready:
            self._done()
        else:
            m.preparing = preparing_line(wait, m.engine_state, m.engine_stage)

    def _done(self) -> None:
        self.wait = None
        self.model.preparing = None
