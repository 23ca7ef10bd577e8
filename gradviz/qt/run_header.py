"""The top of a recorded run's window: the line saying that nothing trains here, the
run's status, the runs of a folder of runs and the ranks of a run across ranks to pick
from, the ranks' last numbers with whether they agree, and another run to compare with
and the verdict."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

NO_COMPARISON = "compare with: none"
RECORDED_ONLY = ("A recorded run: the script that wrote this folder trained it. This "
                 "window only reads the folder, so it has no Play, no Step and no "
                 "settings.")


NOTES_SHOWN = 3   # lines about what the reader skipped shown under the status


def _label(name: str, text: str = "") -> QLabel:
    label = QLabel(text)
    label.setObjectName(name)
    label.setTextFormat(Qt.TextFormat.PlainText)   # folder names and headers: a stranger's
    label.setWordWrap(True)
    return label


class RunHeader(QWidget):
    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("runHeader")
        self.why = _label("recordedOnlyLine", RECORDED_ONLY)
        self.status = _label("runStatusLine")
        self.ranks = _label("rankLines")
        self.verdict = _label("runCompareLines")
        self.notes = _label("runNotes")   # what the reader skipped in the folder
        self.compare = QComboBox()
        self.compare.setObjectName("comparePicker")
        self.compare.setToolTip("Another run of this folder to compare with (B): its "
                                "numbers drawn dashed, the verdict below")
        self.runs = QComboBox()
        self.runs.setObjectName("runPicker")
        self.runs.setToolTip("The runs in this folder: pick one to show")
        self.streams = QComboBox()
        self.streams.setObjectName("rankPicker")
        self.streams.setToolTip("The rank whose numbers the panels show (the next rank is "
                                "drawn dashed beside it)")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.status, 1)
        row.addWidget(self.runs)
        row.addWidget(self.streams)
        row.addWidget(self.compare)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addWidget(self.why)
        layout.addLayout(row)
        layout.addWidget(self.ranks)
        layout.addWidget(self.verdict)
        layout.addWidget(self.notes)
        for part in (self.runs, self.streams, self.compare, self.ranks, self.verdict,
                     self.notes):
            part.hide()

    def set_runs(self, names: list[str]) -> None:
        self._fill(self.runs, names)

    def set_streams(self, names: list[str], shown: str | None) -> None:
        self._fill(self.streams, names if len(names) > 1 else [])
        if shown is not None and self.streams.currentText() != shown:
            self.streams.setCurrentText(shown)

    def set_compare_runs(self, names: list[str], compared: str | None) -> None:
        """The runs B may be (none: no picker), compared the one picked."""
        self._fill(self.compare, [NO_COMPARISON, *names] if names else [])
        shown = compared if compared in names else NO_COMPARISON
        if names and self.compare.currentText() != shown:
            self.compare.blockSignals(True)
            self.compare.setCurrentText(shown)
            self.compare.blockSignals(False)

    def set_compare_lines(self, lines: list[str]) -> None:
        """The verdict on A and B ([]: not comparing)."""
        self.verdict.setText("\n".join(lines))
        self.verdict.setVisible(bool(lines))

    def set_rank_lines(self, lines: list[str]) -> None:
        self.ranks.setText("\n".join(lines))
        self.ranks.setVisible(bool(lines))

    def set_notes(self, lines: list[str]) -> None:
        """What the reader skipped or refused in the folder, a line each: the first
        NOTES_SHOWN, then how many more (`gradviz report DIR` lists them all)."""
        shown = lines[:NOTES_SHOWN]
        if len(lines) > NOTES_SHOWN:
            shown.append(f"... and {len(lines) - NOTES_SHOWN} more (gradviz report lists "
                         "them)")
        text = "\n".join(shown)
        if self.notes.text() != text:
            self.notes.setText(text)
        self.notes.setVisible(bool(lines))

    @staticmethod
    def _fill(box: QComboBox, names: list[str]) -> None:
        if [box.itemText(i) for i in range(box.count())] != names:
            box.blockSignals(True)   # filling it is no pick of the user's
            box.clear()
            box.addItems(names)
            box.blockSignals(False)
        box.setVisible(bool(names))
