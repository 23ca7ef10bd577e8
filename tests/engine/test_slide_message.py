"""A lesson slide is one message to the engine: a fresh model at step 0 with the slide's
config, built once (a slide changing the heads built two), one graph, its pace, play
mode and stop, then Play where it autoplays."""
import torch

from gradviz.core import session as session_module
from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config

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
    loop.handle(p.Step())
    loop.take_outbox()
    built = _count_models(monkeypatch)
    slide = CONFIG.replace(heads=2, strategy="separate")
    loop.handle(p.Slide(slide, p.EngineSettings(delay_ms=500, animate_phases=True, stop_at=12),
                        True))
    out = loop.take_outbox()
    assert len(built) == 1 and built[0][0] == 2                 # two heads, built once
    assert [type(m) for m in out].count(p.Graph) == 1
    applied = [m for m in out if isinstance(m, p.ConfigApplied)]
    assert len(applied) == 1 and applied[0].config == slide and applied[0].did_reset is True
    assert loop.session.step_index == 0 and not loop.session.in_step
    assert (loop.player.delay_s, loop.player.animate_phases, loop.player.stop_at) == (0.5, True, 12)
    assert loop.player.running and out[-1] == p.Running(True)


def test_a_slide_with_the_same_model_still_starts_at_step_0_from_the_seed(monkeypatch):
    loop = EngineLoop(CONFIG)
    for _ in range(3):
        loop.handle(p.Step())
    built = _count_models(monkeypatch)
    loop.handle(p.Slide(CONFIG.replace(lr=0.05), p.EngineSettings(), False))
    assert len(built) == 1 and loop.session.step_index == 0 and not loop.player.running
    torch.manual_seed(CONFIG.seed)                              # the same initial weights
    fresh = session_module.MultiHeadNet(CONFIG.heads, CONFIG.trunk_width, CONFIG.trunk_depth,
                                        CONFIG.model)
    for (name, mine), (_, theirs) in zip(loop.session.model.named_parameters(),
                                         fresh.named_parameters()):
        assert torch.equal(mine.detach(), theirs.detach()), name
    assert loop.session.config.lr == 0.05 and loop.player.stop_at is None


def test_a_slide_the_engine_cannot_use_is_refused_in_one_line(monkeypatch):
    loop = EngineLoop(CONFIG)
    loop.take_outbox()
    loop.handle(p.Slide(CONFIG.replace(device="cuda:7"), p.EngineSettings(), True))   # none
    out = loop.take_outbox()
    assert [type(m) for m in out] == [p.ConfigRejected] and "\n" not in out[0].reason
    assert not loop.player.running
