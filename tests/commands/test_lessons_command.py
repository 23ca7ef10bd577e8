"""`gradviz lessons --check FILE` on lecturers' own lessons, as a user runs it: exit 0
when every promise holds, 1 when one broke, 2 (one line naming the file, the slide and
the key) when the lesson is bad; never a traceback."""
import contextlib
import io
import os
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradviz.app import main
from gradviz.plain.lessons.lesson_format import CONFIG_KEYS, LESSON_KEYS, SLIDE_KEYS
from gradviz.plain.lessons.lesson_promises import CROSS_SLIDE, PROMISES
from gradviz.plain.lessons.lessons import PANELS

BASE = {"device": "cpu", "heads": 2, "batch-size": 16, "steps": 3}


def check(path) -> tuple[int, str, str]:
    """main(['lessons', '--check', path, '--quiet']) in this process: (exit status,
    stdout, stderr), the check's progress left out."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["lessons", "--check", str(path), "--quiet"])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


# ---- TOML, written out by hand (the stdlib only reads it) ----------------------------
def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"


def toml_string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    return '"' + "".join(f"\\{c}" if c in '"\\' else f"\\u{ord(c):04x}"
                         if ord(c) < 0x20 or ord(c) == 0x7f else c for c in text) + '"'


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else toml_string(key)


def toml_lesson(lesson: dict) -> str:
    lines = [f"{toml_key(k)} = {toml_value(v)}" for k, v in lesson.items() if k != "slides"]
    for s in lesson.get("slides", []):
        lines.append("[[slides]]")
        lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in s.items()]
    return "\n".join(lines) + "\n"


# ---- lessons whose promises are true (each a plain fact, shown elsewhere) -------------
def true_promises(i: int, n: int) -> st.SearchStrategy:
    """Losses and gradient norms are positive; nothing here retains z's grad; sum and
    separate give the same gradients (tests/core/test_compare.py, in plain PyTorch) and,
    from the same weights and batch, the same losses at step 0."""
    own = [{"no_error": True}, {"positive": "loss.head0"}, {"positive": "loss.head1"},
           {"positive": "global_grad_norm"}, {"absent": "z_grad_norm"}]
    others = [j + 1 for j in range(n) if j != i]
    cross = [p for j in others for p in (
        {"same_gradients_as": j}, {"ratio": {"of": "loss.head0", "slide": j, "is": 1.0}},
        {"about": {"metric": "total", "slide": j, "times": 1.0}})]
    return st.sampled_from(own + cross)


@st.composite
def good_lessons(draw) -> dict:
    n, stop = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    slides = []
    for i in range(n):
        s = {"title": f"slide {i + 1}", "narration": "**Notice:** n", "stop": stop,
             "config": {"strategy": draw(st.sampled_from(["sum", "separate"]))}}
        if draw(st.booleans()):
            s["panels"] = draw(st.lists(st.sampled_from(PANELS), min_size=1, max_size=3,
                                        unique=True))
        s["expect"] = draw(st.lists(true_promises(i, n), max_size=3))
        slides.append(s)
    return {"title": "mine", "config": dict(BASE), "slides": slides}


def false_promises(i: int, n: int) -> st.SearchStrategy:
    others = [j + 1 for j in range(n) if j != i] or [None]
    return st.sampled_from([{"zero": "loss.head0"}, {"error": "second time"},
                            {"negative": "total"}] +
                           [{"ratio": {"of": "loss.head1", "slide": j, "is": 2.0}}
                            for j in others if j])


# ---- ways to make a lesson bad -----------------------------------------------------
def misspelt(word: str) -> st.SearchStrategy:
    edits = [word[:-1], word + "s", word[0] + word, word[1:] + word[0],
             word[:1] + word[2:1:-1] + word[1:2] + word[3:] if len(word) > 3 else word + "x"]
    return st.sampled_from(edits)


def unknown_key(allowed) -> st.SearchStrategy:
    known = {a.replace("_", "-") for a in allowed}
    return st.one_of(st.sampled_from(list(allowed)).flatmap(misspelt),
                     st.text(min_size=1, max_size=12)).filter(
        lambda k: k.replace("_", "-") not in known)


BAD_METRICS = ["__class__", "cosine.9.x", "cosine.0.5", "cosine.0", "loss.head2",
               "junction.head", "grad_norm.x", "", "Total", "z_grad_norm", 5, True, ["total"]]
WRONG_TYPES = {"title": [5, "", ["t"]], "narration": [3, " "], "stop": ["3", 0, True, 2.5, -1],
               "pace": ["fast", -1, True, 1e9], "panels": ["loss", [], ["tv"]],
               "layout": ["side_by_side", 3], "play": [1, "frames"],
               "expect": [{}, "no_error", [1]], "config": ["sum", {"heads": "3"},
                                                          {"lr": "0.1"}, {"steps": -1}]}


@st.composite
def bad_lessons(draw) -> dict:
    lesson = draw(good_lessons())
    slides = lesson["slides"]
    i = draw(st.integers(0, len(slides) - 1))
    s, n = slides[i], len(slides)
    how = draw(st.sampled_from(["top key", "slide key", "config key", "inner key",
                                "wrong type", "metric", "string number", "self", "range",
                                "other model", "rename", "device", "promise kind"]))
    if how == "top key":
        lesson[draw(unknown_key(LESSON_KEYS))] = "x"
    elif how == "slide key":
        s[draw(unknown_key(SLIDE_KEYS))] = 1
    elif how == "config key":
        s["config"][draw(unknown_key(CONFIG_KEYS + tuple(k.replace("-", "_")
                                                          for k in CONFIG_KEYS)))] = 1
    elif how == "inner key":
        kind = draw(st.sampled_from(sorted(CROSS_SLIDE)))
        table = {"of" if kind == "ratio" else "metric": "total", "slide": 1 + (i == 0),
                 **({"is": 1.0} if kind == "ratio" else {}),
                 **({"times": 1.0} if kind == "about" else {})}
        table[draw(unknown_key(CROSS_SLIDE[kind]))] = 1
        s["expect"].append({kind: table})
    elif how == "wrong type":
        key = draw(st.sampled_from(sorted(WRONG_TYPES)))
        s[key] = draw(st.sampled_from(WRONG_TYPES[key]))
    elif how == "metric":
        kind = draw(st.sampled_from(["grows", "flat", "zero", "positive", "small"]))
        s["expect"].append({kind: draw(st.sampled_from(BAD_METRICS))})
    elif how == "string number":
        s["expect"].append(draw(st.sampled_from([
            {"ratio": {"of": "total", "slide": 1 + (i == 0), "is": "1.0"}},
            {"about": {"metric": "total", "slide": 1 + (i == 0), "times": "2"}}])))
    elif how == "self":
        s["expect"].append(draw(st.sampled_from([
            {"same_gradients_as": i + 1}, {"ratio": {"of": "total", "slide": i + 1, "is": 1.0}},
            {"below": {"metric": "total", "slide": i + 1}}])))
    elif how == "range":
        s["expect"].append({"same_gradients_as": draw(st.sampled_from([0, -1, n + 1, "1"]))})
    elif how == "other model":
        s["config"][draw(st.sampled_from(["heads", "seed", "trunk-width"]))] = 3
        s["expect"].append({"same_gradients_as": 1 + (i == 0)})
    elif how == "promise kind":
        s["expect"].append({draw(unknown_key(PROMISES)): "total"})
    elif how == "device":
        s["config"]["device"] = draw(st.sampled_from(["bogus", "cuda:99", "meta", ""]))
    else:
        key = draw(st.sampled_from(["expect", "stop", "panels", "narration", "title"]))
        s[draw(unknown_key(SLIDE_KEYS) if key != "expect" else st.just("expects"))] = \
            s.pop(key, "x")
        if key in ("narration", "title"):   # a misspelt required key is refused as missing
            s.setdefault(key, "")
    if draw(st.booleans()) and isinstance(s.get("expect"), list):
        s["expect"].append(draw(false_promises(i, n)))   # still bad (2), not broken (1)
    return lesson


def with_false_promise(lesson: dict, data) -> dict:
    i = data.draw(st.integers(0, len(lesson["slides"]) - 1))
    s = lesson["slides"][i]
    if data.draw(st.booleans()):
        s["expect"].append(data.draw(false_promises(i, len(lesson["slides"]))))
    else:
        s["stop"] = "error"    # this config never errors: bounded by its 3 steps
    return lesson


CASES = settings(max_examples=60, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture,
                                        HealthCheck.too_slow])


@CASES
@given(lesson=good_lessons(), data=st.data(), broken=st.booleans())
def test_a_readable_lesson_is_0_when_it_holds_and_1_when_a_promise_broke(
        tmp_path, lesson, data, broken):
    if broken:
        lesson = with_false_promise(lesson, data)
    path = tmp_path / "mine.toml"
    path.write_text(toml_lesson(lesson))
    code, out, err = check(path)
    assert "Traceback" not in out + err
    assert code == (1 if broken else 0), (out, err, path.read_text())
    assert out.startswith("mine: ") and out.count("\n") == 1
    if broken:
        assert all(re.match(r"  slide \d \(slide \d\): ", line) for line in err.splitlines())


@CASES
@given(lesson=bad_lessons())
def test_a_bad_lesson_is_2_in_one_line_naming_the_file_and_slide(tmp_path, lesson):
    path = tmp_path / "mine.toml"
    path.write_text(toml_lesson(lesson))
    code, out, err = check(path)
    assert "Traceback" not in out + err
    assert code == 2, (out, err, path.read_text())
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"gradviz: lesson file '{path}'"), err
    assert "not valid TOML" not in err      # refused for what it says, not how it is written


@settings(max_examples=60, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.text(max_size=200))
def test_any_text_is_checked_or_refused_in_one_line(tmp_path, text):
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    code, out, err = check(path)
    assert "Traceback" not in out + err
    assert code == 2 and err.count("\n") == 1


# ---- each bullet of the tester's report, as an example ----------------------------------
def write(tmp_path, text: str, name: str = "mine.toml"):
    path = tmp_path / name
    path.write_text('title = "t"\nconfig = { device = "cpu", heads = 2, batch-size = 16 }\n'
                    + text)
    return path


SLIDE = '[[slides]]\ntitle = "s"\nnarration = "n"\nstop = 2\n'


@pytest.mark.parametrize("text, words", [
    (SLIDE + 'expect = [{ grows = "__class__" }]\n', "slide 1, expect grows: unknown metric "
                                                     "'__class__'"),
    (SLIDE + 'expect = [{ small = "cosine.I.J" }]\n', "'cosine.I.J' is not cosine.I.J"),
    (SLIDE * 2 + 'expect = [{ ratio = { of = "total", slide = 1, is = "3" } }]\n',
     "slide 2, expect ratio: is must be a number (got '3')"),
    (SLIDE * 2 + 'expect = [{ about = { metric = "total", slide = 1, times = "4" } }]\n',
     "slide 2, expect about: times must be a number (got '4')"),
    (SLIDE + 'expect = [{ grows = "z_grad_norm" }]\n', "z_grad_norm is measured only with "
                                                       "retain-grad = true"),
    (SLIDE + 'expects = [{ grows = "total" }]\n', "unknown key 'expects' (did you mean "
                                                  "'expect'?)"),
    (SLIDE + "stpo = 3\n", "unknown key 'stpo' (did you mean 'stop'?)"),
    (SLIDE + 'panel = ["loss"]\n', "unknown key 'panel' (did you mean 'panels'?)"),
    (SLIDE.replace("[[slides]]", "[[slide]]"), "unknown key 'slide' (did you mean 'slides'?)"),
    (SLIDE + "expect = [{ same_gradients_as = 1 }]\n", "is this slide itself"),
    (SLIDE + SLIDE + "config = { heads = 3 }\nexpect = [{ same_gradients_as = 1 }]\n",
     "slide 2, expect same_gradients_as: slide 1 builds another model (heads is 2 in "
     "slide 1, 3 in this slide)"),
    (SLIDE.replace('"n"', '"""\n' + "> " * 7 + 'deep\n"""'),
     "slide 1: the narration cannot be shown: it nests lists or quotes 7 levels deep"),
    (SLIDE.replace('"n"', '"""\n' + "| a | b |\n|---|---|\n" + "| 1 | 2 |\n" * 2000
                   + '"""'), "slide 1: the narration cannot be shown: it is "),
])
def test_each_reported_bad_lesson_is_exit_2_in_one_line(tmp_path, text, words):
    path = write(tmp_path, text)
    code, out, err = check(path)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"gradviz: lesson file '{path}'") and words in err


@pytest.mark.parametrize("text, words", [
    (SLIDE + "config = { detach = [1] }\n" + SLIDE +
     'expect = [{ ratio = { of = "junction.head1", slide = 1, is = 3.0 } }]\n',
     "slide 2 (s): slide 1's junction.head1 is 0 at step 0, so no ratio to it is 3"),
    (SLIDE + "config = { misplace-head = 1 }\n" + SLIDE +
     'expect = [{ ratio = { of = "total", slide = 1, is = 1.0 } }]\n',
     "slide 2 (s): slide 1's total: no step finished (stopped at step 0: "),
    (SLIDE + 'config = { detach = [0, 1], retain-grad = true }\n'
             'expect = [{ positive = "z_grad_norm" }]\n',
     "slide 1 (s): z_grad_norm was not measured at step 0"),
    (SLIDE + 'config = { lr = 1000.0 }\nexpect = [{ decreases = "total" }]\n',
     "slide 1 (s): total does not decrease ("),
])
def test_each_reported_runtime_problem_is_exit_1_in_one_line(tmp_path, text, words):
    code, out, err = check(write(tmp_path, text))
    assert (code, out) == (1, "mine: 1 broken\n")
    assert err.count("\n") == 1 and err.startswith("  ") and words in err


@pytest.mark.parametrize("device, words", [
    ("bogus", "device must be auto, cpu, cuda, cuda:N, mps, meta, xpu or hpu "
              "(got 'bogus')"),
    ("cuda:99", "device cuda:99 is not available here (available: "),
])
def test_a_device_this_machine_has_not_is_a_bad_lesson_before_anything_runs(
        tmp_path, device, words):
    path = write(tmp_path, SLIDE + 'expect = [{ decreases = "total" }]\n' + SLIDE +
                 f'config = {{ device = "{device}" }}\n')
    code, out, err = check(path)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"gradviz: lesson file '{path}', slide 2, config: {words}")


def test_a_never_erroring_stop_error_ends_and_is_broken(tmp_path):
    path = write(tmp_path, SLIDE.replace("stop = 2", 'stop = "error"') +
                 "config = { steps = 1000000000 }\n")
    code, out, err = check(path)
    assert (code, out) == (1, "mine: 1 broken\n")
    assert err == '  slide 1 (s): stop = "error", but no error came in 1000 steps\n'


def test_the_help_says_which_problems_are_1_and_which_2(capsys):
    with pytest.raises(SystemExit):
        main(["lessons", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for words in ("0 every promise holds; 1 a promise broke; 2 the lesson is bad",
                  "a ratio or \"about\" against a slide whose value is 0",
                  "stopped before its first step finished", "(at most 1000)",
                  "a slide compared with itself"):
        assert words in text


def test_every_bundled_lesson_is_read_by_the_listing(capsys):
    assert main(["lessons"]) == 0
    assert all("  " in line for line in capsys.readouterr().out.splitlines())


def test_a_missing_lesson_file_is_a_lesson_file_not_found(tmp_path):
    code, out, err = check(tmp_path / "nope.toml")
    assert (code, out) == (2, "")
    assert err == f"gradviz: lesson file '{tmp_path / 'nope.toml'}' not found\n"


@pytest.mark.parametrize("text, words", [
    (None, "lesson file '{p}' not found"),
    (SLIDE + "stpo = 3\n", "lesson file '{p}', slide 1: unknown key 'stpo' (did you mean "
                           "'stop'?)"),
])
def test_the_app_refuses_a_bad_lesson_with_the_checks_own_line(tmp_path, text, words):
    path = tmp_path / "mine.toml"
    if text is not None:
        path = write(tmp_path, text)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "GRADVIZ_SETTINGS": str(tmp_path / "settings.json")}
    done = subprocess.run([sys.executable, "-I", "-m", "gradviz", "--lesson", str(path),
                           "--screenshot", str(tmp_path / "shot.png")],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 2 and not (tmp_path / "shot.png").exists()
    assert done.stderr.splitlines() == check(path)[2].splitlines()
    assert done.stderr.startswith(f"gradviz: {words.format(p=path)}")


def test_check_says_each_lesson_and_slide_as_it_goes(tmp_path, capsys):
    """A long check is not silent: the lesson as it starts, each slide as it has played
    (stderr; stdout keeps the verdict); -v also each promise."""
    path = write(tmp_path, SLIDE + 'expect = [{ decreases = "total" }]\n' + SLIDE +
                 'expect = [{ grows = "total" }]\nconfig = { steps = 3 }\n')
    code = main(["lessons", "--check", str(path)])
    out, err = capsys.readouterr()
    assert out.startswith("mine: ") and out.count("\n") == 1 and code in (0, 1)
    lines = err.splitlines()
    assert lines[0] == "mine: playing 2 slides"
    assert lines[1].startswith("  slide 1/2 played: ") and " steps in " in lines[1]
    assert lines[2].startswith("  slide 2/2 played: ") and " steps in " in lines[2]
    main(["lessons", "--check", str(path), "-v"])
    err = capsys.readouterr().err
    assert "  slide 1: decreases = 'total': " in err and "  slide 2: grows = 'total': " in err
    main(["lessons", "--check", str(path), "-q"])
    assert "played" not in capsys.readouterr().err
