"""The screen fitting and the View menu observe and change the window's model: neither
reads an attribute of gradviz's own off the window (its docks, panels, theme, lessons).
Qt's own QMainWindow calls (addDockWidget, resize, menuBar...) are typed and allowed.
Read from the source, as a reviewer would grep it."""
import ast
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMainWindow

QT = Path(__file__).resolve().parents[2] / "gradviz" / "qt"


def _window_names(tree: ast.AST) -> set[str]:
    """`window`, and every local name bound to it or to self.window."""
    names = {"window"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            pairs = (zip(node.targets[0].elts, node.value.elts)
                     if isinstance(node.targets[0], ast.Tuple)
                     and isinstance(node.value, ast.Tuple)
                     else [(node.targets[0], node.value)])
            for target, value in pairs:
                if isinstance(target, ast.Name) and _is_window(value, names):
                    names.add(target.id)
    return names


def _is_window(node: ast.AST, names: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    return (isinstance(node, ast.Attribute) and node.attr == "window"
            and isinstance(node.value, ast.Name) and node.value.id == "self")


def reaches(source: str) -> list[str]:
    """The attributes read off the window that are not QMainWindow's."""
    tree = ast.parse(source)
    names, qt = _window_names(tree), set(dir(QMainWindow))
    return sorted(node.attr for node in ast.walk(tree)
                  if isinstance(node, ast.Attribute) and _is_window(node.value, names)
                  and node.attr not in qt)


def test_the_counter_finds_reaches_however_the_window_is_named():
    source = ("def f(window):\n    window.lessons.refit()\n    window.resize(1, 1)\n"
              "class A:\n    def g(self):\n        w, x = self.window, 1\n"
              "        w.theme.zoom\n        self.window.graph_dock\n")
    assert reaches(source) == ["graph_dock", "lessons", "theme"]


@pytest.mark.parametrize("module", ["screen_fit.py", "view_menu.py", "compare_mode.py",
                                    "lesson_mode.py"])
def test_the_module_reaches_into_no_attribute_of_the_window(module):
    assert reaches((QT / module).read_text()) == []


def private_reaches(source: str) -> list[str]:
    """Every private name (`_x`, not `__x__`) read along a chain that starts at the
    window: `window._grid`, `window.lessons._open_file`, `self.window.graph_view._x`."""
    tree = ast.parse(source)
    names, found = _window_names(tree), []
    for node in ast.walk(tree):
        chain, base = [], node
        while isinstance(base, ast.Attribute) and not _is_window(base, names):
            chain.append(base.attr)
            base = base.value
        if isinstance(base, ast.Attribute) or (isinstance(base, ast.Name)
                                               and base.id in names and chain):
            if isinstance(base, ast.Attribute):
                chain.append(base.attr)
            if isinstance(node, ast.Attribute) and node is not base:
                found += [a for a in chain if a.startswith("_") and not a.startswith("__")]
    return sorted(set(found))


def test_the_private_counter_finds_a_private_name_anywhere_along_the_chain():
    source = ("def f(window):\n    window.lessons._open_file()\n    window._grid\n"
              "    window.graph_view.export_dialog('svg')\n"
              "class A:\n    def g(self):\n        self.window.view._export_dialog\n")
    assert private_reaches(source) == ["_export_dialog", "_grid", "_open_file"]


@pytest.mark.parametrize("module", ["file_menu.py", "screenshot.py"])
def test_the_file_menu_and_the_screenshot_use_only_public_names_of_the_window(module):
    """They drive the window through its model, its engine adapter and public methods."""
    assert private_reaches((QT / module).read_text()) == []
