"""What gradviz.show and `gradviz report` write of a step's cosines: each pair of losses
once (i before j, in the losses' order), a cosine not measured as "none"."""
from __future__ import annotations

import math

from gradviz.plain.records.records import StepRecord
from gradviz.plain.runs.run_svg import Curve, line_chart
from gradviz.plain.runs.run_view import cosine_words


def test_each_pair_once_in_order_and_none_where_not_measured():
    record = StepRecord(step=6, losses={"a": 1.0, "b": 2.0, "c": 3.0}, total=6.0,
                        cosine=[[1.0, 0.25, None], [0.25, 1.0, -0.5], [None, -0.5, 1.0]])
    assert cosine_words(record) == "a~b 0.25, a~c none, b~c -0.5"
    record.cosine = [[1.0, math.nan], [math.nan, 1.0]]   # a smaller matrix than the losses
    assert cosine_words(record) == "a~b none, a~c none, b~c none"


def test_a_chart_breaks_its_line_at_a_gap_and_escapes_its_labels():
    svg = line_chart("push <x>", [Curve("a&b", [0, 1, 2, 3, 4], [1.0, 2.0, None, 3.0, 4.0])])
    assert svg.count("<polyline") == 2   # 0-1 and 3-4, nothing drawn across the gap
    assert "push &lt;x&gt;" in svg and "a&amp;b 4" in svg and "<x>" not in svg
