"""The layout benchmark lays out the graphs it claims to: the lecture's, a ~1,000-node
trunk, and a ResNet-18 model file's module view, a fraction of its ops. Its times are
printed, never asserted: a busy machine is not a failure."""
from gradviz.bench.layout_speed import bench_layout


def test_bench_lays_out_lecture_thousand_node_and_resnet_graphs(capsys):
    results = bench_layout(repeats=1)
    sizes = {name: nodes for name, nodes, _, _ in results}
    assert sizes["lecture (default config)"] < 60
    assert sizes["lecture, saved tensors shown"] < 100
    assert sizes["deep trunk (trunk_depth=193)"] >= 950
    # a ResNet-18 file: its module view a fraction of its ops (blocks, folded weights)
    assert 40 <= sizes["ResNet-18, module view"] < sizes["ResNet-18, op view"] / 2
    assert all(seconds > 0 for _, _, _, seconds in results)
    assert "median" in capsys.readouterr().out


def test_only_picks_the_cases_by_name(capsys):
    results = bench_layout(repeats=1, only="lecture (default")
    assert [name for name, _, _, _ in results] == ["lecture (default config)"]
