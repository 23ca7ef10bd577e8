"""criterion=: the losses taken from the loss module the loop already calls, so a GAN's
loop (pytorch/examples' DCGAN: one `criterion`, three backward calls an iteration, two
optimizers) is watched by one added line. Bare and watched: bit-equal; each call of a
step recorded under its name, equal to the values the loop itself saw."""
from __future__ import annotations

import pytest
import torch
from torch import nn

import gradviz
from gradviz.plain.run_files.watch_read import StreamReader


def _dcgan(make_watch, iterations=4):
    """The DCGAN loop's shape, with its own `criterion` module. make_watch, where given,
    is the one added line: it gets the models, the optimizers and the criterion."""
    torch.manual_seed(5)
    net_g = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))
    net_d = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    opt_d = torch.optim.Adam(net_d.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_g = torch.optim.Adam(net_g.parameters(), lr=2e-3, betas=(0.5, 0.999))
    criterion = nn.BCEWithLogitsLoss()
    if make_watch is not None:
        make_watch(net_g, net_d, opt_g, criterion)                       # the added line
    seen = []
    for i in range(iterations):
        g = torch.Generator().manual_seed(i)
        real, noise = torch.randn(8, 4, generator=g), torch.randn(8, 2, generator=g)
        net_d.zero_grad()
        err_real = criterion(net_d(real), torch.ones(8, 1))
        err_real.backward()
        fake = net_g(noise)
        err_fake = criterion(net_d(fake.detach()), torch.zeros(8, 1))
        err_fake.backward()
        opt_d.step()
        net_g.zero_grad()
        err_g = criterion(net_d(fake), torch.ones(8, 1))
        err_g.backward()
        grads = {**{"G." + n: p.grad.norm().item() for n, p in net_g.named_parameters()},
                 **{"D." + n: p.grad.norm().item() for n, p in net_d.named_parameters()}}
        opt_g.step()
        with torch.no_grad():   # an evaluation's call of the criterion: no loss of the step
            criterion(net_d(real), torch.ones(8, 1))
        seen.append(({"D_real": err_real.item(), "D_fake": err_fake.item(),
                      "G": err_g.item()}, grads))
    return [*net_g.parameters(), *net_d.parameters()], seen


def test_a_dcgan_loop_is_watched_by_one_added_line_bit_equal(tmp_path):
    bare, seen = _dcgan(None)
    made = []
    watched, seen_w = _dcgan(lambda g, d, opt_g, criterion: made.append(gradviz.watch(
        nn.ModuleDict({"G": g, "D": d}), out=tmp_path / "gan", every=2, optimizer=opt_g,
        criterion=criterion, loss_names=["D_real", "D_fake", "G"], strict=True)))
    made[0].close()
    assert all(torch.equal(p, q) for p, q in zip(bare, watched))
    assert seen == seen_w
    records = StreamReader(tmp_path / "gan").read()
    assert [r.step for r in records] == [0, 1, 2, 3]
    for r, (losses, grads) in zip(records, seen):
        assert r.losses == losses
        assert r.total == losses["D_real"] + losses["D_fake"] + losses["G"]
        assert r.grad_norms == pytest.approx(grads, rel=1e-6)


@pytest.mark.parametrize("evaluate", [False, True], ids=["training", "with-evaluation"])
def test_a_dict_of_loss_modules_names_each_one(tmp_path, evaluate):
    """criterion={...}: each module's call is its named loss; an evaluation's call (under
    no_grad) is not one more micro-batch of that loss: each step records the training
    calls alone."""
    torch.manual_seed(3)
    model = nn.Linear(3, 2)
    l1, mse = nn.L1Loss(), nn.MSELoss()
    x, y = torch.randn(6, 3), torch.randn(6, 2)
    x_eval, y_eval = torch.randn(4, 3), torch.randn(4, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    expected = []
    with gradviz.watch(model, out=tmp_path / "run", optimizer=opt, strict=True,
                       criterion={"depth": l1, "seg": mse}):
        for _ in range(3):
            if evaluate:
                with torch.no_grad():   # an evaluation before the step: no loss of it
                    out = model(x_eval)
                    l1(out[:, 0], y_eval[:, 0]), mse(out[:, 1], y_eval[:, 1])
            out = model(x)
            a, b = l1(out[:, 0], y[:, 0]), mse(out[:, 1], y[:, 1])
            expected.append({"depth": a.item(), "seg": b.item()})
            (a + b).backward()
            opt.step()
            opt.zero_grad()
    assert [r.losses for r in StreamReader(tmp_path / "run").read()] == expected


def test_more_calls_than_names_is_one_line_and_the_loop_goes_on(tmp_path):
    model = nn.Linear(2, 1)
    criterion = nn.MSELoss()
    with pytest.raises(gradviz.WatchError, match="criterion was called 2 times in a step"):
        with gradviz.watch(model, out=tmp_path / "run", criterion=criterion,
                           loss_names=["only"], strict=True):
            criterion(model(torch.ones(1, 2)), torch.zeros(1, 1))
            criterion(model(torch.ones(1, 2)), torch.zeros(1, 1))


@pytest.mark.parametrize("criterion, names, words", [
    ("mse", None, "must be the loss module the loop calls"),
    (None, ["a"], "names the calls of criterion=, which was not given"),
    (nn.MSELoss(), "ab", "must be a list of different strings"),
    (nn.MSELoss(), ["a", "a"], "must be a list of different strings"),
    ({"a": nn.MSELoss()}, ["a"], "it names its losses itself"),
    ({1: nn.MSELoss()}, None, "must map loss names (strings) to loss modules"),
])
def test_a_wrong_criterion_argument_is_one_sentence(tmp_path, criterion, names, words):
    with pytest.raises(gradviz.WatchError, match=words.replace("(", r"\(").replace(")", r"\)")):
        gradviz.watch(nn.Linear(2, 1), out=tmp_path / "run", criterion=criterion,
                      loss_names=names, strict=True)
