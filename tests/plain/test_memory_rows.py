"""How the memory chart's two plots share its height: the rule, from what a slide names
(its promises and figures), in milliseconds and without Qt."""
from gradviz.plain.charts.memory_rows import nodes_share
from gradviz.plain.config.config import Config
from gradviz.plain.lessons.lesson_figures import Figure
from gradviz.plain.lessons.lessons import Slide, find_lesson


def test_the_node_count_gets_at_least_half_where_a_slide_names_it():
    assert nodes_share(["graph_nodes"]) > 0.5                 # the point alone: the larger
    assert nodes_share(["saved_bytes", "graph_nodes"]) == 0.5  # both: half each
    assert nodes_share(["graph_nodes", "saved_bytes_peak"]) == 0.5
    assert nodes_share(["graph_nodes", "total"]) > 0.5        # another chart's metric


def test_a_slide_about_the_bytes_or_naming_neither_keeps_the_charts_own_split():
    for named in ([], ["saved_bytes"], ["saved_bytes_peak"], ["total", "junction.head0"]):
        assert nodes_share(named) is None, named


def test_a_slide_names_what_its_promises_and_figures_measure_each_once():
    slide = Slide("s", Config(), "n", expect=(
        {"no_error": True}, {"grows": "graph_nodes"}, {"absent": "z_grad_norm"},
        {"ratio": {"of": "saved_bytes", "slide": 1, "is": 2.0}},
        {"about": {"metric": "saved_bytes_peak", "slide": 1, "times": 4.0}},
        {"equals": {"metric": "total", "value": 1.0}}, {"flat": "graph_nodes"}),
        figures=(Figure("global_grad_norm", "{} norm"), Figure("graph_nodes", "{} nodes")))
    # (absent: nothing of it is drawn, so no chart gives it room)
    assert slide.named_metrics == ("graph_nodes", "saved_bytes", "saved_bytes_peak",
                                   "total", "global_grad_norm")


def test_the_bundled_memory_slides():
    leak = find_lesson("leaky-graphs").slides
    # slide 2: kept graphs, their node count climbing while the saved bytes stay flat
    assert leak[1].named_metrics == ("graph_nodes", "saved_bytes")
    assert [nodes_share(s.named_metrics) for s in leak] == [0.5, 0.5, 0.5]
    accumulation = find_lesson("accumulation").slides     # the peak bytes, k passes
    assert accumulation[1].named_metrics == ("saved_bytes_peak",)
    assert all(nodes_share(s.named_metrics) is None for s in accumulation)
