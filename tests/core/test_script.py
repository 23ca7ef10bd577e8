"""The Code panel's program runs: script_text(cfg), executed by plain Python, prints per
step the engine's losses, total and gradient norms, or raises the engine's error.

Every script runs in one child process (runpy, stdout captured per script) so the
torch import is paid once; the engine runs here, in process, on the same configs.
"""
import json
import math
import subprocess
import sys
import textwrap

import pytest

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.program.loop_code import loop_code
from gradviz.plain.program.script import script_text

BASE = Config(device="cpu", heads=3, trunk_width=16, trunk_depth=2, batch_size=32, steps=4,
              probes="default", sample_every=1)

CASES = {
    # strategies x retain_graph
    **{f"{s}-{r}": BASE.replace(strategy=s, retain_graph=r)
       for s in ("sum", "separate", "in-loop") for r in ("auto", "always", "never")},
    # detach, both modes, and every head cut off
    "detach1-sum": BASE.replace(detach=(1,)),
    "detach1-separate": BASE.replace(detach=(1,), strategy="separate"),
    "detach02-in-loop": BASE.replace(detach=(2, 0), strategy="in-loop"),
    "detach_0": BASE.replace(detach=(0,), detach_mode="detach_"),
    "detach_1": BASE.replace(detach=(1,), detach_mode="detach_"),
    "detach_-all-separate": BASE.replace(detach=(0, 1, 2), detach_mode="detach_",
                                         strategy="separate"),
    "detach-all": BASE.replace(detach=(0, 1, 2)),
    # accumulation, scaled and not, and the classic mistakes
    "accumulate4-separate": BASE.replace(accumulate=4, strategy="separate"),
    "accumulate4-noscale": BASE.replace(accumulate=4, scale=False),
    "accumulate2-in-loop-weights": BASE.replace(accumulate=2, strategy="in-loop",
                                                loss_weights=(0.5, 2.0, 1.0)),
    "accumulate2-separate-never": BASE.replace(accumulate=2, strategy="separate",
                                               retain_graph="never"),
    "no-zero-grad": BASE.replace(zero_grad=False, strategy="separate"),
    "keep-graphs-sum": BASE.replace(keep_graphs=True),
    "keep-graphs-separate": BASE.replace(keep_graphs=True, strategy="separate",
                                         accumulate=2),
    "keep-graphs-in-loop": BASE.replace(keep_graphs=True, strategy="in-loop"),
    # optimizer, weights, sizes, seed, an epoch boundary
    "adam": BASE.replace(optimizer="adam", lr=0.01),
    "weights-sum": BASE.replace(loss_weights=(0.5, 2.0, 0.0)),
    "weights-separate-adam": BASE.replace(loss_weights=(0.25, 1.5, 3.0), strategy="separate",
                                          optimizer="adam", lr=0.003),
    "one-head": BASE.replace(heads=1, loss_weights=(2.0,)),
    "five-heads-deep": BASE.replace(heads=5, trunk_depth=3, strategy="separate", seed=7),
    "shallow-epochs": BASE.replace(trunk_depth=1, batch_size=2048, accumulate=8, seed=3),
    # the article's later lessons
    "rnn": BASE.replace(model="rnn"),
    "rnn-accumulate2-separate": BASE.replace(model="rnn", accumulate=2, strategy="separate"),
    "rnn-never": BASE.replace(model="rnn", truncate="never"),
    "rnn-never-always": BASE.replace(model="rnn", truncate="never", retain_graph="always"),
    "rnn-never-accumulate2": BASE.replace(model="rnn", truncate="never", accumulate=2),
    "rnn-sum-first": BASE.replace(model="rnn", accumulate=2, accumulate_mode="sum-first"),
    "sum-first-separate": BASE.replace(accumulate=4, accumulate_mode="sum-first",
                                       strategy="separate"),
    "sum-first-in-loop-noscale": BASE.replace(accumulate=2, accumulate_mode="sum-first",
                                              strategy="in-loop", scale=False),
    "sum-first-keep-graphs": BASE.replace(accumulate=2, accumulate_mode="sum-first",
                                          keep_graphs=True),
    "misplace-head": BASE.replace(misplace_head=1),
    "edit-detached": BASE.replace(detach=(1,), edit_detached=1),
    "edit-detached-separate": BASE.replace(detach=(0, 2), edit_detached=2,
                                           strategy="separate"),
    "retain-grad": BASE.replace(retain_grad=True),
    "diverges": BASE.replace(lr=1000.0, steps=6),
    # one pass vs K passes, .data vs detach(), no_grad and inference_mode
    **{f"{s}-{r}": BASE.replace(strategy=s, retain_graph=r)
       for s in ("backward-list", "autograd-grad") for r in ("auto", "always", "never")},
    "autograd-grad-accumulate2-no-zero-grad": BASE.replace(
        strategy="autograd-grad", accumulate=2, zero_grad=False, loss_weights=(0.5, 2.0, 1.0)),
    "autograd-grad-detach1-adam": BASE.replace(strategy="autograd-grad", detach=(1,),
                                               optimizer="adam", lr=0.01),
    "backward-list-sum-first": BASE.replace(strategy="backward-list", accumulate=2,
                                            accumulate_mode="sum-first"),
    "autograd-grad-rnn": BASE.replace(strategy="autograd-grad", model="rnn"),
    "edit-data1": BASE.replace(edit_data=1),
    "edit-data0-separate-detach2": BASE.replace(edit_data=0, strategy="separate",
                                                detach=(2,)),
    "no_grad1-sum": BASE.replace(detach=(1,), detach_mode="no_grad"),
    "no_grad1-separate": BASE.replace(detach=(1,), detach_mode="no_grad",
                                      strategy="separate"),
    "inference_mode2-backward-list": BASE.replace(detach=(2,), detach_mode="inference_mode",
                                                  strategy="backward-list"),
    "inference_mode0-autograd-grad": BASE.replace(detach=(0,), detach_mode="inference_mode",
                                                  strategy="autograd-grad"),
    "retain-grad-detach_": BASE.replace(retain_grad=True, detach=(1,), detach_mode="detach_",
                                        strategy="separate"),
    # torchjd's aggregators: the trunk gets the heads' gradients combined, not added
    "upgrad": BASE.replace(strategy="upgrad", loss_weights=(1.0, 1.0, 4.0)),
    "pcgrad-accumulate2": BASE.replace(strategy="pcgrad", accumulate=2),
    "mgda-adam": BASE.replace(strategy="mgda", optimizer="adam", lr=0.01),
    "upgrad-rnn-detach1": BASE.replace(strategy="upgrad", model="rnn", detach=(1,)),
    "pcgrad-always": BASE.replace(strategy="pcgrad", retain_graph="always", heads=4),
    "upgrad-edit-detached": BASE.replace(strategy="upgrad", detach=(1,), edit_detached=1),
}

RUNNER = textwrap.dedent("""
    import contextlib, io, json, runpy, sys
    import torch
    torch.set_num_threads(1)
    results = {}
    for path in sys.argv[1:]:
        out, error = io.StringIO(), None
        sys.argv = [path, "--grad-norms"]
        try:
            with contextlib.redirect_stdout(out):
                runpy.run_path(path, run_name="__main__")
        except SystemExit as exc:
            error = ["SystemExit", str(exc.code)]
        except Exception as exc:
            error = [type(exc).__name__, str(exc)]
        results[path] = {"stdout": out.getvalue(), "error": error}
    print(json.dumps(results))
""")


def first_paragraph(text: str) -> str:
    """What an engine event keeps of PyTorch's message."""
    return text.strip().split("\n\n")[0].replace("\n", " ").strip()


def engine_run(cfg: Config):
    """The engine's records of cfg.steps steps, and the event that stopped it, if any."""
    session = Session(cfg)
    records = []
    while len(records) < cfg.steps:
        record = session.step()
        if record is None:
            break
        records.append(record)
    return session, records, session.error


def run_scripts(paths) -> dict:
    """Run each script (with --grad-norms) in one child Python: its stdout and error."""
    done = subprocess.run([sys.executable, "-c", RUNNER, *map(str, paths)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def scripts_of(cases: dict, folder) -> dict:
    """Each case's script written into folder and run: name -> its stdout and error."""
    paths = {}
    for name, cfg in cases.items():
        paths[name] = folder / f"{name}.py"
        paths[name].write_text(script_text(cfg), encoding="utf-8")
    results = run_scripts(paths.values())
    return {name: results[str(path)] for name, path in paths.items()}


@pytest.fixture(scope="module")
def script_results(tmp_path_factory):
    return scripts_of(CASES, tmp_path_factory.mktemp("scripts"))


def numbers(line: str) -> tuple[int, list[float | None]]:
    """The step and its numbers; None where the script printed None (no gradient)."""
    step, *values = line.split()
    return int(step), [None if v == "None" else float(v) for v in values]


def close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return a == b or math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-9)


def assert_prints_the_records(name: str, result: dict, session, records) -> None:
    """The script printed one line per engine step: its losses, total and norms."""
    lines = result["stdout"].splitlines()
    assert len(lines) == len(records), (name, result)
    for line, record in zip(lines, records):
        step, values = numbers(line)
        assert step == record.step
        expected = list(record.losses.values()) + [record.total] + \
            [record.grad_norms[n] for n in session.param_names]
        assert len(values) == len(expected)
        bad = [(i, v, e) for i, (v, e) in enumerate(zip(values, expected)) if not close(v, e)]
        assert not bad, (name, step, bad[:5])


@pytest.mark.parametrize("name", list(CASES))
def test_the_script_prints_the_engines_numbers_or_raises_its_error(script_results, name):
    cfg = CASES[name]
    session, records, error = engine_run(cfg)
    result = script_results[name]
    assert_prints_the_records(name, result, session, records)
    if error is None:
        assert result["error"] is None, (name, result["error"])
    else:
        assert result["error"] is not None, (name, "the script ran on; the engine raised",
                                             error.message)
        kind, message = result["error"]
        if error.type == "Divergence":   # not PyTorch's: the script stops as the engine does
            assert kind == "SystemExit" and "NaN or infinite" in message
        else:
            assert kind == error.type
            assert first_paragraph(message) == error.message
        assert error.step == len(records)


def test_the_lessons_that_should_fail_do_fail(script_results):
    """The table above holds both kinds: runs that finish and PyTorch errors."""
    raised = {name for name, r in script_results.items() if r["error"]}
    assert {"separate-never", "in-loop-never", "detach_1", "rnn-never",
            "rnn-never-always", "misplace-head", "edit-detached", "diverges"} <= raised
    assert not raised & {"sum-auto", "separate-auto", "rnn", "sum-first-separate",
                         "retain-grad", "keep-graphs-sum"}
    # one pass needs no retain_graph; .data raises nothing; no_grad raises only where a
    # backward call starts from head K's loss (autograd.backward checks each of its list)
    assert {"autograd-grad-never", "no_grad1-separate", "inference_mode0-autograd-grad",
            "inference_mode2-backward-list"} <= raised
    assert not raised & {"backward-list-never", "autograd-grad-auto", "edit-data1",
                         "no_grad1-sum"}


@pytest.mark.parametrize("name", list(CASES))
def test_the_code_panel_is_the_end_of_the_script(name):
    cfg = CASES[name]
    script, loop = script_text(cfg), loop_code(cfg)
    assert script.endswith("\n" + loop)
    assert script.count(loop) == 1
    assert "import" not in loop and "def " not in loop
    assert max(len(line) for line in loop.splitlines()) <= 100


def test_the_script_imports_torch_and_the_standard_library_only():
    import ast
    cfg = BASE.replace(model="rnn", misplace_head=0, accumulate=2)
    tree = ast.parse(script_text(cfg))
    modules = {alias.name.split(".")[0] for node in ast.walk(tree)
               if isinstance(node, ast.Import) for alias in node.names}
    modules |= {node.module.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom)}
    assert modules <= {"functools", "math", "os", "sys", "torch"}
    assert 'DEVICE = torch.device("cpu")' in script_text(cfg)


@pytest.mark.parametrize("strategy, aggregator", [("upgrad", "UPGrad"), ("pcgrad", "PCGrad"),
                                                  ("mgda", "MGDA")])
def test_only_the_aggregating_strategies_import_torchjd_and_only_their_aggregator(
        strategy, aggregator):
    import ast
    tree = ast.parse(script_text(BASE.replace(strategy=strategy)))
    imported = {(node.module, alias.name) for node in ast.walk(tree)
                if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert {m for m, _ in imported} == {"torch", "torch.nn", "torchjd.aggregation",
                                        "torchjd.autojac"}
    assert ("torchjd.aggregation", aggregator) in imported
    assert {n for m, n in imported if m == "torchjd.aggregation"} == {aggregator}


def test_gradviz_run_writes_the_script_and_trains_and_they_agree(tmp_path):
    """`gradviz run --script FILE --out DIR`: plain `python FILE` prints report.json's
    numbers, one line per step: step, each head's loss, total."""
    from gradviz.app import main
    script, out = tmp_path / "loop.py", tmp_path / "out"
    argv = ["run", "--device", "cpu", "--steps", "5", "--batch-size", "32",
            "--strategy", "separate", "--accumulate", "2", "--loss-weights", "1,0.5,2",
            "--script", str(script), "--out", str(out), "--quiet"]
    assert main(argv) == 0
    report = json.loads((out / "report.json").read_text())
    assert "script" not in report["config"]
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(report["steps"]) == 5
    for line, step in zip(lines, report["steps"]):
        n, values = numbers(line)
        assert n == step["step"]
        assert len(values) == 4   # three heads and the total: no gradient norms asked
        expected = list(step["losses"].values()) + [step["total"]]
        assert all(close(v, e) for v, e in zip(values, expected)), (values, expected)


def test_gradviz_run_script_alone_with_an_error_config(tmp_path):
    """The script is written before training, also for a run that ends in an error."""
    from gradviz.app import main
    script = tmp_path / "second.py"
    argv = ["run", "--device", "cpu", "--steps", "2", "--batch-size", "16",
            "--strategy", "separate", "--retain-graph", "never", "--script", str(script),
            "--quiet"]
    assert main(argv) == 3
    assert "term.backward()" in script.read_text()
    assert not list(tmp_path.glob(".second.py.*"))   # no temporary file left beside it


def test_gradviz_run_script_into_a_folder_is_one_line_and_exit_2(tmp_path, capsys):
    from gradviz.app import main
    (tmp_path / "taken").mkdir()
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--device", "cpu", "--steps", "1", "--script", str(tmp_path / "taken")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "script" in err


@pytest.mark.parametrize("flags", [
    ["--strategy", "autograd-grad", "--edit-data", "1", "--accumulate", "2"],
    ["--strategy", "backward-list", "--loss-weights", "0.5,2,1"],
    ["--detach", "2", "--detach-mode", "no_grad"],   # under sum: head 2 learns nothing
])
def test_the_script_of_the_new_modes_prints_report_jsons_numbers(tmp_path, flags):
    """One pass vs K passes, .data and no_grad: `python FILE --grad-norms` prints every
    loss, the total and every gradient norm that report.json holds, step by step."""
    from gradviz.app import main
    script, out = tmp_path / "loop.py", tmp_path / "out"
    assert main(["run", "--device", "cpu", "--steps", "4", "--batch-size", "32", *flags,
                 "--script", str(script), "--out", str(out), "--quiet"]) == 0
    report = json.loads((out / "report.json").read_text())
    done = subprocess.run([sys.executable, str(script), "--grad-norms"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(report["steps"]) == 4
    for line, step in zip(lines, report["steps"]):
        n, values = numbers(line)
        expected = list(step["losses"].values()) + [step["total"]] + \
            list(step["grad_norms"].values())
        assert n == step["step"] and len(values) == len(expected)
        assert all(close(v, e) for v, e in zip(values, expected)), (values, expected)
