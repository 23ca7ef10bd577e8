"""The error slides' explanations the stage's tests lay out (tests/qt/error_slide_events.json)
are what each slide's run raises and says, word for word: a lesson or an explanation
changed, the recording is made again, and the stage's tests measure the new text."""
import json
from pathlib import Path

import pytest
import torch

from gradviz.core.lesson_check import run_slide
from gradviz.plain.lessons.lessons import find_lesson

RECORDED = json.loads((Path(__file__).parents[1] / "qt" / "error_slide_events.json")
                      .read_text(encoding="utf-8"))


def test_every_error_slide_is_recorded():
    from gradviz.plain.lessons.lessons import bundled_names
    slides = {(name, i + 1) for name in bundled_names()
              for i, slide in enumerate(find_lesson(name).slides) if "events" in slide.panels}
    assert {(r["lesson"], r["slide"]) for r in RECORDED} == slides


@pytest.mark.parametrize("recorded", RECORDED, ids=lambda r: f"{r['lesson'][:2]}/{r['slide']}")
def test_the_recorded_error_is_the_slides_own(recorded):
    slide = find_lesson(recorded["lesson"]).slides[recorded["slide"] - 1]
    if slide.config.misplace_head is not None and torch.cuda.is_available():
        pytest.skip("recorded on a CPU: the misplaced head went to the meta device")
    run = run_slide(slide)
    assert run.error is not None and run.error.to_dict() == recorded["event"]
