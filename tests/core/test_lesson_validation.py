"""A lesson is read whole before anything runs: unknown keys at every level (with a
did-you-mean), wrong types, metric names, slide references, each a one-line error that
names the file, the slide and the key."""
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from gradviz.core.session import Session
from gradviz.plain.config.config import Config
from gradviz.plain.lessons.lesson_metrics import metric_names, parameter_names, unmeasured
from gradviz.plain.lessons.lessons import LessonError, load_lesson, parse_lesson

from core_reference import RefNet

ONE = 'title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\n'
TWO = ONE + '[[slides]]\ntitle = "s2"\nnarration = "n2"\n'


def refused(text: str) -> str:
    with pytest.raises(LessonError) as raised:
        parse_lesson("x", text)
    message = str(raised.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("text, words", [
    (ONE + 'expects = [{ no_error = true }]\n',
     "lesson x, slide 1: unknown key 'expects' (did you mean 'expect'?)"),
    (ONE + 'stpo = 3\n', "slide 1: unknown key 'stpo' (did you mean 'stop'?)"),
    (ONE + 'panel = ["loss"]\n', "slide 1: unknown key 'panel' (did you mean 'panels'?)"),
    ('title = "t"\n[[slide]]\ntitle = "s"\nnarration = "n"\n',
     "lesson x: unknown key 'slide' (did you mean 'slides'?)"),
    (TWO + 'narations = "x"\n', "slide 2: unknown key 'narations' (did you mean 'narration'?)"),
    (ONE + 'config = { stpes = 3 }\n',
     "slide 1, config: unknown setting 'stpes' (did you mean 'steps'?)"),
    ('config = { haeds = 2 }\n' + ONE, "lesson x, config: unknown setting 'haeds' "
                                       "(did you mean 'heads'?)"),
    (ONE + 'expect = [{ grow = "total" }]\n',
     "slide 1: unknown promise 'grow' (did you mean 'grows'?)"),
    (ONE + 'expect = [{ same_gradient_as = 1 }]\n',
     "unknown promise 'same_gradient_as' (did you mean 'same_gradients_as'?)"),
    (TWO + 'expect = [{ ratio = { of = "total", slide = 1, iz = 2.0 } }]\n',
     "slide 2, expect ratio: unknown key 'iz' (did you mean 'is'?)"),
    (ONE + 'panels = ["junctoin"]\n', "(got 'junctoin' (did you mean 'junction'?))"),
])
def test_a_misspelt_key_is_refused_with_a_did_you_mean(text, words):
    assert words in refused(text)


@pytest.mark.parametrize("metric, words", [
    ("__class__", "unknown metric '__class__'"),
    ("steps", "unknown metric 'steps'"),
    ("losses", "unknown metric 'losses' (did you mean"),
    ("cosine.9.x", "'cosine.9.x' is not cosine.I.J with I and J heads 0..2"),
    ("cosine.0.3", "is not cosine.I.J"),
    ("cosine.0", "is not cosine.I.J"),
    ("cosine.00.1", "is not cosine.I.J"),
    ("loss.head3", "'loss.head3' names no head of this slide's (head0..head2)"),
    ("junction.0", "names no head"),
    ("grad_norm.trunk.1.weight", "names no parameter of this slide's model "
                                 "(did you mean 'grad_norm.trunk."),
])
def test_a_metric_the_slides_model_has_not_is_refused(metric, words):
    message = refused(ONE + f'expect = [{{ grows = "{metric}" }}]\n')
    assert message.startswith("lesson x, slide 1, expect grows: ") and words in message


def test_metric_names_follow_each_slides_own_heads():
    text = ONE + 'config = { heads = 4 }\nexpect = [{ small = "cosine.0.3" }]\n' + \
        '[[slides]]\ntitle = "s2"\nnarration = "n"\nconfig = { heads = 2 }\n' + \
        'expect = [{ positive = "loss.head1" }]\n'
    assert len(parse_lesson("x", text).slides) == 2
    assert "names no head" in refused(text.replace("loss.head1", "loss.head2"))


@pytest.mark.parametrize("value, words", [
    ('{ of = "total", slide = 1, is = "3" }', "is must be a number (got '3')"),
    ('{ of = "total", slide = 1, is = nan }', "is must be a number (got nan)"),
    ('{ of = "total", slide = 1 }', "needs is as well"),
    ('{ of = "total", slide = "1", is = 3.0 }', "slide must be a slide number, 1 to 2 (got '1')"),
    ('{ of = "total", slide = true, is = 3.0 }', "(got True)"),
    ('{ of = "total", slide = 3, is = 3.0 }', "1 to 2 (got 3)"),
    ('{ of = "total", slide = 2, is = 3.0 }', "is this slide itself"),
    ('{ of = "__class__", slide = 1, is = 3.0 }', "unknown metric '__class__'"),
    ('"total"', "give a table { of = …, slide = …, is = … }"),
])
def test_a_bad_ratio_is_refused(value, words):
    message = refused(TWO + f"expect = [{{ ratio = {value} }}]\n")
    assert message.startswith("lesson x, slide 2, expect ratio") and words in message


@pytest.mark.parametrize("value, words", [
    ('{ metric = "total", slide = 1, times = "4" }', "times must be a number (got '4')"),
    ('{ metric = "total", slide = 1, times = 0 }', "times must be above 0"),
    ('{ metric = "total", slide = 1, times = -2.0 }', "times must be above 0"),
    ('{ metric = "total", times = 4.0 }', "needs slide as well"),
])
def test_a_bad_about_is_refused(value, words):
    assert words in refused(TWO + f"expect = [{{ about = {value} }}]\n")


def test_same_gradients_as_itself_can_never_fail_so_it_is_refused():
    message = refused(TWO + "expect = [{ same_gradients_as = 2 }]\n")
    assert message == ("lesson x, slide 2, expect same_gradients_as: same_gradients_as = 2 "
                       "is this slide itself, which no check can fail: name another slide")


@pytest.mark.parametrize("change", ["heads = 4", "seed = 7", "trunk-width = 16",
                                    'model = "rnn"', "trunk-depth = 3"])
def test_same_gradients_as_a_slide_with_another_model_is_refused(change):
    message = refused(TWO + f"config = {{ {change} }}\nexpect = [{{ same_gradients_as = 1 }}]\n")
    key = change.split(" = ")[0]
    assert "slide 2, expect same_gradients_as: slide 1 builds another model" in message
    assert f"({key} is " in message and "in slide 1" in message and "in this slide" in message


def test_same_gradients_as_a_slide_that_misplaces_a_head_is_the_same_model():
    lesson = parse_lesson("x", TWO + "config = { misplace-head = 1 }\n"
                                     "expect = [{ same_gradients_as = 1 }]\n")
    assert lesson.slides[1].expect == ({"same_gradients_as": 1},)


@pytest.mark.parametrize("text, words", [
    (ONE + 'expect = [{ positive = "z_grad_norm" }]\n',
     "z_grad_norm is measured only with retain-grad = true"),
    (ONE + 'config = { probes = "none" }\nexpect = [{ grows = "saved_bytes" }]\n',
     'saved_bytes is not measured with probes = "none" (only the losses are)'),
])
def test_a_metric_the_slide_never_measures_is_refused(text, words):
    assert words in refused(text)


def test_what_a_slide_never_measures_may_be_promised_absent_and_losses_always_measured():
    lesson = parse_lesson("x", ONE + 'config = { probes = "none" }\n'
                                     'expect = [{ absent = "z_grad_norm" }, '
                                     '{ decreases = "loss.head0" }, { positive = "total" }]\n')
    assert len(lesson.slides[0].expect) == 3


@pytest.mark.parametrize("line, words", [
    ('title = 5', "title must be some text (got 5)"),
    ('narration = ["n"]', "narration must be some text"),
    ('stop = "3"', "stop must be a step count (1-10000) or \"error\" (got '3')"),
    ("stop = true", "(got True)"),
    ('pace = "fast"', "pace must be steps per second"),
    ('panels = "loss"', "panels must be a list of"),
    ('panels = ["loss", "loss"]', "panels names a panel twice"),
    ('layout = "side_by_side"', "(did you mean 'side-by-side'?)"),
    ('expect = { no_error = true }', "expect must be a list of promises"),
    ('expect = [{ no_error = false }]', "no_error takes true (got False)"),
    ('expect = [{ no_error = true, grows = "total" }]', "each expect entry is one promise"),
    ('expect = ["total"]', "each expect entry is one promise"),
    ('expect = [{ error = "" }]', "give some words of the error"),
    ('config = "sum"', "config must be a table of settings"),
    ('config = { heads = "3" }', "heads must be a whole number (got '3')"),
    ('keep = "ghosts"', "keep must be one of 'nothing', 'ghost' (got 'ghosts'"),
    ('keep = true', "keep must be one of"),
])
def test_a_value_of_the_wrong_type_is_refused(line, words):
    lines = {"title": 'title = "s"', "narration": 'narration = "n"'}
    lines[line.split(" = ")[0]] = line
    message = refused('title = "t"\n[[slides]]\n' + "\n".join(lines.values()) + "\n")
    assert message.startswith("lesson x, slide 1") and words in message


def test_a_slide_keeps_the_slide_befores_lines_only_where_there_is_one():
    assert [s.keep for s in parse_lesson("x", TWO + 'keep = "ghost"\n').slides] == \
        ["nothing", "ghost"]
    message = refused('title = "t"\n[[slides]]\ntitle = "s"\nnarration = "n"\n'
                      'keep = "ghost"\n')
    assert message == ("lesson x, slide 1: keep = \"ghost\" keeps the slide before's lines, "
                       "and slide 1 has none before it")


def test_a_lesson_file_is_named_in_its_errors(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text(TWO + "stpo = 3\n")
    with pytest.raises(LessonError, match=r"^lesson file '.*mine\.toml', slide 2: unknown "
                                          r"key 'stpo' \(did you mean 'stop'\?\)"):
        load_lesson(path)


@pytest.mark.parametrize("make, words", [
    (lambda p: None, "lesson file '{p}' not found"),
    (lambda p: p.mkdir(), "lesson file '{p}' is not a regular file"),
    (lambda p: p.write_bytes(b"\xff\xfe title"), "lesson file '{p}' is not UTF-8 text"),
    (lambda p: p.write_text("x" * 300_000), "lesson file '{p}' is over 256 KB"),
    (lambda p: p.write_text("title = "), "lesson file '{p}' is not valid TOML"),
])
def test_a_bad_lesson_file_says_what_is_wrong_with_the_lesson_file(tmp_path, make, words):
    path = tmp_path / "x.toml"
    make(path)
    with pytest.raises(LessonError) as raised:
        load_lesson(path)
    assert words.format(p=path) in str(raised.value)
    assert "config file" not in str(raised.value)


@pytest.mark.parametrize("cfg", [Config(), Config(heads=1, trunk_depth=1),
                                 Config(heads=5, trunk_depth=4)])
def test_parameter_names_are_the_models_own(cfg):
    expected = [name for name, _ in RefNet(cfg.heads, cfg.trunk_width,
                                           cfg.trunk_depth).named_parameters()]
    assert parameter_names(cfg) == expected


def test_every_metric_name_of_a_config_is_one_a_record_holds():
    """What the validator allows is what a check of the slide finds (rnn included)."""
    for cfg in (Config(device="cpu", heads=2, retain_grad=True),
                Config(device="cpu", heads=2, model="rnn", retain_grad=True)):
        record = Session(cfg.replace(sample_every=1)).step()
        assert sorted(record.grad_norms) == sorted(parameter_names(cfg))
        found = {"total": record.total, "global_grad_norm": record.global_grad_norm,
                 "saved_bytes": record.saved_bytes, "graph_nodes": record.graph_nodes,
                 "saved_bytes_peak": record.saved_bytes_peak, "z_grad_norm": record.z_grad_norm,
                 "saved_tensor_bytes": record.saved_tensor_bytes,
                 "saved_tensor_bytes_peak": record.saved_tensor_bytes_peak,
                 "trunk_walks": record.trunk_walks, "backward_seconds": record.backward_seconds}
        found |= {f"loss.{h}": v for h, v in record.losses.items()}
        found |= {f"junction.{h}": v for h, v in record.junction_grad_norms.items()}
        found |= {f"grad_norm.{p}": v for p, v in record.grad_norms.items()}
        found |= {f"cosine.{i}.{j}": record.cosine[i][j] for i in range(2) for j in range(2)}
        found |= {f"update_cosine.{h}": v for h, v in record.update_cosine.items()}
        found["update_cosine.min"] = min(record.update_cosine.values())
        found |= record.trunk_step_fields()
        for family in ("loss_change", "loss_change_trunk", "loss_change_head"):
            found |= {f"{family}.{h}": v for h, v in getattr(record, family).items()}
        # every name the check of this slide measures (all_reduces only with DDP ranks)
        measured = [n for n in metric_names(cfg) if unmeasured(n, cfg) is None]
        assert sorted(found) == sorted(measured) and "all_reduces" not in measured
        assert all(v is not None for v in found.values())


@settings(max_examples=200, deadline=None, database=None)
@given(st.text(min_size=1, max_size=30))
@example("z_grad_norm")
@example("all_reduces")
@example("grad_norm.trunk.0.weight")
def test_any_metric_name_is_accepted_only_if_the_model_has_it(name):
    text = ONE + "expect = [{ flat = " + _toml_string(name) + " }]\n"
    names = metric_names(Config())
    try:
        lesson = parse_lesson("x", text)
    except LessonError as exc:
        # the two names the default settings never measure: z's gradient (retain-grad
        # off) and the all-reduces (one process)
        assert name not in names or name in ("z_grad_norm", "all_reduces")
        assert "\n" not in str(exc) and str(exc).startswith("lesson x, slide 1, expect flat")
    else:
        assert name in names and lesson.slides[0].expect == ({"flat": name},)


def _toml_string(text: str) -> str:
    return '"' + "".join(c if c.isprintable() and c not in '"\\' else f"\\u{ord(c):04x}"
                         if ord(c) < 0x10000 else f"\\U{ord(c):08x}" for c in text) + '"'


# ---- reference lines: a value drawn on a chart --------------------------------------------
REF_TWO = ONE + 'panels = ["loss"]\n' + \
    '[[slides]]\ntitle = "s2"\nnarration = "n2"\npanels = ["junction", "global_norm"]\n'


@pytest.mark.parametrize("line, expected", [
    ('{ metric = "junction.head2", value = { slide = 1, step = 0 }, label = "clean run" }',
     ("junction", "junction.head2", None, 1, 0, "clean run")),
    ('{ metric = "junction.head0", value = { slide = 1 }, label = "  slide 1  " }',
     ("junction", "junction.head0", None, 1, 0, "slide 1")),
    ('{ metric = "global_grad_norm", value = 1.4, label = "about 1.4" }',
     ("global_norm", "global_grad_norm", 1.4, None, 0, "about 1.4")),
    ('{ metric = "global_grad_norm", value = 2, label = "2" }',
     ("global_norm", "global_grad_norm", 2.0, None, 0, "2")),
    ('{ metric = "junction.head1", value = { slide = 1, step = 29 }, label = "last" }',
     ("junction", "junction.head1", None, 1, 29, "last")),
])
def test_a_reference_line_is_read_with_its_chart_and_value(line, expected):
    (ref,) = parse_lesson("x", REF_TWO + f"reference = [{line}]\n").slides[1].reference
    assert (ref.panel, ref.metric, ref.number, ref.slide, ref.step, ref.label) == expected
    assert parse_lesson("x", REF_TWO).slides[1].reference == ()


@pytest.mark.parametrize("line, words", [
    ('[{ metrc = "total", value = 1, label = "a" }]', "unknown key 'metrc' (did you mean"),
    ('[{ metric = "junction.head2", value = 1 }]', "needs label as well"),
    ('[{ metric = "junction.head5", value = 1, label = "a" }]', "names no head"),
    ('[{ metric = "total", value = 1, label = "a" }]',
     "'total' is drawn on no chart that takes reference lines"),
    ('[{ metric = "grad_norm.trunk.0.weight", value = 1, label = "a" }]', "drawn on no chart"),
    ('[{ metric = "z_grad_norm", value = 1, label = "a" }]',
     "z_grad_norm is measured only with retain-grad = true"),
    ('[{ metric = "junction.head2", value = "clean", label = "a" }]',
     "value must be a number or { slide = N, step = S } (got 'clean')"),
    ('[{ metric = "junction.head2", value = true, label = "a" }]', "value must be a number"),
    ('[{ metric = "junction.head2", value = inf, label = "a" }]',
     "value must be a finite number (got inf)"),
    ('[{ metric = "junction.head2", value = { slide = 2 }, label = "a" }]',
     "slide must be a slide before this one, whose run is kept (1 to 1; got 2)"),
    ('[{ metric = "junction.head2", value = { slide = 0 }, label = "a" }]', "(1 to 1; got 0)"),
    ('[{ metric = "junction.head2", value = { slide = 1, step = 30 }, label = "a" }]',
     "step must be a step slide 1 runs, 0 to 29 (got 30)"),
    ('[{ metric = "junction.head2", value = { slide = 1, stpe = 3 }, label = "a" }]',
     "unknown key 'stpe' (did you mean 'step'?)"),
    ('[{ metric = "junction.head2", value = 1, label = "" }]', "label must be one line"),
    ('[{ metric = "junction.head2", value = 1, label = "a\\nb" }]', "label must be one line"),
    ('[{ metric = "junction.head2", value = 1, label = "' + "x" * 61 + '" }]',
     "of 1 to 60 characters"),
    ('{ metric = "junction.head2", value = 1, label = "a" }', "reference must be a list"),
    ('["junction.head2"]',
     "give a table { metric = …, value = …, label = … } (got 'junction.head2')"),
    ("[" + ", ".join(['{ metric = "junction.head2", value = 1, label = "a" }'] * 5) + "]",
     "a list of up to 4 lines"),
])
def test_a_bad_reference_line_is_a_one_line_error_naming_slide_and_key(line, words):
    message = refused(REF_TWO + f"reference = {line}\n")
    assert message.startswith("lesson x, slide 2, reference") and words in message


def test_a_reference_to_a_chart_the_slide_does_not_show_is_refused():
    text = REF_TWO.replace('panels = ["junction", "global_norm"]', 'panels = ["loss"]')
    message = refused(text + 'reference = [{ metric = "junction.head0", value = 1, '
                             'label = "a" }]\n')
    assert "junction.head0 is drawn on the junction chart, which this slide does not " \
           "show (panels = loss)" in message


def test_a_reference_to_a_run_that_never_measures_it_is_refused():
    text = REF_TWO.replace('panels = ["loss"]\n', 'panels = ["loss"]\n'
                                                    'config = { probes = "none" }\n')
    message = refused(text + 'reference = [{ metric = "junction.head0", '
                             'value = { slide = 1 }, label = "a" }]\n')
    assert message.startswith("lesson x, slide 2, reference (on slide 1): junction.head0 "
                              "is not measured with probes")


def test_slide_1_has_no_run_before_it_to_draw():
    message = refused(ONE + 'panels = ["junction"]\nreference = [{ metric = "junction.head0", '
                            'value = { slide = 1 }, label = "a" }]\n')
    assert "slide 1, reference: slide must be a slide before this one" in message
    assert "slide 1 has no slide before it" in message
