"""N DistributedDataParallel ranks for a session's steps: `python -I` processes of
core.ddp_rank, joined over gloo on 127.0.0.1 through a store this process holds. Each
step they are sent the weights and their share of the batch; they answer the all-reduces
counted and the all-reduced gradient. One group a process, started on first use and
kept for the next session that asks for the same (a lesson's check trains several);
ended by close_rank_group(), when another is asked for, or when this process ends (each
rank ends when its socket does)."""
from __future__ import annotations

import datetime
import os
import signal
import socket
import subprocess
import sys
import weakref
from collections.abc import Sequence
from multiprocessing.connection import Connection

import numpy as np
import torch

from ..plain.records.events import first_line

START_SECONDS = 120.0    # a rank imports torch: seconds, more on a busy 2-core laptop
STEP_SECONDS = 60.0      # a step of the built-in mlp takes milliseconds; gloo's own limit
END_SECONDS = 2.0        # a rank told to end leaves its group and exits in well under this


class RankError(RuntimeError):
    """The ranks could not do a step; str() is one line naming the rank and why."""


def _rank_env() -> dict[str, str]:
    """Gloo on the loopback interface only (Linux names it lo)."""
    env = dict(os.environ)
    if sys.platform.startswith("linux"):
        env["GLOO_SOCKET_IFNAME"] = "lo"
    return env


def _start(count: int, processes: list[subprocess.Popen], conns: list[Connection]) -> None:
    """count ranks, each added as it starts (so that a failure ends those before it)."""
    for _ in range(count):
        ours, theirs = socket.socketpair()
        try:
            processes.append(subprocess.Popen(
                [sys.executable, "-I", "-m", "gradviz.core.ddp_rank", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, env=_rank_env()))
        finally:
            theirs.close()   # else our end never sees EOF when the rank dies
        conns.append(Connection(ours.detach()))


def _end(processes: list[subprocess.Popen], conns: list[Connection]) -> None:
    """Close every socket (a rank waiting for work then ends), then make sure: kill."""
    for conn in conns:
        conn.close()
    for process in processes:
        try:
            process.wait(END_SECONDS)
        except subprocess.TimeoutExpired:   # stuck in a collective whose peer died
            process.kill()
            process.wait()


# how a rank ends when a peer ended first: aborted by gloo, or left cleanly
_BY_A_PEER = (-signal.SIGABRT, 0)


class RankGroup:
    """`world` ranks training the built-in mlp of `shape` (heads, width, depth)."""

    def __init__(self, world: int, shape: tuple[int, int, int], wait: bool = True):
        """wait False: started and sent their start, not waited for (a group started
        ahead, while the slide before plays: its first step waits, if need be)."""
        if not torch.distributed.is_available():
            raise RankError("this PyTorch was built without torch.distributed")
        self.world, self.shape = world, shape
        timeout = datetime.timedelta(seconds=STEP_SECONDS)
        self._processes: list[subprocess.Popen] = []
        self._conns: list[Connection] = []
        self._finalizer = weakref.finalize(self, _end, self._processes, self._conns)
        try:
            # the rendezvous: held here, on a port the system picks, so no two groups race
            self._store = torch.distributed.TCPStore("127.0.0.1", 0, world, True,
                                                     timeout=timeout, wait_for_workers=False)
            _start(world, self._processes, self._conns)
        except (RuntimeError, OSError) as exc:   # no free port, no process to be had
            raise self._failed(RankError(f"cannot start the DDP ranks: {first_line(exc)}")) \
                from exc
        heads, width, depth = shape
        self._send([dict(rank=rank, world=world, port=self._store.port, heads=heads,
                         width=width, depth=depth, timeout=STEP_SECONDS)
                    for rank in range(world)], "start")
        self._joined = False   # every rank has answered its start
        if wait:
            self.wait_started()

    def wait_started(self) -> None:
        """Every rank's answer to its start, waited for once; RankError (the group
        closed) if one fails, ends or is silent for START_SECONDS."""
        if not self._joined:
            self._answers(START_SECONDS, "start")
            self._joined = True

    @property
    def started(self) -> bool:
        """Every rank has answered its start, or one has ended (looked at without
        waiting: what it answered is read by wait_started)."""
        return self._joined or not self.alive or all(conn.poll(0) for conn in self._conns)

    def close(self) -> None:
        self._finalizer()

    @property
    def alive(self) -> bool:
        return self._finalizer.alive

    def _send(self, messages: list[dict], doing: str) -> None:
        """Each rank its message; RankError (the group closed) where one has ended."""
        for rank, (conn, message) in enumerate(zip(self._conns, messages)):
            try:
                conn.send(message)
            except OSError as exc:
                raise self._failed(self._ended(rank, doing)) from exc

    def _ended(self, rank: int, doing: str) -> RankError:
        """The error for rank's end; where it ended because a peer did, the peer that
        ended otherwise is named instead: it ended first. A rank whose peer's connection
        is reset is aborted by gloo (a killed rank 1 read as "rank 0 ended (exit code
        -6)"), or leaves cleanly, its pipe closed mid-step (read as "rank 0 ended (exit
        code 0)"): a rank never ends with 0 by itself during a step."""
        code = self._exit_code(rank, END_SECONDS)
        if code in _BY_A_PEER:
            for other in range(len(self._processes)):
                other_code = self._exit_code(other, END_SECONDS / 4) if other != rank else None
                if other_code is not None and other_code not in _BY_A_PEER:
                    rank, code = other, other_code
                    break
        return RankError(f"DDP rank {rank} ended (exit code {code}) before it could {doing}")

    def _exit_code(self, rank: int, seconds: float) -> int | None:
        """rank's exit code, given seconds to end (it has ended, or is ending); None
        where it goes on."""
        try:
            return self._processes[rank].wait(seconds)
        except subprocess.TimeoutExpired:
            return None

    def _answers(self, seconds: float, doing: str) -> list[tuple]:
        """Every rank's answer, in rank order; RankError (the group closed) if one fails,
        ends, or is silent for `seconds`."""
        answers = []
        for rank, conn in enumerate(self._conns):
            try:
                if not conn.poll(seconds):
                    raise RankError(f"DDP rank {rank} did not {doing} within {seconds:g} s")
                answer = conn.recv()
            except (EOFError, OSError) as exc:
                raise self._failed(self._ended(rank, doing)) from exc
            except RankError as exc:
                raise self._failed(exc) from None
            if answer[0] == "error":   # a peer's end reads as a reset connection: say that
                ended = self._first_ended()
                raise self._failed(self._ended(ended, doing) if ended is not None else
                                   RankError(f"DDP rank {rank}: {answer[1]}"))
            answers.append(answer)
        return answers

    def _first_ended(self) -> int | None:
        """The first rank that has ended, given a moment each (a killed rank's socket
        closes a little before its exit is seen), or None."""
        for rank, process in enumerate(self._processes):
            try:
                process.wait(END_SECONDS / 4)
                return rank
            except subprocess.TimeoutExpired:
                pass
        return None

    def _failed(self, error: RankError) -> RankError:
        self.close()
        return error

    def step(self, params: Sequence[torch.Tensor], x: torch.Tensor,
             targets: Sequence[torch.Tensor], factors: Sequence[float], accumulate: int,
             no_sync: bool) -> tuple[int, list[np.ndarray]]:
        """(all-reduces per rank this step, the gradients DDP left): the batch in
        `world` equal shares, each in `accumulate` micro-batches, every head's loss
        times its factor; the weights are `params`'."""
        weights = [p.detach().cpu().numpy() for p in params]
        xs = x.detach().cpu().chunk(self.world * accumulate)
        ts = [t.detach().cpu().chunk(self.world * accumulate) for t in targets]
        jobs = []
        for rank in range(self.world):
            mine = range(rank * accumulate, (rank + 1) * accumulate)
            jobs.append(dict(params=weights, factors=list(factors), no_sync=no_sync,
                             micros=[(xs[i].numpy(), [t[i].numpy() for t in ts])
                                     for i in mine]))
        self._send(jobs, "take the step")
        answers = self._answers(STEP_SECONDS, "finish the step")
        counts = {a[1] for a in answers}
        if len(counts) != 1:   # DDP runs the same collectives on every rank
            raise self._failed(RankError(f"the DDP ranks counted different all-reduces: "
                                         f"{[a[1] for a in answers]}"))
        return counts.pop(), answers[0][2]


_GROUP: list[RankGroup] = []   # this process's group, if one is running


def rank_group(world: int, shape: tuple[int, int, int], wait: bool = True) -> RankGroup:
    """The running group if it is `world` ranks of this shape, else a new one (the old
    closed); RankError if one cannot start. wait False: its ranks' start is not waited
    for (started ahead of the slide that needs them)."""
    if not running_group(world, shape):
        close_rank_group()
        _GROUP.append(RankGroup(world, shape, wait=False))
    if wait:
        _GROUP[0].wait_started()
    return _GROUP[0]


def running_group(world: int, shape: tuple[int, int, int]) -> bool:
    """This process runs a group of `world` ranks of this shape (started or starting)."""
    return bool(_GROUP) and _GROUP[0].alive and \
        (_GROUP[0].world, _GROUP[0].shape) == (world, shape)


def group_started() -> bool:
    """No group is starting: none runs, or its ranks have all answered (or one ended)."""
    return not _GROUP or _GROUP[0].started


def close_rank_group() -> None:
    """End this process's ranks, if any run."""
    while _GROUP:
        _GROUP.pop().close()
