"""`gradviz bench --slides`: PageDown through the bundled lessons in the app's window, in
a process of its own as the command runs it, briefly here (what is measured, not how
fast: speed claims live in docs/benchmarks.md); and its lines, from numbers given."""
from gradviz.bench.slide_bench import slide_lines
from gradviz.bench.window_phase import phase_process, phase_result


def test_each_pagedown_is_timed_to_the_repaint_of_the_new_slide_and_to_the_slide_moving():
    out = phase_process(["--size", "1024x768", "--count", "2"], 600, "gradviz.bench.qt.slide_speed")
    assert out.returncode == 0, out.stderr[-2000:]
    slides = phase_result(out)["slides"]
    # PageDown twice from the first slide of the first lesson
    assert [(s["lesson"], s["slide"]) for s in slides] == [
        ("01-add-or-separate", 2), ("01-add-or-separate", 3)]
    for s in slides:
        assert 0 < s["drawn_ms"] <= 1000 * s["moving_s"]   # drawn, then moving
        assert s["ahead_s"] >= 0   # what was started for the next slide, waited for
        assert s["covered"] is True   # the first repaint: the preparing line, not stale panels


def test_the_lines_say_the_median_the_most_the_slowest_and_which_were_over_the_goal():
    result = {"slides": [
        {"lesson": "a", "slide": 1, "drawn_ms": 40.0, "covered": True, "moving_s": 0.5,
         "ahead_s": 1.0},
        {"lesson": "a", "slide": 2, "drawn_ms": 200.0, "covered": False, "moving_s": 2.0,
         "ahead_s": 7.5},
        {"lesson": "b", "slide": 1, "drawn_ms": 90.0, "covered": True, "moving_s": 0.25,
         "ahead_s": 1.0}]}
    lines = slide_lines(result)
    assert lines == [
        "slides: 3 PageDowns; drawn (the heading repainted) in a median 90 ms, at most "
        "200 ms (1 over 150 ms); moving (its first step drawn, or its first phase shown) "
        "in a median 0.50 s, at most 2.00 s; that first repaint showed the preparing line "
        "or the slide whole, not the slide before's panels, on 2 of 3",
        "slowest slide: a slide 2, moving 2.00 s after PageDown; what was started ahead "
        "for a next slide (an engine on another model, DDP ranks) was ready at most "
        "7.50 s after the slide before moved (a slide 2 played that long)",
        "over the goal: a slide 2 200 ms"]
    assert len(slide_lines(result, every=True)) == 6
    assert slide_lines(result, every=True)[0] == (
        "  a slide 1                             drawn    40 ms, moving  0.50 s, next "
        "prepared  1.00 s")
    assert slide_lines({"slides": []}) == ["slides: no slide was timed"]


def test_a_window_process_that_gives_no_numbers_is_one_line_not_a_traceback(
        monkeypatch, capsys):
    import subprocess

    import pytest

    from gradviz.app import main
    from gradviz.bench import slide_bench

    def no_result(args, timeout_s, module):
        return subprocess.CompletedProcess(args, 1, "", "Traceback (most recent call last):\n"
                                           "  ...\nImportError: libEGL.so.1: not found\n")
    monkeypatch.setattr(slide_bench, "phase_process", no_result)
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "--slides", "-q"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err == ("gradviz: bench: the window phase gave no result (exit 1): "
                   "ImportError: libEGL.so.1: not found\n")
