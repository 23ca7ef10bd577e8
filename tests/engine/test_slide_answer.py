"""While a slide's model is built the engine's heartbeat says so, and every ConfigApplied
says how many slides the engine has taken: the window tells the answer to the slide it
sent last (and what follows it) from an earlier command's."""
from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config import Config
from gradviz.plain.engine_stages import BUILDING_MODEL

CONFIG = Config(device="cpu", batch_size=16)


def applied(out: list) -> list[p.ConfigApplied]:
    return [m for m in out if isinstance(m, p.ConfigApplied)]


def test_each_slide_is_answered_with_its_count_and_built_under_its_own_stage():
    loop = EngineLoop(CONFIG)
    stages: list[str] = []
    loop.say_stage = stages.append
    assert [m.slide for m in applied(loop.take_outbox())] == [0]   # no slide yet
    loop.handle(p.Slide(CONFIG.replace(heads=2), p.EngineSettings(), False))
    loop.handle(p.Reset())   # another command's fresh model: still the first slide's
    loop.handle(p.Slide(CONFIG.replace(heads=3), p.EngineSettings(), False))
    out = applied(loop.take_outbox())
    assert [(m.slide, m.config.heads) for m in out] == [(1, 2), (1, 2), (2, 3)]
    assert stages == [BUILDING_MODEL, BUILDING_MODEL]


def test_a_slide_refused_is_still_counted():
    loop = EngineLoop(CONFIG)
    loop.handle(p.Slide(CONFIG.replace(heads=2), p.EngineSettings(), False))
    loop.handle(p.Slide(CONFIG.replace(device="cuda:7"), p.EngineSettings(), False))
    loop.handle(p.SetConfig(CONFIG.replace(heads=2, lr=0.02)))
    out = loop.take_outbox()
    assert any(isinstance(m, p.ConfigRejected) for m in out)
    assert applied(out)[-1].slide == 2
