"""The File menu driven as a user does: save the settings as TOML and open them again,
quit with Ctrl+Q. (Ctrl+Q quitting a window: test_settings_security.py's relaunch;
comparing with a saved config: test_compare_mode.py.)"""

from PySide6.QtGui import QAction

from gradviz.app import main
from gradviz.plain.config.config import Config

from waits import WAIT_MS


def test_file_is_the_first_menu_with_quit_on_ctrl_q(qtbot, shared_window):
    w = shared_window()
    first = w.menuBar().actions()[0]
    assert first.text() == "&File"
    quit_action = w.findChild(QAction, "quitAction")
    assert quit_action.shortcut().toString() == "Ctrl+Q"


def test_saved_settings_open_again_and_run_from_the_command_line(qtbot, shared_window,
                                                                 tmp_path, capsys):
    w = shared_window(Config(strategy="separate", detach=(1,), lr=0.01))
    path = tmp_path / "mine.toml"
    w.file_menu.save_config(str(path))
    assert "Settings saved" in w.phase_label.text()
    assert main(["run", "--config", str(path), "--steps", "2", "--quiet"]) == 0
    other = shared_window()         # back on the default settings
    other.file_menu.open_config(str(path))
    qtbot.waitUntil(lambda: other.engine.session.config.strategy == "separate"
                    and other.engine.session.config.detach == (1,), timeout=WAIT_MS)
    assert other.controls.config().lr == 0.01
