"""`gradviz bench --slides`: PageDown through the bundled lessons in the app's window (a
process of its own, gradviz.bench.qt.slide_speed), and how soon each slide was drawn, and
moving."""
from __future__ import annotations

from ..exit_codes import EXIT_OK
from .window_phase import phase_process, phase_result

DRAWN_GOAL_MS = 150     # a slide drawn within this of PageDown (the lecturer's clicker)
SLIDES_TIMEOUT_S = 3600  # every bundled slide played a while, on a slow machine at worst


def _name(slide: dict) -> str:
    return f"{slide['lesson']} slide {slide['slide']}"


def slide_lines(result: dict, every: bool = False) -> list[str]:
    """The walk's summary (and each slide's line, with every)."""
    slides = result["slides"]
    if not slides:
        return ["slides: no slide was timed"]
    drawn = sorted(s["drawn_ms"] for s in slides)
    moving = sorted(slides, key=lambda s: s["moving_s"])
    ahead = max(slides, key=lambda s: s.get("ahead_s", 0.0))
    late = [s for s in slides if s["drawn_ms"] > DRAWN_GOAL_MS]
    covered = sum(bool(s["covered"]) for s in slides)
    lines = [f"{'  ' + _name(s):<40}drawn {s['drawn_ms']:5.0f} ms, moving "
             f"{s['moving_s']:5.2f} s, next prepared {s.get('ahead_s', 0.0):5.2f} s"
             for s in slides] if every else []
    lines += [
        f"slides: {len(slides)} PageDowns; drawn (the heading repainted) in a median "
        f"{drawn[len(drawn) // 2]:.0f} ms, at most {drawn[-1]:.0f} ms "
        f"({len(late)} over {DRAWN_GOAL_MS} ms); moving (its first step drawn, or its "
        f"first phase shown) in a median {moving[len(moving) // 2]['moving_s']:.2f} s, at "
        f"most {moving[-1]['moving_s']:.2f} s; that first repaint showed the preparing "
        f"line or the slide whole, not the slide before's panels, on {covered} of "
        f"{len(slides)}",
        f"slowest slide: {_name(moving[-1])}, moving {moving[-1]['moving_s']:.2f} s after "
        f"PageDown; what was started ahead for a next slide (an engine on another model, "
        f"DDP ranks) was ready at most {ahead.get('ahead_s', 0.0):.2f} s after the slide "
        f"before moved ({_name(ahead)} played that long)"]
    if late:
        lines.append("over the goal: " + ", ".join(
            f"{_name(s)} {s['drawn_ms']:.0f} ms" for s in late))
    return lines


def print_slides(size: tuple[int, int], count: int | None, quiet: bool, every: bool) -> int:
    if not quiet:
        print(f"gradviz bench --slides: PageDown through the bundled lessons in the app's "
              f"window ({size[0]}x{size[1]}, offscreen, its own process), each slide "
              f"played a second once moving, and until what is started ahead for the next "
              f"slide is ready; drawn: from the key to the end of the first repaint of the "
              f"slide's heading; moving: to the end of the repaint of its first state",
              flush=True)
    args = ["--size", f"{size[0]}x{size[1]}"] + ([] if count is None else ["--count", str(count)])
    result = phase_result(phase_process(args, SLIDES_TIMEOUT_S, "gradviz.bench.qt.slide_speed"))
    for line in slide_lines(result, every):
        print(line)
    return EXIT_OK
