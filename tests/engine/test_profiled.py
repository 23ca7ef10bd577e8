"""The engine's loop under cProfile: only where GRADVIZ_ENGINE_PROFILE asks for it, and
then its stats are in that file when the block ends."""
import pstats
import sys

from gradviz.engine.profiled import ENGINE_PROFILE_ENV, profiled


def _work() -> int:
    return sum(i * i for i in range(1000))


def test_not_profiled_unless_asked_for(monkeypatch):
    monkeypatch.delenv(ENGINE_PROFILE_ENV, raising=False)
    with profiled():
        assert sys.getprofile() is None


def test_profiled_stats_name_the_work_done(monkeypatch, tmp_path):
    path = tmp_path / "engine.prof"
    monkeypatch.setenv(ENGINE_PROFILE_ENV, str(path))
    with profiled():
        assert sys.getprofile() is not None
        _work()
    functions = {name for _, _, name in pstats.Stats(str(path)).stats}
    assert "_work" in functions
