"""Same config, same numbers: a lecture demo can be rerun and shows the same curves."""
from gradviz.core.config import Config
from gradviz.core.session import Session

BASE = Config(device="cpu", heads=3, batch_size=32, strategy="separate",
              probes="default", sample_every=1)


def _numbers(cfg, steps=20):
    s = Session(cfg)
    out = []
    for _ in range(steps):
        r = s.step()
        assert r is not None, s.error
        out.append((r.losses, r.total, r.grad_norms, r.global_grad_norm,
                    r.junction_grad_norms, r.saved_bytes_peak))
    return out


def test_two_sessions_with_one_config_are_bit_identical():
    a, b = _numbers(BASE), _numbers(BASE)
    assert a == b   # exact float equality, step by step


def test_a_different_seed_gives_different_numbers():
    a, b = _numbers(BASE, 3), _numbers(BASE.replace(seed=1), 3)
    for (la, *_), (lb, *_) in zip(a, b):
        assert all(la[k] != lb[k] for k in la)


def test_a_reset_replays_the_same_run():
    s = Session(BASE)
    first = [s.step().losses for _ in range(5)]
    s.reset()
    assert [s.step().losses for _ in range(5)] == first
