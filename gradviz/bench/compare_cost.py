"""What the app and comparing cost, for `gradviz bench`: the engine's loop as Play runs
it at full speed, alone, with every panel fed, and with a B pinned beside it; and
`gradviz compare`'s loop beside `gradviz run`'s. Timed as the window's engine and the
commands really train (their own loops, their own sampling), wall-clock, in this
process."""
from __future__ import annotations

import pickle
import time

from ..core.compare import compare
from ..engine import protocol as p
from ..engine.loop import EngineLoop
from ..plain.config.config import Config
from .core.loop_timer import clock

WARM_UP_STEPS = 20
# the window asks for the live graph this often while it trains and the graph is shown
# (qt.main_window.LIVE_GRAPH_SECONDS; the bench's command imports none of the window's)
GRAPH_REQUEST_SECONDS = 1.5


def engine_rate(config: Config, steps: int, b: Config | None = None,
                model_path: str | None = None, panels: bool = False) -> float:
    """A's steps per second in the engine's loop played at full speed (batches of about
    20 ms, each batch's messages pickled as the pipe would), with B pinned if given
    (in a process of its own, as the app's engine pins it), on a model file's model if
    model_path is given; with panels, fed as the window with every panel shown asks:
    the graph with its saved tensors every GRAPH_REQUEST_SECONDS, each node's gradient
    (besides the gradient norms, pushes, cosines and memory every engine measures)."""
    loop = EngineLoop(config, b_in_own_process=True, model_path=model_path)
    if model_path is not None and loop.model_file is None:
        raise ValueError(f"the engine could not train the model file {model_path}")
    if panels:
        loop.handle(p.Settings(p.EngineSettings(show_saved=True, track_node_grads=True)))
    if b is not None:
        loop.handle(p.PinB(b))
    loop.handle(p.Play())
    session = loop.session
    while session.step_index < WARM_UP_STEPS:
        loop.train_batch(lambda: False)
    loop.take_outbox()
    # the steps on the bench's clock; the window's graph requests on the wall's
    start, first, asked = clock(), session.step_index, time.perf_counter()
    while session.step_index - first < steps and session.error is None:
        if panels and time.perf_counter() - asked >= GRAPH_REQUEST_SECONDS:
            asked = time.perf_counter()
            loop.handle(p.RequestGraph())
        loop.train_batch(lambda: False)
        pickle.dumps(loop.take_outbox(), protocol=pickle.HIGHEST_PROTOCOL)
    rate = (session.step_index - first) / (clock() - start)
    loop.handle(p.Shutdown())   # B's process, if any, ends here
    return rate


def compare_rate(a: Config, b: Config, steps: int) -> float:
    """Steps per second of `gradviz compare`'s lockstep loop (both trained, each step
    compared)."""
    compare(a, b, min(WARM_UP_STEPS, steps))
    start = time.perf_counter()
    result = compare(a, b, steps)
    return len(result.steps) / (time.perf_counter() - start)

