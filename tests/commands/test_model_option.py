"""`gradviz run --model FILE` and `gradviz compare --model FILE` as a user calls them:
a model file written here, in the form docs/model-files.md gives, against a plain loop
written here."""
import json
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch
from cli_files import toml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradviz.app import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.stem for p in (ROOT / "resources" / "models").glob("*.py"))

MODEL = """
import torch
import torch.nn.functional as F
from torch import nn

def build(seed):
    torch.manual_seed(seed)
    trunk = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16))
    heads = [nn.Linear(16, 4), nn.Linear(16, 2)]
    def batch(step, batch_size, generator):
        x = torch.randn(batch_size, 6, generator=generator)
        return x, [x[:, :2].sum(1).gt(0).long() * 2 + x[:, 2].gt(0).long(), x[:, 3:5]]
    return {"trunk": trunk, "heads": heads, "losses": [F.cross_entropy, F.mse_loss],
            "batch": batch, "names": ["kind", "where"]}
"""


def gradviz(*argv: str) -> int:
    try:
        return main(list(argv))
    except SystemExit as exc:
        return exc.code


@pytest.fixture
def model(tmp_path) -> str:
    path = tmp_path / "mine.py"
    path.write_text(textwrap.dedent(MODEL))
    return str(path)


def one_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


def plain_losses_and_norms(path: str, steps: int, batch_size: int, lr: float, seed: int = 0):
    built = runpy.run_path(path)["build"](seed)
    trunk, heads = built["trunk"], built["heads"]
    named = [(f"trunk.{n}", p) for n, p in trunk.named_parameters()] + \
        [(f"heads.{k}.{n}", p) for k, h in enumerate(heads) for n, p in h.named_parameters()]
    opt = torch.optim.SGD([p for _, p in named], lr=lr)
    out = []
    for step in range(steps):
        x, targets = built["batch"](step, batch_size,
                                    torch.Generator().manual_seed(seed * 1_000_003 + step))
        opt.zero_grad()
        z = trunk(x)
        losses = [f(h(z), t) for f, h, t in zip(built["losses"], heads, targets)]
        sum(losses).backward()
        out.append(([v.item() for v in losses], {n: p.grad.norm().item() for n, p in named}))
        opt.step()
    return out


def test_run_gives_the_plain_loops_losses_and_gradient_norms(model, tmp_path):
    assert gradviz("run", "--quiet", "--model", model, "--steps", "4", "--batch-size", "16",
                   "--lr", "0.1", "--out", str(tmp_path / "out")) == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["config"]["heads"] == 2
    expected = plain_losses_and_norms(model, 4, 16, 0.1)
    for step, (losses, norms) in zip(report["steps"], expected):
        assert [step["losses"]["head0"], step["losses"]["head1"]] == \
            pytest.approx(losses, rel=1e-5)
        assert set(step["grad_norms"]) == set(norms)
        for name, n in norms.items():
            assert step["grad_norms"][name] == pytest.approx(n, rel=1e-4, abs=1e-7)
    assert (tmp_path / "out" / "graph.svg").exists()


def test_compare_says_sum_and_separate_agree_and_in_loop_does_not(model, tmp_path, capsys):
    a = toml(tmp_path, "sum.toml", 'strategy = "sum"\n')
    b = toml(tmp_path, "separate.toml", 'strategy = "separate"\n')
    c = toml(tmp_path, "in-loop.toml", 'strategy = "in-loop"\n')
    assert gradviz("compare", "--model", model, a, b, "--steps", "3") == 0
    assert "verdict: same gradients" in capsys.readouterr().out
    assert gradviz("compare", "--model", model, a, c, "--steps", "3") == 1
    out = capsys.readouterr().out
    assert "verdict: different: B's gradient on the trunk, head 0: 2.00× A's" in out


def test_detaching_one_head_zeroes_its_push_in_the_report(model, tmp_path):
    assert gradviz("run", "--quiet", "--model", model, "--steps", "2", "--detach", "1",
                   "--sample-every", "1", "--out", str(tmp_path / "out")) == 0
    steps = json.loads((tmp_path / "out" / "report.json").read_text())["steps"]
    assert all(s["junction_grad_norms"]["head1"] == 0 for s in steps)
    assert all(s["junction_grad_norms"]["head0"] > 0 for s in steps)


@pytest.mark.parametrize("name", EXAMPLES)
def test_each_bundled_example_trains_a_few_steps_by_name(name, capsys):
    assert gradviz("run", "--quiet", "--model", name, "--steps", "3", "--batch-size", "8",
                   "--probes", "all") == 0
    assert "trained 3 steps" in capsys.readouterr().out


def test_the_examples_are_the_three_promised_and_plain_pytorch():
    assert EXAMPLES == ["cnn_two_heads", "deep_supervision", "tiny_transformer"]
    for name in EXAMPLES:
        text = (ROOT / "resources" / "models" / f"{name}.py").read_text()
        assert "gradviz" not in text.replace("gradviz run", ""), name


def test_the_cnn_example_has_about_a_million_parameters():
    built = runpy.run_path(str(ROOT / "resources" / "models" / "cnn_two_heads.py"))["build"](0)
    count = sum(p.numel() for m in [built["trunk"], *built["heads"]] for p in m.parameters())
    assert 0.8e6 <= count <= 1.3e6


@pytest.mark.parametrize("text,words", [
    ("x = 1\n", "has no build(seed) function"),
    ("def build(seed):\n    return {'trunk': None}\n", "build(seed)'s dict has no 'heads'"),
    ("def build(seed):\n    raise KeyError('weights')\n",
     "build(seed) raised KeyError: 'weights' (bad.py:2)"),
])
def test_a_bad_model_file_is_exit_2_and_one_line(tmp_path, capsys, text, words):
    bad = toml(tmp_path, "bad.py", text)
    assert gradviz("run", "--model", bad) == 2
    assert words in one_line(capsys)
    assert gradviz("compare", "--model", bad, bad, bad) == 2
    assert words in one_line(capsys)


@pytest.mark.parametrize("flags,words", [
    (["--trunk-width", "64"], "trunk-width is for the built-in model"),
    (["--heads", "3"], "heads is 3, but the model file builds 2"),
    (["--loss-weights", "1,2,3"], "loss-weights has 3 values but there are 2 heads"),
    (["--detach", "2"], "detach names head 2, but heads are 0..1"),
])
def test_options_that_do_not_fit_a_model_file_are_refused(model, capsys, flags, words):
    assert gradviz("run", "--model", model, *flags) == 2
    assert words in one_line(capsys)


def test_an_unknown_name_lists_the_examples(capsys):
    assert gradviz("run", "--model", "resnet") == 2
    assert "nor an example of that name (examples: cnn_two_heads, deep_supervision, " \
        "tiny_transformer)" in one_line(capsys)


def test_a_config_file_never_names_a_model_file(model, tmp_path, capsys):
    """A model file is code: it runs only from --model, never because a file says so."""
    config = toml(tmp_path, "c.toml", f'model = "{model}"\n')
    assert gradviz("run", "--config", config) == 2
    assert "model must be one of mlp, rnn" in one_line(capsys)


def test_a_model_file_that_raises_is_one_line_from_the_real_command(tmp_path):
    bad = toml(tmp_path, "bad.py", "import torch\n\ndef build(seed):\n"
                                   "    return torch.zeros(2) @ torch.zeros(3)\n")
    done = subprocess.run([sys.executable, "-m", "gradviz", "run", "--model", bad],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "build(seed) raised RuntimeError" in done.stderr and "(bad.py:4)" in done.stderr


def test_the_installed_package_finds_every_example_from_any_folder(tmp_path):
    """In an isolated interpreter outside the clone: what a wheel's user gets."""
    code = ("import json; from gradviz.plain.config.model_names import model_names, model_path\n"
            "with model_path('deep_supervision') as p: ok = p.is_file()\n"
            "print(json.dumps([model_names(), ok]))")
    proc = subprocess.run([sys.executable, "-I", "-c", code], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    assert json.loads(proc.stdout) == [EXAMPLES, True]


def test_a_file_here_named_like_an_example_is_the_users(model, tmp_path, monkeypatch, capsys):
    (tmp_path / "deep_supervision.py").write_text(Path(model).read_text())
    monkeypatch.chdir(tmp_path)
    assert gradviz("run", "--quiet", "--model", "deep_supervision.py", "--steps", "1",
                   "--out", "out") == 0
    assert json.loads((tmp_path / "out" / "report.json").read_text())["config"]["heads"] == 2


def test_the_docs_model_file_trains_and_its_compare_says_in_loop_differs(tmp_path, capsys):
    import re
    text = (ROOT / "docs" / "model-files.md").read_text()
    (tmp_path / "mine.py").write_text(re.search(r"```python\n(.*?)```", text, re.S)[1])
    mine = str(tmp_path / "mine.py")
    assert gradviz("run", "--quiet", "--model", mine, "--steps", "3", "--detach", "1",
                   "--out", str(tmp_path / "out")) == 0
    steps = json.loads((tmp_path / "out" / "report.json").read_text())["steps"]
    assert steps[0]["junction_grad_norms"]["head1"] == 0
    a = toml(tmp_path, "sum.toml", 'strategy = "sum"\n')
    b = toml(tmp_path, "in-loop.toml", 'strategy = "in-loop"\n')
    assert gradviz("compare", "--model", mine, a, b, "--steps", "2") == 1


def test_deep_supervision_in_loop_counts_the_shallow_head_three_times(tmp_path, capsys):
    a = toml(tmp_path, "sum.toml", 'strategy = "sum"\n')
    b = toml(tmp_path, "in-loop.toml", 'strategy = "in-loop"\n')
    assert gradviz("compare", "--model", "deep_supervision", a, b, "--steps", "2",
                   "--out", str(tmp_path / "cmp")) == 1
    steps = json.loads((tmp_path / "cmp" / "compare.json").read_text())["steps"]
    assert steps[0]["junction_ratio"] == pytest.approx([3.0, 2.0, 1.0], rel=1e-4)


def test_the_report_says_which_model_file_and_what_its_heads_are_called(model, tmp_path):
    import hashlib
    assert gradviz("run", "--quiet", "--model", model, "--steps", "1",
                   "--out", str(tmp_path / "out")) == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["model_file"] == {
        "path": str(Path(model).resolve()), "names": ["kind", "where"],
        "sha256": hashlib.sha256(Path(model).read_bytes()).hexdigest()}


def test_bench_times_a_model_file_against_its_plain_loop(model, capsys):
    assert gradviz("bench", "--model", model, "--steps", "3", "--repeats", "1",
                   "--clock", "cpu") == 0
    out = capsys.readouterr().out
    assert "2 heads, the model file mine.py, batch 64" in out
    assert out.splitlines()[0].endswith("median, timed by CPU time")
    rows = {line.split()[0]: line.split()[1:3] for line in out.splitlines()[2:]}
    assert set(rows) == {"bare", "none", "default", "everything", "run", "app"}
    # sane fields, not a speed: a rate, and its ratio to the plain loop in percent
    for rate, ratio in rows.values():
        assert float(rate) > 0 and ratio.endswith("%") and int(ratio[:-1]) > 0, out
    assert rows["bare"][1] == "100%"
    assert "every panel fed as the window asks" in out


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.text(min_size=0, max_size=300))
def test_any_model_value_is_run_or_one_line(value, tmp_path, monkeypatch, capsys):
    """--model takes input from anyone's shell: whatever it is, exit 0 (mlp, rnn) or 2
    with one line, never a traceback. In an empty folder: no file there to run."""
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    code = gradviz("run", "--quiet", "--model", value, "--steps", "0")
    if code == 0:
        assert value in ("mlp", "rnn")
        return
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err


def test_the_cnn_walk_through_holds_the_classifier_pushes_sixty_times_harder():
    from gradviz.core.model_file import ModelFile
    from gradviz.core.session import Session
    from gradviz.plain.config.config import Config
    cnn = ModelFile(ROOT / "resources" / "models" / "cnn_two_heads.py")
    base = Config(device="cpu", heads=2, batch_size=32, sample_every=1)
    push = Session(base, cnn).step().junction_grad_norms
    assert 40 < push["head0"] / push["head1"] < 80
    weighted = Session(base.replace(loss_weights=(1.0, 60.0)), cnn)
    push = weighted.step().junction_grad_norms
    assert 0.8 < push["head0"] / push["head1"] < 1.25
    first = weighted.last_record.losses["head1"]
    weighted.step()
    assert weighted.step().losses["head1"] > 100 * first
