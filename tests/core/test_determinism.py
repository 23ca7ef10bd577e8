"""Same config, same numbers: a lecture demo can be rerun and shows the same curves."""
import pytest
import torch

from gradviz.core.session import Session
from gradviz.plain.config.config import Config

from core_reference import batch, forward, ref_net, snapshot, weighted_sum, weights

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


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_training_matches_a_plain_loop_bit_for_bit(optimizer):
    """The engine updates every parameter in one call (its own SGD, torch's Adam with
    foreach); a plain loop with PyTorch's default optimizer, written out here, ends with
    the very same weights, a change of learning rate halfway included."""
    cfg = BASE.replace(strategy="sum", optimizer=optimizer, lr=0.01)
    s = Session(cfg)
    net = ref_net(cfg, snapshot(s))
    cls = torch.optim.SGD if optimizer == "sgd" else torch.optim.Adam
    opt = cls(net.parameters(), lr=cfg.lr)
    for step in range(8):
        if step == 4:   # the learning-rate control moved between two steps
            s.set_config(s.config.replace(lr=0.05))
            for group in opt.param_groups:
                group["lr"] = 0.05
        assert s.step() is not None, s.error
        x, targets = batch(s, step, cfg.batch_size)
        opt.zero_grad(set_to_none=True)
        _, losses = forward(net, x, targets)
        weighted_sum(weights(cfg), losses).backward()
        opt.step()
    mine = snapshot(s)
    for name, weight in net.state_dict().items():
        assert torch.equal(mine[name], weight), name
