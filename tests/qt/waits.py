"""How long a GUI test waits for what it expects before failing: generous, since the suite
must pass on a busy 2-core laptop (torch took 13-14 s to import on one). A wait ends as
soon as its condition holds, so a long bound costs nothing when all is well; pytest-timeout
ends a test that would hang."""
WAIT_MS = 60_000


def on_record(engine, kind, slot) -> None:
    """slot(record) for each record of type kind the window's engine adapter hands on."""
    engine.received.connect(lambda record: slot(record) if isinstance(record, kind) else None)


def on_running(window, slot) -> None:
    """slot(running) at every change of the model's running (both of a batch)."""
    window.model.events.running.connect(lambda running: slot(running))
