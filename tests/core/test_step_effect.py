"""What a step did, against plain PyTorch written here: a parameter no gradient reached
is None (not 0.0); the trunk gradient's length, the trunk's change and its ratio to the
sum's; each head's loss change after the step, real and split to first order into its
trunk part and its own layers' part. The probes leave training bit for bit as it was.
Lesson 13's slides narrate the numbers on screen where they stop."""
from __future__ import annotations

import csv
import json
import re

import pytest
import torch
from torchjd.aggregation import MGDA, PCGrad, UPGrad

from gradviz.core.lesson_check import run_slide
from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.config.jd_names import pcgrad_seed
from gradviz.plain.lessons.lesson_figures import figure_text
from gradviz.plain.lessons.lessons import find_lesson
from gradviz.plain.records.history import History
from gradviz.plain.run_files.report import ReportWriter
from gradviz.qt.widgets.cosine_notes import update_text
from gradviz.qt.widgets.step_readout import readout

from core_reference import batch, forward, ref_net, snapshot, weighted_sum, weights

# lesson 13's: head 2 weighted 4, so the sum works against head 1 at step 0
BASE = Config(device="cpu", heads=3, batch_size=64, loss_weights=(1.0, 1.0, 4.0),
              probes="default", sample_every=1)
AGGREGATE = {"sum": lambda rows: rows.sum(0), "upgrad": lambda rows: UPGrad()(rows),
             "mgda": lambda rows: MGDA()(rows)}


def _trunk(net) -> list[torch.Tensor]:
    return list(net.trunk.parameters())


def _grad(loss, params) -> torch.Tensor:
    grads = torch.autograd.grad(loss, params, retain_graph=True, allow_unused=True)
    return torch.cat([(torch.zeros_like(p) if g is None else g).reshape(-1)
                      for p, g in zip(params, grads)])


def _aggregate(cfg: Config, rows: torch.Tensor, step: int) -> torch.Tensor:
    """The trunk gradient from the weighted rows; PCGrad's random order drawn from the
    step's seed (data, as the batch is: the run's, so that a run repeats)."""
    if cfg.strategy != "pcgrad":
        return AGGREGATE[cfg.strategy](rows)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(pcgrad_seed(cfg.seed, step))
        return PCGrad()(rows)


def _reference_step(cfg: Config, s: Session, init: dict, step: int = 0) -> dict:
    """A step by hand from init (the weights before it; step 0's: the session's first):
    rows, the aggregated trunk gradient, plain SGD's update, and each head's loss on the
    same batch after it."""
    net = ref_net(cfg, init)
    x, targets = batch(s, step, cfg.batch_size)
    _, losses = forward(net, x, targets)
    ws = weights(cfg)
    trunk_rows = torch.stack([_grad(loss, _trunk(net)) for loss in losses])
    g = _aggregate(cfg, trunk_rows * torch.tensor(ws)[:, None], step)
    g_sum = (trunk_rows * torch.tensor(ws)[:, None]).sum(0)
    heads = [list(h.parameters()) for h in net.heads]
    head_rows = [_grad(loss, head) for loss, head in zip(losses, heads)]
    d_trunk = -cfg.lr * g
    d_heads = [-cfg.lr * w * row for w, row in zip(ws, head_rows)]   # each its own
    with torch.no_grad():
        at = 0
        for p in _trunk(net):
            p += d_trunk[at:at + p.numel()].reshape(p.shape)
            at += p.numel()
        for head, d in zip(heads, d_heads):
            at = 0
            for p in head:
                p += d[at:at + p.numel()].reshape(p.shape)
                at += p.numel()
        _, after = forward(net, x, targets)
    return {"g": g.norm().item(), "step": d_trunk.norm().item(),
            "ratio": g.norm().item() / g_sum.norm().item(),
            "cosine": [torch.nn.functional.cosine_similarity(r, g, dim=0).item()
                       for r in trunk_rows],
            "weighted": [w * r.norm().item() for w, r in zip(ws, trunk_rows)],
            "change": [(a - b).item() for a, b in zip(after, losses)],
            "trunk": [(r @ d_trunk).item() for r in trunk_rows],
            "head": [(r @ d).item() for r, d in zip(head_rows, d_heads)]}


@pytest.mark.parametrize("strategy, length", [("sum", 2.35), ("upgrad", 0.79),
                                              ("mgda", 0.16)])
def test_step_length_and_each_heads_loss_change_match_plain_pytorch(strategy, length):
    cfg = BASE.replace(strategy=strategy)
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    assert record is not None, s.error
    ref = _reference_step(cfg, s, init)
    assert round(ref["g"], 2) == length   # step 0's, as docs/command-line.md gives them
    assert record.trunk_grad_norm == pytest.approx(ref["g"], rel=1e-4)
    assert record.trunk_step == pytest.approx(ref["step"], rel=1e-4)
    assert record.trunk_step_vs_sum == pytest.approx(ref["ratio"], rel=1e-4)
    for k, name in enumerate(cfg.head_names()):
        assert record.loss_change[name] == pytest.approx(ref["change"][k], abs=2e-6)
        assert record.loss_change_trunk[name] == pytest.approx(ref["trunk"][k], rel=1e-3,
                                                               abs=1e-7)
        assert record.loss_change_head[name] == pytest.approx(ref["head"][k], rel=1e-3,
                                                              abs=1e-7)
    if strategy == "sum":   # head 1: its trunk part raises its loss, its own layers win
        assert record.update_cosine["head1"] < 0 < record.loss_change_trunk["head1"]
        assert record.loss_change["head1"] < 0


def _plain_sgd(cfg: Config, s: Session, init: dict, steps: int) -> dict:
    """The weights after `steps` steps of the plain loop, p -= lr * p.grad (SGD without
    momentum) where, under sum, total = sum of w_k * L_k and total.backward(); else each
    head's layers get the gradient of its own w_k * L_k, and the trunk the aggregator's
    combination of the rows of w_k * L_k's gradients on it."""
    net = ref_net(cfg, init)
    ws = weights(cfg)
    for step in range(steps):
        _, losses = forward(net, *batch(s, step, cfg.batch_size))
        net.zero_grad(set_to_none=True)
        if cfg.strategy == "sum":
            weighted_sum(ws, losses).backward()
        else:
            terms = [w * loss for w, loss in zip(ws, losses)]
            g = _aggregate(cfg, torch.stack([_grad(t, _trunk(net)) for t in terms]), step)
            at = 0
            for p in _trunk(net):
                p.grad = g[at:at + p.numel()].reshape(p.shape).clone()
                at += p.numel()
            for t, head in zip(terms, net.heads):
                for p, grad in zip(head.parameters(),
                                   torch.autograd.grad(t, list(head.parameters()),
                                                       retain_graph=True)):
                    p.grad = grad
        with torch.no_grad():
            for p in net.parameters():
                if p.grad is not None:
                    p -= cfg.lr * p.grad
    return {k: v.detach().clone() for k, v in net.state_dict().items()}


def _decimals(text: str) -> list[str]:
    """The decimal numbers in a text, in order, a hyphen read as the minus sign the
    screen draws."""
    return [n.replace("-", "\u2212") for n in re.findall(r"[\u2212+-]?\d+\.\d+", text)]


def _stopped(slide):
    """The slide run to its stop as `gradviz lessons --check` runs it, and the words the
    cosine panel and the figures show at that stop, made from that run as the stage
    makes them: (its last record, the update line and the step's readout lines, every
    decimal on screen)."""
    names = slide.config.head_names()
    run = run_slide(slide)
    assert run.error is None and len(run.records) == slide.steps
    last = run.records[-1]
    history = History(names, list(last.grad_norms or {}))
    for record in run.records:
        history.append(record)
    lines = [update_text(names, history.last_update_cosine)]
    lines += readout(names, history).splitlines()
    on_screen = _decimals("\n".join(lines + [figure_text(f, history, {})
                                              for f in slide.figures]))
    return run, lines, set(on_screen)


def test_lesson_13_slide_1_narrates_the_numbers_on_screen_where_it_stops():
    """Its narration quotes the "head1:" and "trunk step" lines under the cosine matrix:
    those of the step the slide stops at (it quoted step 0's while the screen showed step
    3's). Run to its stop as `gradviz lessons --check` does; the screen's words made
    from that run as the stage makes them; the run's numbers against plain PyTorch."""
    slide = find_lesson("13-aggregate-conflicts").slides[0]
    cfg = slide.config
    run, lines, on_screen = _stopped(slide)
    last = run.records[-1]
    step_line = next(line for line in lines if line.startswith("trunk step"))
    head_line = next(line for line in lines if line.startswith("head1:"))
    narrated = _decimals(slide.narration)
    # every number it quotes is on screen (but the config's lr), and it quotes the head's
    # line and the step's length and gradient, of the step it names
    assert set(narrated) - {f"{cfg.lr:g}"} <= on_screen
    assert set(_decimals(head_line)) | set(_decimals(step_line)[:2]) <= set(narrated)
    said = " ".join(slide.narration.split())   # the narration's lines joined
    assert f"at step {last.step}" in said and last.step == slide.steps - 1
    # and those are plain PyTorch's: three steps of the summed loop, then the fourth
    s = Session(cfg.replace(sample_every=1))
    init = snapshot(s)
    ref = _reference_step(cfg, s, _plain_sgd(cfg, s, init, last.step), last.step)
    assert last.trunk_grad_norm == pytest.approx(ref["g"], rel=1e-4)
    assert last.trunk_step == pytest.approx(ref["step"], rel=1e-4)
    assert last.loss_change["head1"] == pytest.approx(ref["change"][1], abs=2e-6)
    assert last.loss_change_trunk["head1"] == pytest.approx(ref["trunk"][1], rel=1e-3)
    assert last.loss_change_head["head1"] == pytest.approx(ref["head"][1], rel=1e-3)


@pytest.mark.parametrize("number, strategy, quotes_gradient",
                         [(2, "upgrad", False), (3, "pcgrad", True), (4, "mgda", True)])
def test_lesson_13_aggregating_slides_narrate_the_numbers_on_screen_where_they_stop(
        number, strategy, quotes_gradient):
    """Slides 2-4 quoted step 0's trunk gradients (0.79, 2.38, 0.16, the sum's 2.35)
    while they stop at step 39, where the "trunk step" line shows that step's length, its
    gradient and its ratio to the step the sum would take from the same weights (slide
    2 quotes the length and the ratio, slides 3 and 4 the gradient too); slide 4
    also quotes head 1's and head 2's numbers on the "with the update" line. Each number
    they quote is on screen at the step they name, and is plain PyTorch's: the
    aggregated loop for 39 steps from the same initial weights, then the 40th."""
    slide = find_lesson("13-aggregate-conflicts").slides[number - 1]
    cfg = slide.config
    assert cfg.strategy == strategy
    run, lines, on_screen = _stopped(slide)
    last = run.records[-1]
    narrated = _decimals(slide.narration)
    assert narrated and set(narrated) <= on_screen
    assert f"at step {last.step}," in slide.narration and last.step == slide.steps - 1
    assert "at step 0" not in slide.narration
    step_line = next(line for line in lines if line.startswith("trunk step"))
    length, gradient, ratio = _decimals(step_line)
    assert {length, ratio} | ({gradient} if quotes_gradient else set()) <= set(narrated)
    s = Session(cfg.replace(sample_every=1))
    init = snapshot(s)
    ref = _reference_step(cfg, s, _plain_sgd(cfg, s, init, last.step), last.step)
    assert last.trunk_grad_norm == pytest.approx(ref["g"], rel=1e-4)
    assert last.trunk_step == pytest.approx(ref["step"], rel=1e-4)
    assert last.trunk_step_vs_sum == pytest.approx(ref["ratio"], rel=1e-4)
    # the narration's numbers, as the screen writes them, from plain PyTorch's
    said = " ".join(slide.narration.split())
    assert f"{ref['step']:.3g} " in said and f"{ref['ratio']:.2f}× the sum's" in said
    assert (f"(gradient {ref['g']:.3g})" in said) == quotes_gradient
    for k, name in enumerate(cfg.head_names()):
        assert last.update_cosine[name] == pytest.approx(ref["cosine"][k], abs=1e-5)
    if strategy == "mgda":   # head 1 the highest always, head 2 the lowest at most steps
        head1, head2 = (f"{ref['cosine'][k]:+.2f}" for k in (1, 2))
        assert f"({head1} and {head2} at step {last.step}," in said
        assert {head1, head2} <= set(_decimals(lines[0]))
        cosines = [r.update_cosine for r in run.records]
        assert all(c["head1"] == max(c.values()) for c in cosines)
        assert sum(c["head2"] == min(c.values()) for c in cosines) > len(cosines) / 2
        # and MGDA leans on the head whose (weighted) trunk gradient is the shortest
        assert min(ref["weighted"]) == ref["weighted"][1]


def test_under_adam_the_ratio_to_sgds_step_is_none():
    record = Session(BASE.replace(optimizer="adam")).step()
    assert record.trunk_step is not None and record.trunk_step > 0
    assert record.trunk_step_vs_sum is None


def test_a_parameter_no_gradient_reached_is_none_not_zero(tmp_path):
    """Every head detached: the trunk's .grad stays None in plain PyTorch too."""
    cfg = BASE.replace(detach=(0, 1, 2))
    s = Session(cfg)
    init = snapshot(s)
    record = s.step()
    net = ref_net(cfg, init)
    _, losses = forward(net, *batch(s, 0, cfg.batch_size), detach=(0, 1, 2))
    weighted_sum(weights(cfg), losses).backward()
    for name, p in net.named_parameters():
        if p.grad is None:
            assert record.grad_norms[name] is None, name
        else:
            assert record.grad_norms[name] == pytest.approx(p.grad.norm().item(), rel=1e-5)
    assert any(p.grad is None for p in net.parameters())
    assert record.trunk_grad_norm is None and record.trunk_step == 0.0
    history = History(cfg.head_names(), s.param_names)
    history.append(record)
    missing = history.column("grad_missing")[0]
    assert [bool(m) for m in missing] == [record.grad_norms[n] is None for n in s.param_names]
    assert history.last_grad_norms["trunk.0.weight"] is None
    with ReportWriter(tmp_path, cfg, "cpu", s.param_names) as writer:
        writer.add(record)
        writer.finish([])
    step = json.loads((tmp_path / "report.json").read_text())["steps"][0]
    assert step["grad_norms"]["trunk.0.weight"] is None
    assert step["grad_norms"]["heads.0.0.weight"] > 0
    row = list(csv.DictReader((tmp_path / "metrics.csv").open()))[0]
    assert row["grad_norm.trunk.0.weight"] == ""
    assert float(row["grad_norm.heads.0.0.weight"]) > 0
    assert float(row["trunk_step"]) == 0.0 and row["trunk_grad_norm"] == ""


def test_report_and_csv_carry_the_step_numbers(tmp_path):
    s = Session(BASE)
    record = s.step()
    with ReportWriter(tmp_path, s.config, "cpu", s.param_names) as writer:
        writer.add(record)
        writer.finish([])
    step = json.loads((tmp_path / "report.json").read_text())["steps"][0]
    row = list(csv.DictReader((tmp_path / "metrics.csv").open()))[0]
    assert step["trunk_step"] == record.trunk_step == float(row["trunk_step"])
    assert step["trunk_step_vs_sum"] == float(row["trunk_step_vs_sum"])
    for name in s.config.head_names():
        for family in ("loss_change", "loss_change_trunk", "loss_change_head"):
            assert step[family][name] == float(row[f"{family}.{name}"])


def _run(cfg: Config, probes: bool, steps: int = 4):
    s = Session(cfg)
    s.measure_update_cosine = probes
    out = []
    for _ in range(steps):
        record = s.step()
        assert record is not None, s.error
        out.append((list(record.losses.values()),
                     [p.grad.clone() if p.grad is not None else None for p in s.params],
                     [p.detach().clone() for p in s.params]))
    buffers = [b.clone() for b in s.model.buffers()]
    return out, buffers, torch.get_rng_state()


@pytest.mark.parametrize("changes", [{}, {"batch_norm": True, "trunk_depth": 2},
                                     {"model": "rnn"},
                                     {"accumulate": 2, "micro_batch_sizes": (40, 24),
                                      "scale_by": "size"},
                                     {"strategy": "upgrad"}, {"optimizer": "adam"}])
def test_the_probes_leave_training_bit_for_bit_as_it_was(changes):
    cfg = BASE.replace(**changes)
    torch.manual_seed(5)
    with_probes, buffers_a, rng_a = _run(cfg, True)
    torch.manual_seed(5)
    without, buffers_b, rng_b = _run(cfg, False)
    assert torch.equal(rng_a, rng_b)
    for a, b in zip(buffers_a, buffers_b):
        assert torch.equal(a, b)
    for (la, ga, pa), (lb, gb, pb) in zip(with_probes, without):
        assert la == lb
        for x, y in zip(ga + pa, gb + pb):
            assert (x is None and y is None) or torch.equal(x, y)
