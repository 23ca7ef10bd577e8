"""The run line of `gradviz bench`: `gradviz run`'s own loop timed, as the command
trains (its sampling, its report streamed to a folder), beside the engine's."""
from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

from ..commands.run import run_session, train
from ..core.model_file import ModelFile
from ..plain.run_files.report import ReportWriter
from .core.loop_timer import clock
from .core.training_speed import warm_up


def timed_run(config, steps: int, model_file: ModelFile | None = None) -> float:
    """Steps per second of `gradviz run`'s own loop (its train()) with the report streamed to
    a temporary folder, progress printed (to nowhere) as usual; the graph files written
    once at the end are left out."""
    session = run_session(config, model_file)
    warm_up(session, steps)
    with tempfile.TemporaryDirectory(prefix="gradviz-bench-") as folder, \
            contextlib.redirect_stdout(io.StringIO()):
        start = clock()
        with ReportWriter(Path(folder), config, str(session.device),
                          session.param_names,
                          update_every=session.update_cosine_every) as report:
            trained = train(session, steps, False, report)
            report.finish(session.events)
        if session.device.type == "cuda":
            import torch
            torch.cuda.synchronize(session.device)
        elapsed = clock() - start
    return trained.count / elapsed if trained.count else 0.0
