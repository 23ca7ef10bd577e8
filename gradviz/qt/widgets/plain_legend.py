"""pyqtgraph's legend with its names shown as written. pyqtgraph sets every LabelItem's
text as HTML (LegendItem.addItem, LabelItem.setText), so a loss or a run named
`<img src="file:///…">` in a stranger's run folder made the window read that file and
draw it. Here a label keeps the name as given (`label.text`, which removeItem and
getLabel match) and draws it escaped."""
from __future__ import annotations

import html

import pyqtgraph as pg


class PlainLabelItem(pg.LabelItem):
    """A LabelItem whose text is plain text, never markup."""

    def setText(self, text, **args) -> None:   # noqa: N802 (pyqtgraph's name)
        super().setText(html.escape(str(text), quote=False), **args)
        self.text = text   # the name as given, not as escaped


class PlainLegend(pg.LegendItem):
    """A LegendItem whose entries' names are plain text."""

    def addItem(self, item, name) -> None:   # noqa: N802 (pyqtgraph's name)
        label = PlainLabelItem(name, color=self.opts["labelTextColor"], justify="left",
                               size=self.opts["labelTextSize"])
        sample = item if isinstance(item, self.sampleType) else self.sampleType(item)
        sample.sigClicked.connect(self.sigSampleClicked)
        self.items.append((sample, label))
        self._addItemToLayout(sample, label)
        self.updateSize()
