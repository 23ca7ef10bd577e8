"""The one place that imports torchviz: its DOT for the same roots (a reference drawing
to compare ours with), importable on Python 3.11-3.13 with or without setuptools.
"""
from __future__ import annotations

import re
import sys
import types
import warnings
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import torch

from gradviz.core.graph import Root
from gradviz.plain.records.events import first_line

from .graphviz_program import RenderError


class _LooseVersion:
    """Enough of distutils' LooseVersion for torchviz's one check (torch >= 1.9)."""

    def __init__(self, text: str):
        match = re.match(r"[\d.]*", str(text))   # matches always, if only ""
        numbers = match.group(0) if match else ""
        self.parts = tuple(int(p) for p in numbers.split(".") if p)

    def __lt__(self, other: _LooseVersion) -> bool:
        return self.parts < other.parts


def _import_torchviz() -> types.ModuleType:
    """Import torchviz with a stand-in distutils.version lent for the import only.

    Python 3.12 has no distutils; 3.11's warns on import; setuptools' copy warns each
    time a LooseVersion is made (make_dot makes one per call). The stand-in avoids all
    three and is taken out of sys.modules again so nothing else ever sees it.
    """
    names = ("distutils", "distutils.version")
    before = {name: sys.modules.get(name) for name in names}
    package = types.ModuleType("distutils")
    package.__path__ = []   # a package, so `distutils.version` can be imported from it
    version = types.ModuleType("distutils.version")
    # through __dict__: a module made here has no declared attributes to assign to
    version.__dict__["LooseVersion"] = _LooseVersion
    package.__dict__["version"] = version
    sys.modules.update({"distutils": package, "distutils.version": version})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import torchviz
            import torchviz.dot
    finally:
        for name, module in before.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
    torchviz.dot.LooseVersion = _LooseVersion   # in case it was imported before us
    return torchviz


def _tensor(root: Root | torch.Tensor) -> torch.Tensor:
    return root.tensor if isinstance(root, Root) else root


def make_dot_text(roots: Iterable[Root | torch.Tensor], params: Mapping[str, torch.Tensor]
                  | Iterable[tuple[str, torch.Tensor]]) -> str:
    """torchviz's DOT for the graph below roots (tensors or core Roots), params named.

    show_saved stays off: torchviz reads every saved tensor then, which raises once a
    backward without retain_graph has freed them.
    """
    torchviz = _import_torchviz()
    tensors = tuple(_tensor(r) for r in roots)
    try:
        return torchviz.make_dot(tensors, params=dict(params), show_saved=False).source
    except (RuntimeError, AssertionError) as exc:
        raise RenderError(f"torchviz could not draw this graph: {first_line(exc)}") from None


@dataclass
class TorchvizNodes:
    ops: Counter       # backward op type names, AccumulateGrad included
    params: Counter    # names of the parameter (lightblue) nodes
    outputs: int       # root tensors (torchviz's green nodes)


# a node statement: ID [attrs]; quoted values may span lines (graphviz writes the
# newline of "name\n (shape)" as it is), so match over the whole text, not line by line
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_NODE = re.compile(rf'^[ \t]*({_QUOTED}|\w+)[ \t]*\[((?:{_QUOTED}|[^\]"])*)\]', re.MULTILINE)
_ATTR = re.compile(rf'(\w+)=({_QUOTED}|[^\s\]]+)')


def _unquote(value: str) -> str:
    if value.startswith('"') and value.endswith('"'):
        value = value[1:-1]
    return re.sub(r'\\(["\\])', r"\1", value)


def torchviz_node_labels(dot_text: str) -> TorchvizNodes:
    """What torchviz drew: op names, parameter names and outputs, each as a multiset."""
    ops: Counter = Counter()
    params: Counter = Counter()
    outputs = 0
    for node_id, body in _NODE.findall(dot_text):
        if node_id in ("node", "graph", "edge"):
            continue
        attrs = {k: _unquote(v) for k, v in _ATTR.findall(body)}
        label = attrs.get("label", "")
        fill = attrs.get("fillcolor")
        if fill is None:
            ops[label] += 1
        elif fill == "lightblue":
            params[re.split(r"\n|\\n", label)[0].strip()] += 1   # "name\n (shape)"
        elif fill.startswith("darkolivegreen"):
            outputs += 1
    return TorchvizNodes(ops, params, outputs)
