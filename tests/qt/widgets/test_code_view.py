"""The Code panel: the loop of the config it is given, and Copy as script copies the
whole program that loop is the end of."""
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QPushButton

from gradviz.core.config import Config
from gradviz.core.loop_code import loop_code
from gradviz.core.script import script_text
from gradviz.qt.widgets.code_view import CodeView


def test_copy_as_script_copies_the_program_of_the_config(qtbot):
    view = CodeView()
    qtbot.addWidget(view)
    button = view.findChild(QPushButton, "copyScriptButton")
    assert button is not None and not button.isEnabled()   # no config yet
    cfg = Config(strategy="separate", accumulate=2, detach=(1,))
    view.set_config(cfg)
    assert view.code() == loop_code(cfg)
    assert button.isEnabled()
    qtbot.mouseClick(button, Qt.LeftButton)
    copied = QApplication.clipboard().text()
    assert copied == script_text(cfg)
    assert copied.endswith(view.code())
    view.set_config(cfg.replace(strategy="in-loop"))
    qtbot.mouseClick(button, Qt.LeftButton)
    assert "total += term" in QApplication.clipboard().text()
