""""Copy as script" for accumulation that is not the full batch: unequal micro-batches
(scaled by 1/N or n_i/B), a BatchNorm1d in the trunk and gradient clipping print, per
step, the engine's losses, total and gradient norms (the comparison test_script makes
for the other options, on these configs)."""
import pytest
from test_script import assert_prints_the_records, engine_run, scripts_of

from gradviz.plain.config.config import Config
from gradviz.plain.program.loop_code import loop_code
from gradviz.plain.program.script import script_text

BASE = Config(device="cpu", heads=3, trunk_width=16, trunk_depth=2, batch_size=32, steps=4,
              probes="default", sample_every=1)
SIZES = (20, 4, 4, 4)

CASES = {
    "sizes-mean": BASE.replace(micro_batch_sizes=SIZES, accumulate=4),
    "sizes-size": BASE.replace(micro_batch_sizes=SIZES, accumulate=4, scale_by="size"),
    "sizes-size-separate-weights": BASE.replace(micro_batch_sizes=(8, 24), accumulate=2,
                                                scale_by="size", strategy="separate",
                                                loss_weights=(0.5, 2.0, 1.0)),
    "sizes-size-sum-first": BASE.replace(micro_batch_sizes=SIZES, accumulate=4,
                                         scale_by="size", accumulate_mode="sum-first"),
    "sizes-noscale": BASE.replace(micro_batch_sizes=SIZES, accumulate=4, scale=False),
    "equal-size": BASE.replace(accumulate=4, scale_by="size"),
    "batch-norm": BASE.replace(batch_norm=True),
    "batch-norm-accumulate4-adam": BASE.replace(batch_norm=True, accumulate=4,
                                                optimizer="adam", lr=0.01),
    "batch-norm-deep-sizes": BASE.replace(batch_norm=True, trunk_depth=3,
                                          micro_batch_sizes=(24, 8), accumulate=2),
    "clip-full": BASE.replace(clip=0.5),
    "clip-full-micro": BASE.replace(clip=0.5, clip_at="micro-batch"),
    "clip-step": BASE.replace(clip=0.5, accumulate=4),
    "clip-micro": BASE.replace(clip=0.5, accumulate=4, clip_at="micro-batch"),
    "clip-micro-sum-first": BASE.replace(clip=0.5, accumulate=2, clip_at="micro-batch",
                                         accumulate_mode="sum-first"),
    "clip-micro-in-loop-sizes": BASE.replace(clip=0.25, micro_batch_sizes=SIZES,
                                             accumulate=4, clip_at="micro-batch",
                                             strategy="in-loop", scale_by="size"),
    "clip-rnn": BASE.replace(clip=0.5, model="rnn", accumulate=2),
    "all-at-once": BASE.replace(batch_norm=True, micro_batch_sizes=SIZES, accumulate=4,
                                scale_by="size", clip=1.0, clip_at="micro-batch",
                                zero_grad=False),
}


@pytest.fixture(scope="module")
def script_results(tmp_path_factory):
    return scripts_of(CASES, tmp_path_factory.mktemp("micro_scripts"))


@pytest.mark.parametrize("name", list(CASES))
def test_the_script_prints_the_engines_numbers(script_results, name):
    cfg = CASES[name]
    session, records, error = engine_run(cfg)
    assert error is None, (name, error)
    result = script_results[name]
    assert result["error"] is None, (name, result["error"])
    assert len(records) == cfg.steps
    assert_prints_the_records(name, result, session, records)


@pytest.mark.parametrize("name", list(CASES))
def test_the_code_panel_is_the_end_of_the_script_and_shows_the_option(name):
    cfg = CASES[name]
    script, loop = script_text(cfg), loop_code(cfg)
    assert script.endswith("\n" + loop) and script.count(loop) == 1
    assert max(len(line) for line in loop.splitlines()) <= 100
    assert ("batch_norm=True" in loop) == cfg.batch_norm
    assert ("clip_grad_norm_" in loop) == (cfg.clip is not None)
    assert (f"micro_batches(x, targets, {list(cfg.micro_batch_sizes)})" in loop) == \
        bool(cfg.micro_batch_sizes)
    assert ("len(x_mb) / BATCH_SIZE" in loop) == (cfg.scale_by == "size" and cfg.scale
                                                  and cfg.accumulate > 1)


def test_clipping_per_micro_batch_sits_inside_the_micro_batch_loop():
    def indent(cfg):
        (line,) = [t for t in loop_code(cfg).splitlines() if "clip_grad_norm_" in t]
        return len(line) - len(line.lstrip())
    assert indent(CASES["clip-micro"]) == 8      # in the loop over micro-batches
    assert indent(CASES["clip-step"]) == 4       # once, before optimizer.step()
