"""The torchviz adapter: same ops and parameters as our graph, importable on 3.11-3.13."""
from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from gradviz.render import torchviz_adapter as adapter
from gradviz.render.torchviz_adapter import make_dot_text, torchviz_node_labels

REPO = Path(__file__).resolve().parents[2]

# Run in a fresh interpreter: warnings are errors, Qt must never be loaded by render,
# and torchviz's DOT for a tiny graph must name its ops and parameters.
IMPORT_CHECK = """
import sys
{prelude}
BLOCK = {block!r}
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCK:
            raise ImportError("blocked for this test: " + name)
sys.meta_path.insert(0, Blocker())
for name in [m for m in sys.modules if m.split(".")[0] in BLOCK]:
    del sys.modules[name]
for name in BLOCK:
    try:
        __import__(name)
    except ImportError:
        pass
    else:
        raise SystemExit(name + " could still be imported")
import torch
import gradviz.render.export, gradviz.render.torchviz_adapter as a
w = torch.ones(2, 3, requires_grad=True)
text = a.make_dot_text([(w * w).sum()], {{"w": w}})
found = a.torchviz_node_labels(text)
assert found.ops == {{"SumBackward0": 1, "MulBackward0": 1, "AccumulateGrad": 1}}, found
assert found.params == {{"w": 1}}, found
assert not any(m.split(".")[0] in ("PySide6", "pyqtgraph", "shiboken6") for m in sys.modules)
stub = sys.modules.get("distutils.version")
assert stub is None or getattr(stub, "LooseVersion", None) is not a._LooseVersion
print("ok")
"""


def _run_check(python: str, block: tuple[str, ...] = (),
               prelude: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([python, "-W", "error::DeprecationWarning", "-c",
                           IMPORT_CHECK.format(block=block, prelude=prelude)],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=300)


def test_torchviz_ops_and_params_match_our_graph(detach_session, detach_graph):
    s = detach_session
    text = make_dot_text(s._live.roots, dict(zip(s.param_names, s.params)))
    found = torchviz_node_labels(text)
    # torchviz draws AccumulateGrad as an op beside each parameter; we merge the two
    assert found.ops["AccumulateGrad"] == len(s.params)
    ops = found.ops - Counter({"AccumulateGrad": len(s.params)})
    assert ops == Counter(n.label for n in detach_graph.by_kind("op"))
    assert found.params == Counter(n.label for n in detach_graph.by_kind("param"))
    assert found.params == Counter(s.param_names)
    assert found.outputs == len(s._live.roots)


def test_node_labels_reads_quoted_multiline_and_bare_labels():
    text = ('digraph {\n\tgraph [size="12,12"]\n\tnode [shape=box style=filled]\n'
            '\t1 [label="trunk.0.weight\n (32, 8)" fillcolor=lightblue]\n'
            '\t2 [label=AccumulateGrad]\n\t1 -> 2\n\t3 [label="Add\\"Backward0"]\n'
            '\t4 [label="\n ()" fillcolor=darkolivegreen1]\n\t2 -> 3 [style=dotted]\n}\n')
    found = torchviz_node_labels(text)
    assert found.ops == Counter({"AccumulateGrad": 1, 'Add"Backward0': 1})
    assert found.params == Counter({"trunk.0.weight": 1})
    assert found.outputs == 1


def test_imports_with_deprecation_warnings_as_errors():
    done = _run_check(sys.executable)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_works_when_torchviz_was_imported_before_with_setuptools_distutils():
    # setuptools' LooseVersion warns each time one is made, and make_dot makes one a call
    pytest.importorskip("setuptools")
    prelude = ("import warnings\nwith warnings.catch_warnings():\n"
               "    warnings.simplefilter('ignore')\n    import setuptools, torchviz\n"
               "import distutils.version\n"
               "assert torchviz.dot.LooseVersion is distutils.version.LooseVersion")
    done = _run_check(sys.executable, prelude=prelude)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_imports_where_there_is_no_distutils_nor_setuptools():
    # what Python 3.12+ without setuptools looks like, on whatever Python runs the tests
    done = _run_check(sys.executable, ("distutils", "setuptools"))
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


@pytest.mark.parametrize("version", ["3.12.1", "3.13.0"])
def test_imports_on_other_pythons_when_they_have_torch(version):
    python = Path(f"/root/.pyenv/versions/{version}/bin/python")
    if not python.exists():
        pytest.skip(f"no Python {version} here")
    probe = subprocess.run([str(python), "-c", "import torch, graphviz"],
                           capture_output=True, timeout=300)
    if probe.returncode != 0:
        pytest.skip(f"torch or graphviz is not installed for Python {version}")
    done = _run_check(str(python))
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


def test_the_stand_in_loose_version_orders_torch_versions():
    lv = adapter._LooseVersion
    assert lv("1.8.1") < lv("1.9")
    assert not lv("2.13.0+cpu") < lv("1.9")
    assert not lv("1.10.0a0+git") < lv("1.9")
