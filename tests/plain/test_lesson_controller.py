"""The lesson controller against fakes of what it drives (no window, no engine process):
the slide order, PageDown / PageUp / Home / leaving, one engine command per slide with
its settings, the window model after each, ghosts, and what leaving gives back."""
import dataclasses

import pytest

from gradviz.plain.config.config import Config
from gradviz.plain.controllers.lesson_controller import BASE_TITLE, slide_title
from gradviz.plain.lessons.lesson_references import DrawnReference, Reference
from gradviz.plain.lessons.lessons import Lesson, Slide, bundled_names, find_lesson
from gradviz.plain.records.engine_settings import EngineSettings
from gradviz.plain.records.history import History
from gradviz.plain.records.records import StepRecord
from gradviz.plain.window.window_model import WindowModel

from controller_fakes import FIRST, LESSON, SECOND, THIRD, A, placement, rig

MINE = A.replace(lr=0.01, strategy="in-loop")   # the user's settings before the lesson


def test_the_first_slide_writes_the_model_and_sends_the_engine_one_slide():
    r = rig(WindowModel(requested=MINE, pace_ms=5, show_saved=True, track_node_grads=False,
                        blank=True, text_too_large=True))
    r.lessons.open(LESSON)
    m = r.model
    assert (m.lesson, m.slide, m.panels, m.focus) == ("99-made-here", 0, ("loss", "graph"),
                                                      "cut")
    assert (m.requested, m.pace_ms, m.play_mode, m.stop_at) == (FIRST.config, 100, "steps", 30)
    assert not m.blank and not m.text_too_large
    # 10 steps a second: 100 ms; the saved tensors as they were; per-node gradients
    # measured, since the slide shows the graph (the window had them off)
    assert r.calls.named("show_slide") == [
        (FIRST.config, EngineSettings(100, False, 30, True, True), True)]
    assert r.calls.named("title") == [("gradviz — Made here — slide 1/3: First x.grad",)]
    assert r.calls.named("narration") == [("Made `here`", FIRST, 0, 3)]
    assert r.calls.named("stage") == [(("loss", "graph"), "side-by-side", 1.0)]
    assert r.calls.named("module_view") == [(True,)]
    assert r.calls.named("open_model") == []          # the built-in model: nothing to put aside
    assert r.lessons.slide is FIRST and r.lessons.staging


def test_the_engine_is_told_before_the_model_so_nothing_is_sent_twice():
    r = rig(WindowModel(requested=MINE, pace_ms=5))
    r.lessons.open(LESSON)
    (_, _, then), = [s for s in r.calls.seen if s[0] == "show_slide"]
    assert (then["requested"], then["pace_ms"], then["play_mode"], then["stop_at"]) == \
        (MINE, 5, "steps", None)
    # the stage shows the slide the model names
    (_, _, staged), = [s for s in r.calls.seen if s[0] == "stage"]
    assert (staged["lesson"], staged["slide"], staged["requested"]) == \
        ("99-made-here", 0, FIRST.config)


def test_a_slide_played_by_phases_that_runs_to_its_error_and_waits_for_play():
    r = rig()
    r.lessons.open(LESSON, 1)
    m = r.model
    assert (m.pace_ms, m.play_mode, m.stop_at, m.focus) == (1000, "phases", None, None)
    assert r.calls.named("show_slide") == [
        (SECOND.config, EngineSettings(1000, True, None, False, True), False)]
    assert r.calls.named("stage") == [(("graph", "memory"), "stacked", 1.0)]


def test_a_pace_between_the_run_bars_is_the_nearest_one():
    r = rig()
    r.lessons.open(LESSON, 2)                         # 3 steps a second: 333 ms
    assert r.model.pace_ms == 350 and r.model.focus == "head 1"
    assert r.calls.named("show_slide")[0][1].delay_ms == 350


def test_page_down_page_up_and_home_move_one_slide_within_the_lesson():
    r = rig()
    lessons = r.lessons
    lessons.open(LESSON)
    lessons.next()
    lessons.next()
    assert (lessons.index, r.model.slide) == (2, 2)
    lessons.next()                       # the last slide of a lesson file: the end, said
    assert (lessons.index, r.model.slide) == (2, 2)
    assert r.cards.shown is not None and r.cards.shown[0] == "End of the lesson"
    lessons.next()                                    # and again: still the end
    assert lessons.ended == "lesson" and r.calls.order().count("card") == 1
    lessons.previous()                                # the end taken away, the slide stays
    assert (lessons.index, r.model.slide, r.cards.shown) == (2, 2, None)
    lessons.previous()
    assert (lessons.index, r.model.slide) == (1, 1)
    lessons.first()
    assert (lessons.index, r.model.slide) == (0, 0)
    lessons.previous()                                # the first slide: stays
    assert lessons.index == 0
    # one slide message per slide shown, in the order shown
    assert [c for c, _, _ in r.calls.named("show_slide")] == [
        FIRST.config, SECOND.config, THIRD.config, SECOND.config, FIRST.config]
    assert [t for t, in r.calls.named("title")][-2:] == [
        "gradviz — Made here — slide 2/3: Second", "gradviz — Made here — slide 1/3: First x.grad"]


def test_open_keeps_the_slide_index_within_the_lesson():
    r = rig()
    r.lessons.open(LESSON, 7)
    assert r.lessons.index == 2 and r.model.slide == 2
    r.lessons.open(LESSON, -3)
    assert r.lessons.index == 0 and r.model.slide == 0


def test_nothing_moves_without_a_lesson():
    r = rig()
    for move in (r.lessons.next, r.lessons.previous, r.lessons.first, r.lessons.leave):
        move()
    assert r.calls.seen == [] and r.lessons.slide is None and not r.lessons.staging


def test_page_down_after_a_bundled_lessons_last_slide_opens_the_next_lesson():
    names = bundled_names()
    r = rig()
    first = find_lesson(names[0])
    r.lessons.open(first, len(first.slides) - 1)
    r.lessons.next()
    assert (r.model.lesson, r.model.slide) == (names[1], 0)
    last = find_lesson(names[-1])
    r.lessons.open(last, len(last.slides) - 1)
    r.lessons.next()                                  # the last lesson's last slide: stays
    assert (r.model.lesson, r.model.slide) == (names[-1], len(last.slides) - 1)


def test_a_ghost_is_the_run_the_slide_before_was_left_with():
    r = rig()
    lessons, chart = r.lessons, r.chart
    lessons.open(LESSON)
    assert r.calls.named("ghost") == [] and r.runs.given == []
    lessons.next()                                    # keep = "ghost": slide 1's run
    first_run = r.runs.given[-1]
    assert chart.ghost is first_run
    lessons.previous()                                # keep = "nothing": no ghost
    assert chart.ghost is None
    lessons.next()                                    # slide 1's newer run, not the old one
    assert chart.ghost is r.runs.given[-1] and chart.ghost is not first_run
    lessons.next()                                    # slide 2's run on slide 3
    assert chart.ghost is r.runs.given[-1]
    lessons.leave()
    assert chart.ghost is None and lessons.runs == {}


def test_no_ghost_is_cleared_twice_and_none_drawn_without_a_run_before():
    r = rig()
    r.lessons.open(LESSON, 1)                         # keep = "ghost", but no run before it
    assert r.chart.ghost is None and r.calls.named("ghost") == []
    r.lessons.leave()
    assert r.calls.named("ghost") == []


def test_compares_b_stays_on_the_charts_over_a_slides_ghost():
    r = rig()
    r.lessons.open(LESSON)
    r.model.pinned_b = A                              # Compare draws B on the same charts
    r.lessons.next()
    r.lessons.leave()
    assert r.calls.named("ghost") == []


def test_leaving_gives_the_window_back_as_it_was_before_the_lesson():
    r = rig(WindowModel(requested=MINE, confirmed=MINE, pace_ms=5, play_mode="phases"))
    r.lessons.open(LESSON)
    assert r.lessons.settings_before == (MINE, 5)
    r.lessons.next()
    r.lessons.next()
    assert r.lessons.settings_before == (MINE, 5)     # as before the lesson, not slide 1's
    r.graph.key_shown = False
    r.model.text_too_large = True
    assert r.model.focus == "head 1"                  # the third slide's
    r.lessons.leave()
    m = r.model
    # nothing of the lesson stays framed on the graph
    assert (m.lesson, m.slide, m.panels, m.stop_at, m.focus) == (None, None, (), None, None)
    assert not m.text_too_large and not r.lessons.staging
    # the settings, pace, phase by phase and the graph's view from before the lesson: on
    # a fresh model of the built-in model (the run before had no steps to train again),
    # sent as one message before the model says it (nothing is sent twice)
    assert (m.requested, m.pace_ms, m.play_mode) == (MINE, 5, "phases")
    assert not r.graph.module_view and r.calls.named("module_view")[-1] == (False,)
    (config, settings, steps), = r.calls.named("train_again")
    assert (config, settings.delay_ms, settings.animate_phases, settings.stop_at, steps) == \
        (MINE, 5, True, None, 0)
    assert r.calls.named("open_model") == [] and r.lessons.settings_before is None
    assert r.titles.title == BASE_TITLE and r.graph.key_shown
    assert r.calls.order()[-1] == "key_shown"
    assert r.calls.named("narration_clear") == [()]
    r.lessons.leave()                                 # once only
    assert r.calls.named("narration_clear") == [()]


def test_a_model_file_is_put_aside_on_the_first_slide_and_trained_again_after():
    r = rig(WindowModel(requested=MINE, pace_ms=5, model_path="/m/deep.py"))
    r.lessons.open(LESSON)
    assert r.calls.order()[:2] == ["open_model", "title"]   # before anything of the slide
    assert r.calls.named("open_model") == [(None, None)]
    assert r.lessons.model_before == "/m/deep.py"
    r.model.model_path = None                         # the engine says: the built-in model
    r.lessons.next()
    assert r.calls.named("open_model") == [(None, None)]    # only on the first slide
    r.lessons.leave()
    assert r.calls.named("open_model") == [(None, None), ("/m/deep.py", MINE)]
    # the engine had it before the model said it, so the model's change sends nothing
    (_, _, then), = [s for s in r.calls.seen if s[0] == "open_model" and s[1][0]]
    assert (then["requested"], then["pace_ms"]) == (SECOND.config, 1000)
    assert (r.model.requested, r.model.pace_ms) == (MINE, 5)
    assert r.lessons.model_before is None


def test_a_model_file_is_trained_again_even_if_the_engine_has_not_said_it_left_it():
    r = rig(WindowModel(requested=MINE, pace_ms=5, model_path="/m/deep.py"))
    r.lessons.open(LESSON)
    r.lessons.leave()                                 # model_path still names the file
    assert r.calls.named("open_model")[-1] == ("/m/deep.py", MINE)


def test_a_model_file_opened_during_the_lesson_stays():
    r = rig(WindowModel(requested=MINE, pace_ms=5, model_path="/m/deep.py"))
    r.lessons.open(LESSON)
    r.model.model_path = "/m/other.py"                # File → Open model, mid-lesson
    r.lessons.leave()
    assert r.calls.named("open_model") == [(None, None)]
    assert r.model.requested == FIRST.config and r.lessons.model_before is None


@pytest.mark.parametrize("fits, whole, kept, cramped", [
    (0.49, True, True, True), (0.8, True, True, False), (1.0, True, True, False),
    (1.5, False, True, True), (2.0, True, False, True), (2.0, True, True, False),
    (2.0, True, True, True)])
def test_text_too_large_after_ctrl_plus_where_the_slide_no_longer_fits(fits, whole, kept,
                                                                        cramped):
    """Cramped: the narration scrolling, the main panel smaller than at the normal text
    size (Ctrl+= never makes it smaller), or a secondary panel below half its least size
    (it gives way to the main one down to there)."""
    r = rig()
    r.lessons.open(LESSON)
    r.model.zoom = 1.15                               # Ctrl+=
    assert r.calls.named("set_zoom") == [(1.15,)]
    # (the last case: the narration set smaller than the text size to keep the main panel)
    smaller = (fits, whole, kept, cramped) == (2.0, True, True, True)
    r.stage.placement = dataclasses.replace(placement(fits, whole, kept=kept),
                                            narration_scale=0.9 if smaller else 1.0)
    r.lessons.on_arranged()
    assert len(r.later.waiting) == int(cramped)
    r.later.run()                                     # still cramped once events settle
    assert r.model.text_too_large is cramped


def test_text_too_large_only_while_still_cramped():
    r = rig()
    r.lessons.open(LESSON)
    r.model.zoom = 1.15
    r.stage.placement = placement(0.4)
    r.lessons.on_arranged()
    r.stage.placement = placement(1.0)                # fitted before the check ran
    r.later.run()
    assert not r.model.text_too_large


def test_a_new_text_size_takes_text_too_large_back_until_the_stage_says_again():
    r = rig()
    r.lessons.open(LESSON)
    r.model.text_too_large = True
    r.model.zoom = 1.15
    assert not r.model.text_too_large


@pytest.mark.parametrize("case", ["new slide", "normal size", "off screen", "left"])
def test_a_cramped_stage_keeps_the_text_size_when_it_was_not_just_asked(case):
    r = rig()
    r.lessons.open(LESSON)
    r.model.zoom = 1.15 if case != "normal size" else 1.0 / 1.15
    if case == "normal size":
        r.model.zoom = 1.0                            # Ctrl+0
    if case == "new slide":
        r.lessons.next()                              # the lecturer's size, kept
    if case == "off screen":
        r.model.drawn_off_screen = True
    r.stage.placement = placement(0.5, False)
    r.lessons.on_arranged()
    assert len(r.later.waiting) == int(case == "left")   # no check asked for at all
    if case == "left":
        r.lessons.leave()
    r.later.run()
    assert not r.model.text_too_large


def test_the_text_size_reaches_the_stage_only_while_a_lesson_is_on_it():
    r = rig()
    r.model.zoom = 1.15
    assert r.calls.named("set_zoom") == []
    r.lessons.open(LESSON)
    assert r.calls.named("stage")[-1][2] == pytest.approx(1.15)
    r.model.zoom = 1.15 ** 2
    assert r.calls.named("set_zoom") == [(pytest.approx(1.15 ** 2),)]


@pytest.mark.parametrize("zoom, width, index, shown", [
    (1.0, 900, 1, True), (1.0, 899, 1, False), (1.15, 1035, 1, True), (1.15, 1034, 1, False),
    (1.0, 1600, 0, False)])                           # slide 1: the graph beside the loss
def test_the_graphs_key_is_shown_where_the_graph_is_the_main_panel_and_wide(
        zoom, width, index, shown):
    r = rig(WindowModel(zoom=zoom))
    r.lessons.open(LESSON, index)
    r.graph.key_shown = not shown
    r.stage.placement = placement(graph_width=width)
    r.lessons.on_arranged()
    assert r.calls.named("key_shown") == [(shown,)]
    r.lessons.on_arranged()                           # told only when it changes
    assert r.calls.named("key_shown") == [(shown,)]


def test_the_stage_arranged_out_of_a_lesson_changes_nothing():
    r = rig(WindowModel(zoom=1.15))
    r.lessons.on_text_size()                          # as after Ctrl+=
    r.stage.placement = placement(0.5, False, graph_width=400)
    r.lessons.on_arranged()                           # free mode: the key stays
    assert r.calls.named("key_shown") == [] and r.later.waiting == []


def test_the_stage_is_arranged_again_only_while_a_lesson_is_on_it():
    r = rig()
    r.lessons.rearrange()
    assert r.calls.named("arrange") == []
    r.lessons.open(LESSON)
    r.lessons.rearrange()
    assert r.calls.named("arrange") == [()]


def test_open_named_opens_a_bundled_lesson_by_its_short_name():
    r = rig()
    r.lessons.open_named("backward-twice")
    assert r.model.lesson == "02-backward-twice"
    assert r.calls.named("show_slide")[0][0] == find_lesson("backward-twice").slides[0].config
    assert isinstance(r.model.requested, Config)


def test_a_slide_draws_its_reference_lines_from_the_run_it_names_and_leaving_clears_them():
    drawn = Slide(
        "Drawn", A, "n", panels=("junction", "global_norm"), reference=(
            Reference("junction.h1", "slide 1's push", slide=1, step=0),
            Reference("global_grad_norm", "the clip", number=1.5)))
    lesson = Lesson("98-drawn", "Drawn", (FIRST, drawn))
    run = History(["h0", "h1"], ["w"])
    run.append(StepRecord(step=0, losses={"h0": 1.0, "h1": 2.0}, total=3.0,
                          junction_grad_norms={"h0": 0.25, "h1": 0.75}))
    r = rig()
    r.lessons.views = dataclasses.replace(r.lessons.views, history=lambda: run)
    r.lessons.open(lesson)
    assert r.references.lines == {"junction": [], "global_norm": []}
    r.lessons.next()                                  # slide 1's run, as it was left
    assert r.references.lines == {
        "junction": [DrawnReference("junction.h1", 0.75, "slide 1's push")],
        "global_norm": [DrawnReference("global_grad_norm", 1.5, "the clip")]}
    r.lessons.leave()
    assert r.references.lines == {"junction": [], "global_norm": []}


def test_per_node_gradients_are_measured_only_on_slides_that_show_the_graph():
    # they cost hooks: a slide without the graph turns them off inside its one message
    r = rig(WindowModel(track_node_grads=True))
    r.lessons.open(LESSON, 2)                       # THIRD: the memory chart alone
    (_config, settings, _play), = r.calls.named("show_slide")
    assert settings.track_node_grads is False
    r.lessons.previous()                            # SECOND: the graph and memory
    assert r.calls.named("show_slide")[-1][1].track_node_grads is True


def test_a_slides_sweep_pace_is_the_engines_turn_per_box_until_the_lesson_ends():
    swept = dataclasses.replace(SECOND, sweep_pace=2.0)   # 2 boxes a second
    r = rig()
    r.lessons.open(Lesson("99-swept", "Swept", (swept, THIRD)))
    assert r.model.sweep_box_ms == 500
    assert r.calls.named("show_slide")[0][1].sweep_box_ms == 500
    r.lessons.next()                                  # a slide without one: the pace's share
    assert r.model.sweep_box_ms == 0 and r.calls.named("show_slide")[1][1].sweep_box_ms == 0
    r.lessons.previous()
    assert r.model.sweep_box_ms == 500
    r.lessons.leave()                                 # free mode: the pace's share again
    assert r.model.sweep_box_ms == 0 and r.model.engine_settings().sweep_box_ms == 0


def test_a_titles_code_is_plain_text_in_the_window_title():
    """The title bar shows no Markdown: lesson 01's third slide's code without its
    backticks (the narration sets it as code: tests/qt/test_narration_panel.py)."""
    lesson = find_lesson("add-or-separate")
    assert lesson.slides[2].title == "`total += L_k; total.backward()` inside the loop"
    assert slide_title(lesson, 2).endswith(
        "slide 3/3: total += L_k; total.backward() inside the loop")


def test_each_slide_says_what_it_is_about_before_its_panels_are_placed_and_leaving_clears_it():
    r = rig()
    r.lessons.open(find_lesson("leaky-graphs"), 1)
    assert r.model.named_metrics == ("graph_nodes", "saved_bytes")
    seen = []
    r.model.events.named_metrics.connect(lambda named: seen.append(
        (named, len(r.calls.named("stage")))))
    r.lessons.open(find_lesson("accumulation"), 1)
    # written before the stage placed the slide's panels (a chart splits its room for it)
    assert seen == [(("saved_bytes_peak",), 1)]
    r.lessons.open(LESSON)                      # a slide that promises nothing
    assert r.model.named_metrics == ()
    r.lessons.open(find_lesson("leaky-graphs"), 1)
    r.lessons.leave()
    assert r.model.named_metrics == ()
