"""gradviz.show's drawing of a watched run (gradviz.plain.runs.run_view) and its following
(gradviz.notebook.redraw_until_ended), on a run a plain two-loss loop writes here: the
HTML holds each loss's name and its last value, the push and the cosine of the last
sampled step, computed apart here with torch.autograd.grad; a redraw each time the
folder gains a step, the following ended by the run's end or an interrupt. The loop
is driven by the wait between looks, so no test waits on a clock."""
from __future__ import annotations

import math
import re

import torch
from torch import nn
from torch.nn import functional as F

import gradviz
from gradviz.notebook import redraw_until_ended
from gradviz.plain.runs.run_view import MAX_POINTS, Points, RunView
from gradviz.plain.runs.watch_summary import summary_lines


class Loop:
    """A two-head model trained one step per call of step(), watched (every=2), and
    what the loop itself saw: each step's losses, its gradients' global norm, and on
    sampled steps the losses' gradients at the trunk's output, taken here before the
    backward by torch.autograd.grad."""

    def __init__(self, out, names=("depth", "seg"), every=2):
        torch.manual_seed(4)
        self.trunk = nn.Sequential(nn.Linear(5, 8), nn.Tanh())
        self.heads = nn.ModuleList([nn.Linear(8, 1), nn.Linear(8, 3)])
        self.model = nn.ModuleDict({"trunk": self.trunk, "heads": self.heads})
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.names, self.every, self.steps = names, every, 0
        self.watch = gradviz.watch(self.model, out, every=every, strict=True)
        self.seen: list[tuple[dict, float, list | None]] = []

    def step(self) -> None:
        g = torch.Generator().manual_seed(self.steps)
        x = torch.randn(6, 5, generator=g)
        z = self.trunk(x)
        losses = {self.names[0]: F.mse_loss(self.heads[0](z), torch.randn(6, 1, generator=g)),
                  self.names[1]: F.cross_entropy(self.heads[1](z),
                                                 torch.randint(0, 3, (6,), generator=g))}
        pushes = None
        if self.steps % self.every == 0:
            pushes = [torch.autograd.grad(v, z, retain_graph=True)[0].double().reshape(-1)
                      for v in losses.values()]
        self.watch.losses(losses, features=z)
        sum(losses.values()).backward()
        norm = math.sqrt(sum(p.grad.norm().item() ** 2 for p in self.model.parameters()))
        self.seen.append(({k: v.item() for k, v in losses.items()}, norm, pushes))
        self.watch.step()
        self.opt.step()
        self.opt.zero_grad()
        self.steps += 1


def _g(value: float) -> str:
    return f"{value:.4g}"


def test_the_html_holds_each_loss_its_push_and_cosine_as_computed_here(tmp_path):
    loop = Loop(tmp_path / "run")
    for _ in range(5):
        loop.step()
    loop.watch.close()
    view = RunView(tmp_path / "run")
    assert view.read() and view.ended
    html = view.html()
    losses, norm, _ = loop.seen[-1]
    assert "5 steps (0 to 4); finished" in html
    assert f"depth {_g(losses['depth'])}, seg {_g(losses['seg'])} " \
           f"(total {_g(losses['depth'] + losses['seg'])}); global grad norm {_g(norm)}" in html
    pushes = loop.seen[4][2]   # step 4, the last sampled one
    push = [p.norm().item() for p in pushes]
    cosine = (pushes[0] @ pushes[1]).item() / (push[0] * push[1])
    assert f"push at the features (step 4): depth {_g(push[0])}, seg {_g(push[1])}" in html
    assert f"cosines (step 4): depth~seg {_g(cosine)}" in html
    # each chart drawn: the loss curves (a point per step), the push and the cosine
    # curves (a point per sampled step: 0, 2, 4), the global norm, a bar per parameter
    assert html.count("<svg") == 5
    points = [m.count(",") for m in re.findall(r'<polyline points="([^"]*)"', html)]
    assert points == [5, 5, 3, 3, 3, 5]
    assert html.count('<rect x="156"') == 6   # trunk.0 and heads.0, heads.1: weight, bias
    assert "cosines (step 4): depth~seg " + _g(cosine) in view.text()


def test_names_from_the_folder_are_shown_as_text_never_as_markup(tmp_path):
    loop = Loop(tmp_path / "run", names=("<b>depth</b>", "seg&<script>"))
    loop.step()
    loop.watch.close()
    view = RunView(tmp_path / "run")
    view.read()
    html = view.html()
    assert "<b>depth</b>" not in html and "<script>" not in html
    assert "&lt;b&gt;depth&lt;/b&gt;" in html and "seg&amp;&lt;script&gt;" in html


class Handle:
    """What IPython's display handle is to the loop: update() records what it drew."""

    def __init__(self):
        self.drawn: list[str] = []

    def update(self, view: RunView) -> None:
        self.drawn.append(view.html())


def test_following_redraws_as_steps_come_and_stops_when_the_run_ends(tmp_path):
    view = RunView(tmp_path / "run")
    view.read()   # no folder yet: waited for, not an end
    assert not view.ended and "no such folder" in view.html()
    loop, handle, waits = None, Handle(), []

    def wait():   # between two looks: the training loop goes on by one step
        nonlocal loop
        waits.append(1)
        if loop is None:
            loop = Loop(tmp_path / "run")
        elif loop.steps < 4:
            loop.step()
        else:
            loop.watch.close()

    redraw_until_ended(view, handle, wait)
    steps = [int(m.group(1)) if (m := re.search(r"</b>: (\d+) steps?", html)) else 0
             for html in handle.drawn]
    assert steps == [0, 1, 2, 3, 4, 4]   # the run's header, each step, then its end
    assert "still being written" in handle.drawn[-2] and "finished" in handle.drawn[-1]
    assert len(waits) == 6   # no look after the end


def test_an_interrupt_stops_the_following_quietly_and_says_so(tmp_path):
    loop = Loop(tmp_path / "run")
    loop.step()
    view, handle = RunView(tmp_path / "run"), Handle()
    view.read()

    def wait():
        raise KeyboardInterrupt

    redraw_until_ended(view, handle, wait)   # returns: nothing raised
    assert len(handle.drawn) == 1
    assert "stopped following (interrupted)" in handle.drawn[0]
    assert "1 step (0 to 0); still being written" in handle.drawn[0]
    loop.watch.close()


def test_a_file_is_not_followed(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    view = RunView(tmp_path / "notes.txt")
    view.read()
    assert view.ended and "is a file, not a run folder" in view.html()


def test_a_long_curve_keeps_a_bounded_number_of_points_and_its_newest():
    points = Points()
    for step in range(10 * MAX_POINTS + 3):
        points.add(step, float(step))
    curve = points.curve("loss")
    assert MAX_POINTS // 2 <= len(curve.xs) <= MAX_POINTS + 1
    assert curve.xs[0] == 0 and curve.xs[-1] == 10 * MAX_POINTS + 2
    assert curve.xs == sorted(curve.xs) and len(set(curve.xs)) == len(curve.xs)


def test_show_outside_a_kernel_prints_the_text(tmp_path, capsys):
    loop = Loop(tmp_path / "run", names=("a", "b"))
    loop.step()
    loop.watch.close()
    gradviz.show(tmp_path / "run")
    out = capsys.readouterr().out
    assert "run: 1 step (0 to 0); finished; last losses: a " in out


def test_gradviz_report_says_the_last_cosines(tmp_path):
    loop = Loop(tmp_path / "run")
    for _ in range(4):
        loop.step()
    loop.watch.close()
    pushes = loop.seen[2][2]   # step 2, the last sampled one
    cosine = (pushes[0] @ pushes[1]).item() / (pushes[0].norm() * pushes[1].norm()).item()
    lines = summary_lines(tmp_path / "run")
    assert f"  cosines (step 2): depth~seg {_g(cosine)}" in lines
    assert lines.index(f"  cosines (step 2): depth~seg {_g(cosine)}") == len(lines) - 1
