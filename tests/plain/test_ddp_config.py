"""ddp-ranks and ddp-no-sync in a config and a lesson: validated torch-free, one line
naming what the ranks cannot run; the all_reduces metric measured only with ranks, kept
per step for a slide's figure, and the `equals` promise checked on loading."""
import pytest

from gradviz.plain.config.config import Config, ConfigError
from gradviz.plain.config.config_toml import from_mapping, parse_toml, to_toml
from gradviz.plain.lessons.lesson_figures import figure_text
from gradviz.plain.lessons.lessons import LessonError, parse_lesson
from gradviz.plain.program.loop_code import loop_code
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord

HEADS = ["head0", "head1", "head2"]


def test_a_ddp_config_reads_back_from_its_toml():
    cfg = from_mapping({"ddp-ranks": 2, "accumulate": 4, "ddp-no-sync": True})
    assert (cfg.ddp_ranks, cfg.ddp_no_sync) == (2, True)
    assert "ddp-ranks = 2" in to_toml(cfg) and "ddp-no-sync = true" in to_toml(cfg)
    assert from_mapping(parse_toml(to_toml(cfg))) == cfg


@pytest.mark.parametrize("changes, words", [
    (dict(ddp_ranks=0), "ddp-ranks must be between 1 and 8"),
    (dict(ddp_ranks=2, strategy="separate"), "ddp-ranks 2 trains strategy sum "
                                              "(got strategy 'separate')"),
    (dict(ddp_ranks=2, model="rnn"), "trains the built-in mlp"),
    (dict(ddp_ranks=2, clip=0.5), "no clip (got clip 0.5)"),
    (dict(ddp_ranks=2, batch_norm=True), "no batch-norm"),
    (dict(ddp_ranks=3, accumulate=4), "ddp-ranks (3) times accumulate (4) must divide "
                                      "batch-size (64)"),
    (dict(ddp_no_sync=True, accumulate=4), "give ddp-ranks 2 or more"),
    (dict(ddp_ranks=2, ddp_no_sync=True), "and accumulate 2 or more"),
    (dict(ddp_ranks=2, ddp_no_sync=1), "ddp-no-sync must be true or false"),
])
def test_what_the_ranks_cannot_run_is_refused_in_one_line(changes, words):
    with pytest.raises(ConfigError) as caught:
        Config().replace(**changes)
    assert words in str(caught.value) and "\n" not in str(caught.value)


SLIDES = '''title = "t"
config = { accumulate = 4 }
[[slides]]
title = "one process"
narration = "n"
[[slides]]
title = "two ranks"
narration = "n"
'''


def slide2(keys: str):
    return parse_lesson("t", SLIDES + keys).slides[1]


def test_equals_and_the_all_reduces_figure_load_on_a_ddp_slide():
    slide = slide2('config = { ddp-ranks = 2 }\n'
                   'figures = [{ metric = "all_reduces", text = "{} all-reduces", digits = 0 }]\n'
                   'expect = [{ equals = { metric = "all_reduces", value = 4 } }]\n')
    assert slide.expect == ({"equals": {"metric": "all_reduces", "value": 4}},)
    run = History(HEADS, [])
    assert figure_text(slide.figures[0], run, {}) == "… all-reduces"
    run.append(StepRecord(0, dict.fromkeys(HEADS, 1.0), 3.0, all_reduces=4))
    assert figure_text(slide.figures[0], run, {}) == "4 all-reduces"


@pytest.mark.parametrize("keys, words", [
    ('expect = [{ equals = { metric = "all_reduces", value = 4 } }]',
     "slide 2, expect equals: all_reduces is measured only with ddp-ranks 2 or more"),
    ('figures = [{ metric = "all_reduces", text = "{}" }]',
     "all_reduces is measured only with ddp-ranks 2 or more"),
    ('config = { ddp-ranks = 2 }\nexpect = [{ equals = { metric = "all_reduces" } }]',
     "expect equals: needs value as well"),
    ('config = { ddp-ranks = 2 }\n'
     'expect = [{ equals = { metric = "all_reduces", value = "4" } }]',
     "expect equals: value must be a number (got '4')"),
    ('config = { ddp-ranks = 2 }\n'
     'expect = [{ equals = { metric = "all_reduce", value = 4 } }]',
     "did you mean 'all_reduces'"),
    ('config = { ddp-ranks = 2, accumulate = 3 }', "must divide batch-size"),
])
def test_a_bad_ddp_slide_is_refused_in_one_line(keys, words):
    with pytest.raises(LessonError) as caught:
        slide2(keys + "\n")
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_the_code_panel_says_whose_gradient_the_step_uses():
    text = loop_code(Config(ddp_ranks=2, accumulate=4, ddp_no_sync=True))
    assert text.startswith("# gradviz takes each step's gradient from 2 "
                           "DistributedDataParallel ranks")
    assert "model.no_sync() on all but the last micro-batch" in text
    # the ranks' gradient replaces the loop's before it is printed and stepped on
    code = [line.partition("#")[0].strip() for line in text.splitlines()]
    assert code.index("ddp_gradient(step, model)") == code.index(
        "log.print(step, weights, model)") - 1
    one = loop_code(Config(accumulate=4))
    assert "DistributedDataParallel" not in one and "ddp_gradient" not in one
