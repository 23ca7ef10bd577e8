"""Run by test_real_display.py on a real X server (Xvfb): open the window as a user does,
and print, as JSON, whether it fits the screen at launch, after Ctrl+= three times, after
clicking a parameter and after Ctrl+= five times more; whether PageDown changed the
slide; how long Ctrl+Q took."""
import json
import time

SETTLE_S = 30   # the longest a step waits for the window to come to rest


def main() -> None:
    from PySide6.QtCore import Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from gradviz.qt.launch import load_settings
    from gradviz.qt.main_window import MainWindow
    from gradviz.qt.screen_fit import too_big

    app = QApplication([])
    settings, remembered = load_settings()
    window = MainWindow(remembered, settings)
    # fits asked for in a burst are made once, FIT_EVERY_MS after the first; each
    # step below waits for its fit, so at 250 ms the check mostly waited
    window.screen_fit.timer.setInterval(50)
    window.show()
    out = {}

    def fits(name):
        app.processEvents()
        screen = window.screen().availableGeometry()
        frame = window.frameGeometry()
        out[name] = [frame.width(), frame.height(), screen.width(), screen.height(),
                     screen.contains(frame)]

    def legible():
        """At launch: each tab bar on screen names open docks only (no stray bar over a
        dock's charts), the loss curves' data area is at least LOSS_PLOT_LEAST high, and
        the gradient charts, cramped together, are tabs."""
        from PySide6.QtWidgets import QDockWidget, QTabBar

        from gradviz.qt.screen_fit import LOSS_PLOT_LEAST
        app.processEvents()
        open_docks = {d.windowTitle() for d in window.findChildren(QDockWidget)
                      if d.toggleViewAction().isChecked()}
        bars = [[bar.tabText(i) for i in range(bar.count())]
                for bar in window.findChildren(QTabBar)
                if bar.parent() is window and bar.isVisible()
                and window.rect().intersects(bar.geometry())]
        out["stale_tabs"] = [t for tabs in bars for t in tabs if t not in open_docks]
        out["loss_plot_height"] = [window.loss_plot.plot.getViewBox().height(),
                                   LOSS_PLOT_LEAST * window.theme.zoom]
        out["charts_in_tabs"] = bool(window.gradients_panel.compact)
        # the settings and the charts a toggle changes, both in view (not tabs of one dock)
        out["settings_beside_charts"] = [not w.visibleRegion().isEmpty()
                                         for w in (window.controls, window.gradients_panel)]

    def when_settled(then, ready=lambda: True, looks=3, inside=True):
        """then() once the window is at rest: ready(), its screen fit done, the window
        inside its screen and its frame the same for three looks 100 ms apart (the X
        server applies a resize a while after Qt asks for it). At most SETTLE_S: then
        the checks say what is wrong. looks=1, inside=False: the fit done, no more."""
        seen, started = [], time.monotonic()
        timer = QTimer(window)

        def look():
            if ready() and not window.screen_fit.timer.isActive() \
                    and not (inside and too_big(window)):
                seen.append(window.frameGeometry())
            else:
                seen.clear()
            if (len(seen) >= looks and seen[-1] == seen[-looks]) or \
                    time.monotonic() - started > SETTLE_S:
                timer.stop()
                timer.deleteLater()
                then()
        timer.timeout.connect(guarded(look))
        timer.start(100)

    def steps():
        # keys reach a window's shortcuts only while it is the active one (with no window
        # manager, nothing activates it on its own)
        window.activateWindow()
        out["active"] = QTest.qWaitForWindowActive(window, 5000)
        fits("launch")
        legible()
        window.lessons.open_named("detach-vs-detach_")
        narration = window.lessons.narration.text
        when_settled(on_slide, lambda: narration.viewport().height() > 0 and prepared())

    def prepared() -> bool:
        """The slide's first state is in: its panels no longer covered by "Preparing…"."""
        return window.model.preparing is None

    def on_slide():
        """The first slide (the push on the trunk, and the graph) laid out: its chart and
        its narration both on screen, neither a tab behind the other."""
        def seen(widget) -> bool:
            return not widget.visibleRegion().isEmpty()

        out["slide_seen"] = {"narration": seen(window.lessons.narration.text),
                             "chart": seen(window.junction), "graph": seen(window.graph_view)}
        text = window.lessons.narration.text   # whole: no Notice scrolled out of sight
        out["narration_whole"] = [text.document().size().height(), text.viewport().height()]
        # the text grows on this slide (a chart and the graph); on the next, an error's
        # What happened beside the graph, Ctrl+= is taken back where it would be cut
        for _ in range(3):
            QTest.keyClick(window, Qt.Key_Equal, Qt.ControlModifier)
        when_settled(after_zoom)

    def after_zoom():
        fits("zoomed")
        out["zoom"] = window.theme.zoom
        window.graph_view.param_history_source = lambda name: ([0, 1, 2], [1.0, 2.0, 1.5])
        window.graph_view.show_param_history("trunk.0.weight")
        when_settled(after_click)

    def after_click():
        """Then Ctrl+= five more times, as a lecturer would for the back row: the text
        grows as far as the screen has room for, and the window stays on it."""
        fits("history")
        larger(5)

    def larger(presses):
        """One Ctrl+= at a time, each once the screen fit has answered the one before."""
        if not presses:
            when_settled(after_larger)
            return
        QTest.keyClick(window, Qt.Key_Equal, Qt.ControlModifier)
        # the notice as the press left it: a step the engine sends later (a busy machine
        # delays them) may put the status back before the last press has settled
        note_notice()
        when_settled(lambda: (note_notice(), larger(presses - 1)), looks=1, inside=False)

    def note_notice():
        if "is the largest" in window.phase_label.text():
            out["notice_seen"] = window.phase_label.text()

    def after_larger():
        fits("largest")
        out["largest_zoom"] = window.theme.zoom
        out["largest_notice"] = out.get("notice_seen") or window.phase_label.text()
        title = window.windowTitle()
        QTest.keyClick(window, Qt.Key_PageDown)
        out["page_down"] = [title, window.windowTitle()]
        when_settled(after_page_down, prepared)

    def after_page_down():
        fits("next_slide")
        out["quit_started"] = time.monotonic()
        QTest.keyClick(window, Qt.Key_Q, Qt.ControlModifier)

    def guarded(step):
        def run():   # a failure ends the check at once, said in its JSON, not by a timeout
            try:
                step()
            except Exception as exc:
                out["error"] = f"{type(exc).__name__}: {exc}"
                app.quit()
        return run

    steps, on_slide, after_zoom, after_click, after_larger, after_page_down = map(
        guarded, (steps, on_slide, after_zoom, after_click, after_larger, after_page_down))
    when_settled(steps, lambda: window.windowHandle().isExposed())
    app.exec()
    if "error" in out:
        print(json.dumps(out))
        return
    out["quit_seconds"] = time.monotonic() - out.pop("quit_started")
    window.dispose()
    print(json.dumps(out))


if __name__ == "__main__":   # the engine process is spawned: it re-imports this file
    main()
