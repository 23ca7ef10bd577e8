"""A lesson slide is one message to the engine: a fresh model at step 0 with the slide's
config, built once (a slide changing the heads built two), one graph, its pace, play
mode and stop, then Play where it autoplays."""
import torch

from gradviz.core import session as session_module
from gradviz.core.config import Config
from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop

CONFIG = Config(device="cpu", batch_size=16)


def _count_models(monkeypatch) -> list:
    built = []
    real = session_module.MultiHeadNet

    def counting(*args, **kwargs):
        built.append(args)
        return real(*args, **kwargs)
    monkeypatch.setattr(session_module, "MultiHeadNet", counting)
    return built


def test_a_slide_changing_the_model_builds_it_once_and_sends_one_graph(monkeypatch):
    loop = EngineLoop(CONFIG)
    loop.handle(p.STEP)
    loop.take_outbox()
    built = _count_models(monkeypatch)
    slide = CONFIG.replace(heads=2, strategy="separate")
    loop.handle(p.SLIDE, slide, 500, True, 12, True)
    out = loop.take_outbox()
    assert len(built) == 1 and built[0][0] == 2                 # two heads, built once
    assert [m[0] for m in out].count(p.GRAPH) == 1
    applied = [m for m in out if m[0] == p.CONFIG_APPLIED]
    assert len(applied) == 1 and applied[0][1] == slide and applied[0][2] is True
    assert loop.session.step_index == 0 and not loop.session.in_step
    assert (loop.delay_s, loop.animate_phases, loop.stop_at) == (0.5, True, 12)
    assert loop.running and out[-1] == (p.RUNNING, True)


def test_a_slide_with_the_same_model_still_starts_at_step_0_from_the_seed(monkeypatch):
    loop = EngineLoop(CONFIG)
    for _ in range(3):
        loop.handle(p.STEP)
    built = _count_models(monkeypatch)
    loop.handle(p.SLIDE, CONFIG.replace(lr=0.05), 0, False, None, False)
    assert len(built) == 1 and loop.session.step_index == 0 and not loop.running
    torch.manual_seed(CONFIG.seed)                              # the same initial weights
    fresh = session_module.MultiHeadNet(CONFIG.heads, CONFIG.trunk_width, CONFIG.trunk_depth,
                                        CONFIG.model)
    for (name, mine), (_, theirs) in zip(loop.session.model.named_parameters(),
                                         fresh.named_parameters()):
        assert torch.equal(mine.detach(), theirs.detach()), name
    assert loop.session.config.lr == 0.05 and loop.stop_at is None


def test_a_slide_the_engine_cannot_use_is_refused_in_one_line(monkeypatch):
    loop = EngineLoop(CONFIG)
    loop.take_outbox()
    loop.handle(p.SLIDE, CONFIG.replace(device="cuda:7"), 0, False, None, True)   # none here
    out = loop.take_outbox()
    assert [m[0] for m in out] == [p.CONFIG_REJECTED] and "\n" not in out[0][1]
    assert not loop.running
