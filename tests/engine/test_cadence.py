"""The full-speed sampling cadence: every 20th step at least, at most about 15 sampled
steps a second, always a multiple of 20 (a pinned B samples the same steps)."""
from gradviz.engine import cadence, player
from gradviz.engine import protocol as p
from gradviz.engine.cadence import Cadence, spacing
from gradviz.engine.loop import EngineLoop
from gradviz.plain.config.config import Config


def test_spacing_keeps_samples_at_most_15_a_second_and_a_multiple_of_20():
    for rate in (10.0, 299.0, 300.0, 301.0, 599.0, 600.0, 601.0, 1400.0, 2350.0, 10_000.0):
        every = spacing(rate)
        assert every % 20 == 0 and every >= 20
        assert rate / every <= 15.0 or every == 20
        assert every == 20 or rate / (every - 20) > 15.0   # the smallest that does


def test_spacing_at_known_rates():
    assert spacing(300.0) == 20      # 300 steps/s or slower: every 20th
    assert spacing(500.0) == 40      # 12.5 samples a second
    assert spacing(1400.0) == 100    # 14 a second
    assert spacing(2400.0) == 160    # 15 a second


def test_cadence_follows_the_rate_over_a_timed_second():
    c = Cadence()
    c.trained(40, 100.0)               # the first batch: its start is not known
    assert c.every == 20
    c.trained(900, 100.5)              # half a second: not yet
    assert c.every == 20
    c.trained(900, 101.0)              # 1,800 steps in 1 s
    assert c.every == 120
    c.trained(300, 102.0)              # then 300 steps/s
    assert c.every == 20
    c.trained(2000, 102.5)
    c.restart()                        # Play again: measured afresh
    assert c.every == 20
    c.trained(5000, 103.0)
    assert c.every == 20


def test_at_full_speed_a_and_b_sample_the_same_steps_as_the_spacing_changes(monkeypatch):
    """The spacing set between batches (here: 20, then 40 as a fast rate would ask):
    A's sampled steps are those it divides, and a pinned B measures the same ones."""
    monkeypatch.setattr(cadence, "RATE_SECONDS", 1e9)   # the spacing is set by hand here
    monkeypatch.setattr(player, "BATCH_SECONDS", 0.0)   # a batch of one step
    config = Config(device="cpu", heads=2, trunk_width=8, batch_size=8)
    loop = EngineLoop(config)
    loop.handle(p.PinB(config.replace(strategy="separate")))
    loop.handle(p.Play())
    a, b = [], []
    while loop.session.step_index < 130:
        if loop.session.step_index >= 50:
            loop.player.cadence.every = 40
        loop.train_batch(lambda: False)
        loop.pinning.pinned.collect(wait=True)
        for message in loop.take_outbox():
            if isinstance(message, p.Records):
                a += [r.step for r in message.records if r.cosine is not None]
            elif isinstance(message, p.Compared):
                b += [r.step for r in message.records if r.b.junction_grad_norms is not None]
    assert a == [0, 20, 40, 80, 120]
    assert b == a
