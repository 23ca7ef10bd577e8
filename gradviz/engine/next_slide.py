"""What the lesson's next slide needs that is slow to start, started by the engine while
the slide on screen plays (p.WarmNext): its DDP ranks (each a Python importing torch:
seconds, 25 s on a busy laptop), the meta device's first kernel (it imports sympy: 8-14 s
there) and torchjd (an aggregating strategy's first step imports it). Nothing here waits:
the ranks are started and not waited for, the rest runs on a thread; the next slide's own
start then finds them ready, or waits only for what is left (an import under way holds
the module's import lock). What was started for a slide that no longer comes ends."""
from __future__ import annotations

import importlib
import threading
from collections.abc import Callable

from ..core.ddp_ranks import RankError, close_rank_group, group_started, rank_group, running_group
from ..core.devices import other_device, resolve_device, warm_meta
from ..plain.config.config import Config, ConfigError
from ..plain.config.jd_names import AGGREGATING


def ranks_of(config: Config | None) -> tuple[int, tuple[int, int, int]] | None:
    """(world, shape) of the DDP ranks a config trains with (None: none, or another
    model than the built-in mlp, which the ranks do not train)."""
    if config is None or config.ddp_ranks < 2 or config.model != "mlp":
        return None
    return config.ddp_ranks, (config.heads, config.trunk_width, config.trunk_depth)


def needs_meta(config: Config | None) -> bool:
    """A head on the meta device (the device-mismatch slide, where only a CPU is)."""
    if config is None or config.misplace_head is None:
        return False
    try:
        return other_device(resolve_device(config.device)).type == "meta"
    except ConfigError:   # a device this machine lacks: the slide says so, not this
        return False


def needs_torchjd(config: Config | None) -> bool:
    """An aggregating strategy (UPGrad, PCGrad, MGDA): its first step imports torchjd."""
    return config is not None and config.strategy in AGGREGATING


class NextSlide:
    """The engine's head start on the next slide; `pending` until what it started is
    ready (then the engine says Warmed)."""

    def __init__(self) -> None:
        # the work started on a thread, by name ("meta", "torchjd"): each once an engine
        self._threads: dict[str, threading.Thread] = {}
        self._ranks = False   # ranks were started ahead (they end with the engine)
        self.pending = False
        self.warms = 0        # the WarmNext messages taken (Warmed says which it answers)

    def warm(self, config: Config | None, in_use: Config) -> None:
        """Start what config's slide needs (None: nothing); end the ranks started ahead
        that neither it nor the session's config (in_use) trains with."""
        wanted, used = ranks_of(config), ranks_of(in_use)
        if used is not None and wanted != used:
            wanted = None   # one group a process: the slide on screen keeps its ranks
        if not any(ranks is not None and running_group(*ranks) for ranks in (wanted, used)):
            close_rank_group()
        if wanted is not None:
            self._ranks = True
            try:
                rank_group(*wanted, wait=False)
            except RankError:   # the slide's own start says why, at its first step
                pass
        if needs_meta(config):
            self._start("meta", lambda: warm_meta())
        if needs_torchjd(config):
            self._start("torchjd", _import_torchjd)
        self.pending = True
        self.warms += 1

    def _start(self, name: str, work: Callable[[], None]) -> None:
        if name not in self._threads:
            self._threads[name] = threading.Thread(
                target=_quietly, args=(work,), daemon=True, name=f"gradviz {name} warm")
            self._threads[name].start()

    def meta_warmed(self) -> None:
        """The meta kernel's imports done (waited for, if under way): the slide's own."""
        if "meta" in self._threads:
            self._threads["meta"].join()

    def end(self) -> None:
        """The engine ends: the ranks started ahead with it (a test's engine on a
        thread has no process group whose end takes them)."""
        if self._ranks:
            close_rank_group()
            self._ranks = False

    @property
    def ready(self) -> bool:
        """Nothing started ahead is still starting."""
        return not any(t.is_alive() for t in self._threads.values()) and group_started()


def _import_torchjd() -> None:
    importlib.import_module("torchjd.autojac")
    importlib.import_module("torchjd.aggregation")


def _quietly(work: Callable[[], None]) -> None:
    try:
        work()
    except Exception:   # the slide's own step raises it again, where it is said
        pass
