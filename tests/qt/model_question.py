"""Answers the question asked before a model file runs, as the user would (the button
clicked), and counts how often it was asked."""
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox


class Answer:
    def __init__(self, button):
        self.button, self.asked, self.texts = button, 0, []
        self._timer = QTimer()
        self._timer.timeout.connect(self._look)
        self._timer.start(50)

    def _look(self) -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox) and box.objectName() == "runModelQuestion":
            self.asked += 1
            self.texts.append(box.text())
            box.button(self.button).click()
