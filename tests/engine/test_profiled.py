"""The engine's loop under cProfile: only where GRADVIZ_ENGINE_PROFILE asks for it, and
then its stats are in that file when the block ends."""
import pstats
import sys

from gradviz.engine.profiled import ENGINE_PROFILE_ENV, profiled


def _profiling() -> bool:
    """Whether a profiler runs: cProfile takes sys.monitoring's profiler slot on 3.12 and
    newer, and sets sys.setprofile's function on 3.11 (which 3.12's leaves None)."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        return monitoring.get_tool(monitoring.PROFILER_ID) is not None
    return sys.getprofile() is not None


def _work() -> int:
    return sum(i * i for i in range(1000))


def test_not_profiled_unless_asked_for(monkeypatch):
    monkeypatch.delenv(ENGINE_PROFILE_ENV, raising=False)
    with profiled():
        assert not _profiling()


def test_profiled_stats_name_the_work_done(monkeypatch, tmp_path):
    path = tmp_path / "engine.prof"
    monkeypatch.setenv(ENGINE_PROFILE_ENV, str(path))
    with profiled():
        assert _profiling()
        _work()
    functions = {name for _, _, name in pstats.Stats(str(path)).stats}
    assert "_work" in functions
