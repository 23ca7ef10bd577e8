"""`gradviz bench --slides`: PageDown through the bundled lessons in the app's window (a
process of its own, gradviz.qt.slide_speed), and how soon each slide was drawn."""
from __future__ import annotations

from ..exit_codes import EXIT_OK
from .window_phase import phase_process, phase_result

DRAWN_GOAL_MS = 150     # a slide drawn within this of PageDown (the lecturer's clicker)
SLIDES_TIMEOUT_S = 3600  # every bundled slide played a while, on a slow machine at worst


def slide_lines(result: dict, every: bool = False) -> list[str]:
    """The walk's summary (and each slide's line, with every)."""
    slides = result["slides"]
    if not slides:
        return ["slides: no slide was timed"]
    drawn = sorted(s["drawn_ms"] for s in slides)
    whole = sorted(s["whole_s"] for s in slides)
    late = [s for s in slides if s["drawn_ms"] > DRAWN_GOAL_MS]
    covered = sum(bool(s["covered"]) for s in slides)
    lines = [f"{'  ' + s['lesson'] + ' slide ' + str(s['slide']):<40}drawn "
             f"{s['drawn_ms']:5.0f} ms, whole {s['whole_s']:5.2f} s" for s in slides] \
        if every else []
    lines += [
        f"slides: {len(slides)} PageDowns; drawn (the heading repainted) in a median "
        f"{drawn[len(drawn) // 2]:.0f} ms, at most {drawn[-1]:.0f} ms "
        f"({len(late)} over {DRAWN_GOAL_MS} ms); whole (the first state in) in a median "
        f"{whole[len(whole) // 2]:.2f} s, at most {whole[-1]:.2f} s; that first repaint "
        f"showed the preparing line or the slide whole, not the slide before's panels, on "
        f"{covered} of {len(slides)}"]
    if late:
        lines.append("over the goal: " + ", ".join(
            f"{s['lesson']} slide {s['slide']} {s['drawn_ms']:.0f} ms" for s in late))
    return lines


def print_slides(size: tuple[int, int], count: int | None, quiet: bool, every: bool) -> int:
    if not quiet:
        print(f"gradviz bench --slides: PageDown through the bundled lessons in the app's "
              f"window ({size[0]}x{size[1]}, offscreen, its own process), each slide "
              f"played a second once whole; drawn: from the key to the end of the first "
              f"repaint of the slide's heading", flush=True)
    args = ["--size", f"{size[0]}x{size[1]}"] + ([] if count is None else ["--count", str(count)])
    result = phase_result(phase_process(args, SLIDES_TIMEOUT_S, "gradviz.qt.slide_speed"))
    for line in slide_lines(result, every):
        print(line)
    return EXIT_OK
