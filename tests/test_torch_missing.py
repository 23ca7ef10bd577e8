"""Without torch installed, `gradviz run` and the app's engine say so in one line with
the command that installs it, never a traceback nor only "engine stopped". torch is
hidden by a package of that name first on sys.path that fails as a missing one does."""
import subprocess
import sys
import textwrap

import pytest

from gradviz.exit_codes import EXIT_USAGE
from gradviz.plain.text.torch_missing import CPU_TORCH

HIDE = "raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n"
ENGINE = textwrap.dedent("""
    import multiprocessing
    from gradviz.engine import protocol as p
    from gradviz.engine.host import serve
    from gradviz.plain.config.config import Config
    ours, theirs = multiprocessing.Pipe()
    serve(theirs, Config(), own_process=False)
    (failed,) = ours.recv()
    assert isinstance(failed, p.Failed)
    print(failed.event.title)
    print(failed.event.message)
    """)


@pytest.fixture
def no_torch(tmp_path):
    """A python -I command line whose sys.path finds the failing torch first."""
    shim = tmp_path / "shim"
    (shim / "torch").mkdir(parents=True)
    (shim / "torch" / "__init__.py").write_text(HIDE)

    def command(code: str) -> list[str]:
        return [sys.executable, "-I", "-c",
                f"import sys; sys.path.insert(0, {str(shim)!r})\n{code}"]
    return command


def test_run_says_torch_is_missing_and_how_to_install_it(no_torch, tmp_path):
    out = subprocess.run(no_torch("from gradviz.app import main; "
                                  "raise SystemExit(main(['run', '--steps', '1']))"),
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert out.returncode == EXIT_USAGE
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr
    assert "torch) is not installed" in out.stderr and f"-m pip install {CPU_TORCH}" in out.stderr


def test_the_engine_says_it_in_what_happened(no_torch, tmp_path):
    out = subprocess.run(no_torch(ENGINE), cwd=tmp_path, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    title, message = out.stdout.splitlines()
    assert title == "PyTorch is not installed"
    assert f"-m pip install {CPU_TORCH}" in message and "Traceback" not in out.stderr


def test_the_install_command_is_the_readmes():
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert f"pip install {CPU_TORCH}" in readme


def test_the_app_says_it_before_any_window_opens(tmp_path):
    """A Python with everything but torch (site-packages, torch's entries left out):
    the window's process looks torch up (it never imports it) and says so in one line."""
    import os
    import site
    from pathlib import Path

    packages = Path(next(p for p in site.getsitepackages() if Path(p, "PySide6").exists()))
    farm = tmp_path / "without-torch"
    farm.mkdir()
    for entry in packages.iterdir():
        if not entry.name.lower().startswith(("torch", "functorch")):
            (farm / entry.name).symlink_to(entry)
    out = subprocess.run([sys.executable, "-I", "-S", "-c",   # gradviz through its .pth
                          f"import site; site.addsitedir({str(farm)!r})\n"
                          "from gradviz.app import main; raise SystemExit(main([]))"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    assert out.returncode == EXIT_USAGE, out.stderr
    assert out.stderr.count("\n") == 1 and "torch) is not installed" in out.stderr
