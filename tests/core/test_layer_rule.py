"""gradviz.core is torch + numpy + stdlib: importing all of it loads no Qt, no graphviz."""
import subprocess
import sys

FORBIDDEN = ("PySide6", "pyqtgraph", "graphviz", "graphviz_pure", "torchviz", "shiboken6")

SCRIPT = f"""
import importlib, pkgutil, sys
import gradviz.core
names = [m.name for m in pkgutil.walk_packages(gradviz.core.__path__, "gradviz.core.")]
for name in names:
    importlib.import_module(name)
assert len(names) >= 10, names
print(sorted({{m.split('.')[0] for m in sys.modules}} & set({FORBIDDEN!r})))
"""


def test_importing_every_core_module_loads_no_gui_or_graphviz():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
