"""The engine's loop on a model file (its path, as Begin carries it): every config the
window sends is fitted to the file, a pinned B trains the same file, and a file that
cannot be used is said in one line and in What happened with its own file:line, while
the built-in model trains."""
import textwrap

import pytest
import torch
import torch.nn.functional as F

from gradviz.engine import protocol as p
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config

NET = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F
    from torch import nn


    def build(seed):
        torch.manual_seed(seed)

        def batch(step, batch_size, generator):
            x = torch.randn(batch_size, 3, generator=generator)
            return x, [x[:, :1], x[:, 1:2]]

        return {"trunk": nn.Linear(3, 5), "heads": [nn.Linear(5, 1), nn.Linear(5, 1)],
                "losses": [F.mse_loss, F.mse_loss], "batch": batch,
                "names": ["left", "right"]}
    """)


def _of(loop, kind):
    return [m for m in loop.take_outbox() if isinstance(m, kind)]


def test_the_window_s_configs_are_fitted_to_the_file(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(NET)
    loop = EngineLoop(Config(device="cpu", trunk_width=64, heads=4, detach=(3,)),
                      model_path=str(path))
    (applied,) = _of(loop, p.ConfigApplied)
    assert applied.model == "net.py" and applied.head_names == ["left", "right"]
    assert applied.config.heads == 2 and applied.config.trunk_width == Config().trunk_width
    assert applied.config.detach == ()
    loop.handle(p.SetConfig(Config(device="cpu", lr=0.2, trunk_depth=5)))   # Shift+R-like
    (applied,) = _of(loop, p.ConfigApplied)
    assert applied.config.lr == 0.2 and applied.config.heads == 2
    assert loop.session.spec is not None and loop.session.config.trunk_depth == 2
    record = loop.session.step()
    graph = loop.session.graph()   # the loss nodes carry the file's names
    assert sorted(n.label for n in graph.by_kind("loss")) == ["left", "right"]
    # step 0's losses, from the file's build(0) and batch as a plain program runs them
    namespace: dict = {}
    exec(compile(NET, str(path), "exec"), namespace)
    built = namespace["build"](0)
    x, targets = built["batch"](0, 64, torch.Generator().manual_seed(0))
    with torch.no_grad():   # numbers only: no graph to convert from
        z = built["trunk"](x)
        plain = [float(F.mse_loss(h(z), t)) for h, t in zip(built["heads"], targets)]
    assert list(record.losses.values()) == pytest.approx(plain, rel=1e-6)


def test_a_pinned_b_trains_the_same_file(tmp_path):
    path = tmp_path / "net.py"
    path.write_text(NET)
    loop = EngineLoop(Config(device="cpu"), model_path=str(path))
    loop.handle(p.PinB(Config(device="cpu", strategy="separate", trunk_width=7)))
    (pinned,) = _of(loop, p.BPinned)
    assert pinned.problem is None and pinned.config.heads == 2
    assert loop.pinning.pinned.b._side.session.spec.names == ["left", "right"]


def test_a_file_whose_build_raises_is_one_line_and_its_own_line(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text("def build(seed):\n    x = 1\n    return x.nope\n")
    loop = EngineLoop(Config(device="cpu"), model_path=str(path))
    out = loop.take_outbox()
    (rejected,) = [m for m in out if isinstance(m, p.ConfigRejected)]
    (failed,) = [m for m in out if isinstance(m, p.Failed)]
    assert "\n" not in rejected.reason and "AttributeError" in rejected.reason
    assert "bad.py:3 in build: return x.nope" in failed.event.message
    assert loop.model_file is None and loop.session.spec is None   # the built-in model
    assert loop.session.step() is not None


def test_a_file_that_does_not_fit_is_refused_in_one_line(tmp_path):
    path = tmp_path / "no_batch.py"
    path.write_text(NET.replace('"batch": batch,', ""))
    loop = EngineLoop(Config(device="cpu"), model_path=str(path))
    (rejected,) = _of(loop, p.ConfigRejected)
    assert "has no 'batch'" in rejected.reason and "\n" not in rejected.reason


@pytest.mark.parametrize("exits", ["import sys\nsys.exit(7)\n", "raise SystemExit('bye')\n",
                                   "raise GeneratorExit\n"])
def test_a_file_that_exits_is_one_event_naming_it_and_the_engine_goes_on(tmp_path, exits):
    """sys.exit in a model file would end the engine's process with no word."""
    path = tmp_path / "leaves.py"
    path.write_text(exits + NET)
    loop = EngineLoop(Config(device="cpu"), model_path=str(path))
    out = loop.take_outbox()
    (rejected,) = [m for m in out if isinstance(m, p.ConfigRejected)]
    assert "\n" not in rejected.reason and "leaves.py" in rejected.reason
    assert rejected.reason.startswith("model file ")
    assert any(m for m in out if isinstance(m, p.Failed))
    assert loop.session.step() is not None                    # the built-in model trains


def test_an_exit_at_a_step_is_that_steps_event(tmp_path):
    path = tmp_path / "later.py"
    path.write_text(NET.replace('"losses": [F.mse_loss, F.mse_loss]',
                                '"losses": [F.mse_loss, lambda y, t: exit(5) if y.shape[0] > 2 '
                                'else F.mse_loss(y, t)]'))
    loop = EngineLoop(Config(device="cpu", batch_size=8), model_path=str(path))
    assert loop.model_file is not None
    assert loop.session.step() is None and loop.session.error is not None
    assert loop.session.error.type == "SystemExit"
