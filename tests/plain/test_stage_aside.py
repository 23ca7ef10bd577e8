"""Compare's verdict on a lesson slide (stage_aside.place_with_aside), without a window:
the slide's main panel keeps the room it has without the verdict; a secondary panel gives
way (cut, or left out where it would fall below its least size); a slide of one panel
has it under the narration."""
import pytest

from gradviz.plain.stage.stage_aside import place_with_aside
from gradviz.plain.stage.stage_layout import GAP, least_size, place


def lines(chars: int, px_per_char: float = 9.0, line_px: int = 26):
    def height(width: int) -> int:
        per_line = max(1, int((width - 20) / px_per_char))
        return line_px * -(-chars // per_line)
    return height


def overlaps(a, b) -> bool:
    return a.x < b.right and b.x < a.right and a.y < b.bottom and b.y < a.bottom


def test_without_a_verdict_it_is_the_placement_itself():
    assert place_with_aside(1024, 658, ["junction", "code"], narration_height=lines(300)) \
        == place(1024, 658, ["junction", "code"], narration_height=lines(300))


@pytest.mark.parametrize("room", [(1024, 658), (1280, 610), (1600, 900)])
def test_the_verdict_goes_on_a_secondary_panel_and_the_main_one_keeps_its_room(room):
    names, narration = ["junction", "code"], lines(300)
    alone = place(*room, names, narration_height=narration)
    p = place_with_aside(*room, names, narration_height=narration,
                         aside_height=lines(120))
    assert p.panels["junction"] == alone.panels["junction"]
    assert p.narration == alone.narration
    code = alone.panels["code"]
    assert (p.aside.x, p.aside.y, p.aside.w) == (code.x, code.y, code.w)
    assert p.aside.h == lines(120)(code.w)
    if "code" in p.panels:   # cut below the verdict, keeping its least height
        assert p.panels["code"].y == p.aside.bottom + GAP
        assert p.panels["code"].bottom == code.bottom
        assert p.panels["code"].h >= least_size("code", 1.0, p.font_scale["code"])[1]
    else:                    # left out: below the verdict it would be unread
        assert code.h - lines(120)(code.w) - GAP < least_size("code", 1.0)[1]
    assert not any(overlaps(p.aside, r) for r in p.panels.values())


def test_a_tall_secondary_panel_is_cut_and_a_short_one_left_out():
    names, narration = ["junction", "code"], lines(200)
    code = place(1600, 900, names, narration_height=narration).panels["code"]
    cut = place_with_aside(1600, 900, names, narration_height=narration,
                           aside_height=lambda w: 60)
    assert cut.panels["code"] == type(code)(code.x, code.y + 60 + GAP, code.w,
                                            code.h - 60 - GAP)
    left_out = place_with_aside(1600, 900, names, narration_height=narration,
                                aside_height=lambda w: code.h - 50)
    assert "code" not in left_out.panels and "code" not in left_out.font_scale
    assert left_out.left_out == ("code",) and cut.left_out == ()
    assert left_out.aside == type(code)(code.x, code.y, code.w, code.h - 50)


def test_one_panel_has_the_verdict_under_the_narration():
    p = place_with_aside(1024, 658, ["junction"], narration_height=lines(300),
                         aside_height=lines(120))
    assert p.aside.x == p.narration.x and p.aside.w == p.narration.w
    assert p.aside.y == p.narration.bottom + GAP and p.aside.h == lines(120)(p.aside.w)
    assert p.narration.h >= lines(300)(p.narration.w)   # the narration still whole
    assert not overlaps(p.aside, p.panels["junction"])
