"""Attaching to the loops people have, with no model edit: the features named by module
(a forward hook), a GAN's several losses in one step (two models, two optimizers), a
weighted total (uncertainty weighting), unequal micro-batches by batch_size, the step
taken at optimizer.step(), and a watch closed without a with block. Each loop runs bare
and watched: bit-equal; the recorded numbers equal an independent plain-PyTorch
computation written here."""
from __future__ import annotations

import math

import pytest
import torch
from torch import nn
from torch.nn import functional as F

import gradviz
from gradviz.plain.run_files.watch_read import StreamReader


class Encoder(nn.Module):
    """A multi-task model that keeps its trunk output inside forward (nothing returned
    but the heads' outputs), with uncertainty weights (log sigma^2) as parameters."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.encoder = nn.Sequential(nn.Linear(5, 8), nn.ReLU())
        self.depth, self.seg = nn.Linear(8, 1), nn.Linear(8, 3)
        self.log_vars = nn.Parameter(torch.tensor([0.3, -0.2]))

    def forward(self, x):
        z = self.encoder(x)
        return self.depth(z), self.seg(z)


def _uncertainty_loop(watch, steps=4):
    model = Encoder()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    seen = []
    if watch is not None:
        watch = watch(model, opt)
    for step in range(steps):
        g = torch.Generator().manual_seed(step)
        x, yd, ys = torch.randn(6, 5, generator=g), torch.randn(6, 1, generator=g), \
            torch.randint(0, 3, (6,), generator=g)
        depth, seg = model(x)
        losses = {"depth": F.mse_loss(depth, yd), "seg": F.cross_entropy(seg, ys)}
        w = torch.exp(-model.log_vars)
        total = w[0] * losses["depth"] + w[1] * losses["seg"] + model.log_vars.sum() / 2
        if watch is not None:   # one added line (and the one that made the watch)
            watch.losses(losses, weights={"depth": w[0], "seg": w[1]})
        total.backward()
        seen.append(([p.grad.clone() for p in model.parameters()],
                     {k: v.item() for k, v in losses.items()},
                     [w[0].item(), w[1].item()], x, yd, ys))
        opt.step()
        opt.zero_grad()
    if watch is not None:
        watch.close()
    return model, seen


def test_a_model_keeping_its_trunk_inside_forward_with_uncertainty_weights(tmp_path):
    bare, seen = _uncertainty_loop(None)
    watched, seen_w = _uncertainty_loop(
        lambda model, opt: gradviz.watch(model, out=tmp_path / "run", every=2,
                                         features="encoder", optimizer=opt, strict=True))
    for p, q in zip(bare.parameters(), watched.parameters()):
        assert torch.equal(p, q)
    for (grads, *_), (grads_w, *_) in zip(seen, seen_w):
        assert all(torch.equal(a, b) for a, b in zip(grads, grads_w))
    records = StreamReader(tmp_path / "run").read()
    assert [r.step for r in records] == [0, 1, 2, 3]
    # an independent computation of step 2's push: the weighted terms' gradients at the
    # encoder's output, from the model as it was at step 2 (replayed here)
    model = Encoder()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for step in range(3):
        _, losses_seen, weights, x, yd, ys = seen[step]
        z = model.encoder(x)
        terms = [F.mse_loss(model.depth(z), yd), F.cross_entropy(model.seg(z), ys)]
        w = torch.exp(-model.log_vars)
        if step == 2:
            pushes = [torch.autograd.grad(w[k] * terms[k], z, retain_graph=True)[0]
                      for k in range(2)]
            expect = [p.double().norm().item() for p in pushes]
            cos = F.cosine_similarity(pushes[0].double().reshape(1, -1),
                                      pushes[1].double().reshape(1, -1)).item()
        total = w[0] * terms[0] + w[1] * terms[1] + model.log_vars.sum() / 2
        total.backward()
        opt.step()
        opt.zero_grad()
    r = records[2]
    assert r.losses == seen[2][1]          # the raw losses, as named
    assert r.loss_weights == pytest.approx(dict(zip(["depth", "seg"], seen[2][2])), rel=1e-15)
    expected_total = sum(w * v for w, v in zip(seen[2][2], seen[2][1].values()))
    assert r.total == pytest.approx(expected_total, rel=1e-12)
    assert list(r.junction_grad_norms.values()) == pytest.approx(expect, rel=1e-6)
    assert r.cosine[0][1] == pytest.approx(cos, rel=1e-6)


def _gan_loop(watch, iterations=3):
    """pytorch/examples' DCGAN shape: D's real and fake losses backpropagated one after
    the other, optimizerD.step(), then G's loss through D, optimizerG.step()."""
    torch.manual_seed(5)
    net_g = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))
    net_d = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
    opt_d = torch.optim.Adam(net_d.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_g = torch.optim.Adam(net_g.parameters(), lr=2e-3, betas=(0.5, 0.999))
    if watch is not None:
        watch = watch(nn.ModuleDict({"G": net_g, "D": net_d}))
    seen = []
    for i in range(iterations):
        g = torch.Generator().manual_seed(i)
        real, noise = torch.randn(8, 4, generator=g), torch.randn(8, 2, generator=g)
        net_d.zero_grad()
        err_real = F.binary_cross_entropy_with_logits(net_d(real), torch.ones(8, 1))
        if watch is not None:
            watch.losses({"D_real": err_real})
        err_real.backward()
        fake = net_g(noise)
        err_fake = F.binary_cross_entropy_with_logits(net_d(fake.detach()), torch.zeros(8, 1))
        if watch is not None:
            watch.losses({"D_fake": err_fake})
        err_fake.backward()
        opt_d.step()
        net_g.zero_grad()
        err_g = F.binary_cross_entropy_with_logits(net_d(fake), torch.ones(8, 1))
        if watch is not None:
            watch.losses({"G": err_g})
        err_g.backward()
        if watch is not None:
            watch.step()
        opt_g.step()
        seen.append({"D_real": err_real.item(), "D_fake": err_fake.item(), "G": err_g.item(),
                     "grads": {n: p.grad.norm().item() for n, p in
                               [*(("G." + n, p) for n, p in net_g.named_parameters()),
                                *(("D." + n, p) for n, p in net_d.named_parameters())]}})
    return [*net_g.parameters(), *net_d.parameters()], seen


def test_a_gan_records_each_loss_by_name_bit_equal(tmp_path):
    bare, seen = _gan_loop(None)
    watched, seen_w = _gan_loop(lambda m: gradviz.watch(m, out=tmp_path / "gan", every=2,
                                                        strict=True))
    assert all(torch.equal(p, q) for p, q in zip(bare, watched))
    assert seen == seen_w
    records = StreamReader(tmp_path / "gan").read()
    for r, s in zip(records, seen):
        assert r.losses == {"D_real": s["D_real"], "D_fake": s["D_fake"], "G": s["G"]}
        assert r.total == s["D_real"] + s["D_fake"] + s["G"]
        assert r.grad_norms == pytest.approx(s["grads"], rel=1e-6)


def test_unequal_micro_batches_by_batch_size_give_the_batch_s_loss(tmp_path):
    """Micro-batches of 40, 8, 8 and 8 examples: the step's loss is the whole batch's
    (gradviz run's definition), not the plain mean of the four."""
    torch.manual_seed(1)
    model = nn.Linear(3, 2)
    x, y = torch.randn(64, 3), torch.randn(64, 2)
    sizes = [40, 8, 8, 8]
    with gradviz.watch(model, out=tmp_path / "run", strict=True) as watch:
        at = 0
        for n in sizes:
            out = model(x[at:at + n])
            a = F.mse_loss(out[:, 0], y[at:at + n, 0])
            b = (out[:, 1] - y[at:at + n, 1]).abs().mean()
            watch.losses({"a": a, "b": b}, batch_size=n)
            ((a + b) * n / 64).backward()
            at += n
        record = watch.step()
    whole = model(x)
    batch_a = F.mse_loss(whole[:, 0], y[:, 0]).item()
    batch_b = (whole[:, 1] - y[:, 1]).abs().mean().item()
    assert record.losses == pytest.approx({"a": batch_a, "b": batch_b}, rel=1e-6)
    reader = StreamReader(tmp_path / "run")
    assert [r.losses for r in reader.read()] == [record.losses]
    assert reader.micro_batches == {4: 1}   # losses() calls a step: steps


def test_an_unclosed_watch_is_closed_at_exit(tmp_path):
    import subprocess
    import sys
    script = (f"import torch, gradviz\nm = torch.nn.Linear(2, 1)\n"
              f"w = gradviz.watch(m, out={str(tmp_path / 'run')!r})\n"
              "for _ in range(3):\n    l = m(torch.ones(1, 2)).sum()\n"
              "    w.losses({'l': l}); l.backward(); w.step()\n")
    done = subprocess.run([sys.executable, "-I", "-c", script], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and "gradviz:" not in done.stderr, done.stderr
    reader = StreamReader(tmp_path / "run")
    assert [r.step for r in reader.read()] == [0, 1, 2]
    assert reader.header["ended"] == {"how": "finished"} and not math.isnan(
        reader.header["finished"])


def test_the_report_says_the_weights_beside_the_raw_losses(tmp_path):
    from gradviz.plain.runs.watch_summary import summary_lines
    model = nn.Linear(2, 2)
    with gradviz.watch(model, out=tmp_path / "run", strict=True) as watch:
        out = model(torch.ones(3, 2))
        a, b = out[:, 0].pow(2).mean(), out[:, 1].abs().mean()
        watch.losses({"a": a, "b": b}, weights={"a": 0.25})
        (0.25 * a + b).backward()
        watch.step()
    lines = summary_lines(tmp_path / "run")
    norm = math.sqrt(sum(p.grad.norm().item() ** 2 for p in model.parameters()))
    assert lines[1] == (f"  last losses: a {a.item():.4g}, b {b.item():.4g} (total "
                        f"{0.25 * a.item() + b.item():.4g}); global grad norm {norm:.4g}")
    assert lines[2] == ("  weights: a 0.25, b 1 (the total is the sum of weight x loss, as "
                        "backpropagated)")


def test_each_step_line_says_when_it_ended(tmp_path):
    import time
    model = nn.Linear(2, 1)
    before = time.time()
    with gradviz.watch(model, out=tmp_path / "run", every=2, strict=True) as watch:
        for _ in range(3):   # steps 0 and 2 sampled (the record's line), 1 not (template)
            loss = model(torch.ones(1, 2)).sum()
            watch.losses({"l": loss})
            loss.backward()
            watch.step()
    after = time.time()
    times = [r.wall_time for r in StreamReader(tmp_path / "run").read()]
    assert all(t is not None for t in times) and before <= times[0] <= times[1] <= times[2] \
        <= after


class VAE(nn.Module):
    """pytorch/examples' VAE, small: its encoder's hidden layer h1 is what both loss
    terms read (kept inside forward)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(11)
        self.fc1, self.fc21, self.fc22 = nn.Linear(12, 8), nn.Linear(8, 2), nn.Linear(8, 2)
        self.fc3, self.fc4 = nn.Linear(2, 8), nn.Linear(8, 12)

    def forward(self, x):
        h1 = F.relu(self.fc1(x))
        mu, logvar = self.fc21(h1), self.fc22(h1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)   # the RNG: must be untouched
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z)))), mu, logvar


def _vae_loop(make_watch, steps=4):
    model = VAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    watch = None if make_watch is None else make_watch(model, opt)   # added line 1
    torch.manual_seed(12)
    seen = []
    for step in range(steps):
        x = torch.rand(6, 12, generator=torch.Generator().manual_seed(step))
        recon, mu, logvar = model(x)
        losses = {"reconstruction": F.binary_cross_entropy(recon, x, reduction="sum"),
                  "kl": -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())}
        if watch is not None:
            watch.losses(losses)                                       # added line 2
        (losses["reconstruction"] + losses["kl"]).backward()
        seen.append(({k: v.item() for k, v in losses.items()},
                     {n: p.grad.norm().item() for n, p in model.named_parameters()}))
        opt.step()
        opt.zero_grad()
    return model, seen


def test_a_vae_attaches_with_two_lines_bit_equal(tmp_path):
    bare, seen = _vae_loop(None)
    made = []
    watched, seen_w = _vae_loop(lambda m, o: made.append(gradviz.watch(
        m, out=tmp_path / "vae", every=2, features="fc1", optimizer=o, strict=True))
        or made[0])
    assert all(torch.equal(p, q) for p, q in zip(bare.parameters(), watched.parameters()))
    assert seen == seen_w
    made[0].close()   # (the script would leave it to the interpreter's exit)
    records = StreamReader(tmp_path / "vae").read()
    assert [r.losses for r in records] == [s[0] for s in seen]
    assert [r.grad_norms for r in records] == [pytest.approx(s[1], rel=1e-6) for s in seen]
    assert records[0].junction_grad_norms is not None and records[1].junction_grad_norms \
        is None   # the push at fc1's output on the sampled steps
    # step 0's push at fc1's output, computed here from a fresh model and the same draw
    model = VAE()
    torch.manual_seed(12)
    x = torch.rand(6, 12, generator=torch.Generator().manual_seed(0))
    a = model.fc1(x)
    h1 = F.relu(a)
    mu, logvar = model.fc21(h1), model.fc22(h1)
    z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
    recon = torch.sigmoid(model.fc4(F.relu(model.fc3(z))))
    terms = [F.binary_cross_entropy(recon, x, reduction="sum"),
             -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())]
    pushes = [torch.autograd.grad(t, a, retain_graph=True)[0].double() for t in terms]
    assert list(records[0].junction_grad_norms.values()) == pytest.approx(
        [p.norm().item() for p in pushes], rel=1e-6)
    assert records[0].cosine[0][1] == pytest.approx(F.cosine_similarity(
        pushes[0].reshape(1, -1), pushes[1].reshape(1, -1)).item(), rel=1e-6, abs=1e-9)
