"""ddp-ranks: a step's gradient from N DistributedDataParallel ranks (gloo, 127.0.0.1),
the all-reduces a communication hook counts, and the lesson built on them. Each expected
gradient is one plain-PyTorch process's on the full batch, written here (core_reference);
the counts are DDP's: one all-reduce per backward outside no_sync (one bucket here)."""
from __future__ import annotations

import os
import signal
import subprocess

import pytest
import torch

from gradviz.core import ddp_ranks
from gradviz.core.ddp_ranks import RankError, close_rank_group, rank_group
from gradviz.core.lesson_check import check_lesson
from gradviz.core.session import Session
from gradviz.engine.child import descendants
from gradviz.plain.config.config import Config
from gradviz.plain.lessons.lessons import parse_lesson

from core_reference import batch, forward, grads_of, ref_net, snapshot, weighted_sum, weights

BASE = Config(device="cpu", heads=3, batch_size=64, accumulate=4, ddp_ranks=2)
SHAPE = (BASE.heads, BASE.trunk_width, BASE.trunk_depth)
pytestmark = pytest.mark.timeout(300)   # a rank imports torch: seconds, on a busy machine


@pytest.fixture(scope="module", autouse=True)
def no_rank_left():
    """The tests share one group of ranks (as a lesson's check does); none outlives them."""
    yield
    close_rank_group()
    assert descendants(os.getpid()) == []


def full_batch_grads(cfg: Config, state, session: Session, step: int) -> dict:
    """One process, the whole batch, one backward: the gradient DDP must give."""
    net = ref_net(cfg, state)
    x, targets = batch(session, step, cfg.batch_size)
    _, losses = forward(net, x, targets)
    return grads_of(net, weighted_sum(weights(cfg), losses), retain=False)


@pytest.mark.parametrize("accumulate, no_sync, all_reduces",
                         [(4, False, 4), (4, True, 1), (1, False, 1)])
def test_ranks_give_one_process_gradient_and_count_their_all_reduces(
        accumulate, no_sync, all_reduces):
    cfg = BASE.replace(accumulate=accumulate, ddp_no_sync=no_sync)
    session = Session(cfg)
    for step in range(3):
        state = snapshot(session)
        record = session.step()
        assert record is not None, session.error
        assert record.all_reduces == all_reduces
        expected = full_batch_grads(cfg, state, session, step)
        for name, p in zip(session.param_names, session.params):
            assert p.grad is not None
            assert p.grad.allclose(expected[name], rtol=1e-5, atol=1e-6), name


def test_the_gradient_is_the_ranks_own():
    """The ranks alone, handed the weights and the batch: DDP's gradient, not the
    session's backward, is what the step uses (half the batch each, 1/4 per part)."""
    session = Session(BASE.replace(ddp_ranks=1))
    state = snapshot(session)
    x, targets = batch(session, 0, BASE.batch_size)
    count, grads = rank_group(2, SHAPE).step(session.params, x, targets, [0.25] * 3, 4,
                                             no_sync=True)
    expected = full_batch_grads(BASE, state, session, 0)
    assert count == 1
    for name, g in zip(session.param_names, grads):
        assert expected[name].allclose(torch.from_numpy(g), rtol=1e-5,
                                       atol=1e-6), name


def test_one_process_measures_no_all_reduces():
    session = Session(BASE.replace(ddp_ranks=1))
    record = session.step()
    assert record is not None and record.all_reduces is None


def test_a_rank_that_dies_stops_the_step_in_one_line_and_ends_the_rest():
    session = Session(BASE)
    assert session.step() is not None
    group = rank_group(2, SHAPE)
    rank_pids = list(descendants(os.getpid()))
    os.kill(group._processes[1].pid, signal.SIGKILL)
    assert session.step() is None
    error = session.error
    assert error is not None and error.step == 1
    assert error.message.startswith("DDP rank 1 ended (exit code -9)")
    assert "\n" not in error.message and error.source == "gradviz's DDP ranks"
    assert not group.alive
    assert not set(rank_pids) & set(descendants(os.getpid()))
    assert session.step() is not None   # a fresh group: the session goes on


def test_a_lessons_check_counts_and_ends_the_ranks():
    """(tests/core/test_lessons.py checks the bundled lesson 15 whole.)"""
    lesson = parse_lesson("x", '''title = "t"
config = { accumulate = 4 }
[[slides]]
title = "two ranks"
narration = "n"
config = { ddp-ranks = 2 }
stop = 2
expect = [{ equals = { metric = "all_reduces", value = 3 } }]
''')
    assert check_lesson(lesson) == ["slide 1 (two ranks): all_reduces is 4 at step 0, not 3"]
    assert descendants(os.getpid()) == []   # the check ends the ranks it used


def test_ranks_that_cannot_all_start_end_those_that_did(monkeypatch):
    started = []
    real_popen = subprocess.Popen

    def popen(*args, **kwargs):
        if started:
            raise OSError("Resource temporarily unavailable")
        started.append(real_popen(*args, **kwargs))
        return started[-1]
    monkeypatch.setattr(ddp_ranks.subprocess, "Popen", popen)
    with pytest.raises(RankError) as caught:
        ddp_ranks.RankGroup(2, SHAPE)
    assert str(caught.value) == "cannot start the DDP ranks: Resource temporarily unavailable"
    assert started[0].poll() is not None   # ended (and reaped), not left behind


class _Ended:
    """A rank's process as RankGroup sees it: its exit code, or still running."""

    def __init__(self, code: int | None):
        self.code = code

    def wait(self, timeout: float) -> int:
        if self.code is None:
            raise subprocess.TimeoutExpired("rank", timeout)
        return self.code


@pytest.mark.parametrize("codes, named", [
    ((-signal.SIGABRT, -signal.SIGKILL), "DDP rank 1 ended (exit code -9)"),
    ((-signal.SIGABRT, None), "DDP rank 0 ended (exit code -6)"),
    ((-signal.SIGABRT, -signal.SIGABRT), "DDP rank 0 ended (exit code -6)"),
    ((1, -signal.SIGKILL), "DDP rank 0 ended (exit code 1)"),
    # its pipe closed mid-step, the rank left cleanly: the killed peer ended first
    ((0, -signal.SIGKILL), "DDP rank 1 ended (exit code -9)"),
    ((0, None), "DDP rank 0 ended (exit code 0)"),
])
def test_a_rank_aborted_by_its_peer_s_end_names_the_peer(codes, named):
    """gloo aborts a rank whose peer's connection is reset: where rank 1 was killed, rank
    0's pipe could close first, and the step said "rank 0 ended (exit code -6)"."""
    group = object.__new__(ddp_ranks.RankGroup)
    group._processes = [_Ended(code) for code in codes]
    assert str(group._ended(0, "finish the step")).startswith(named)
