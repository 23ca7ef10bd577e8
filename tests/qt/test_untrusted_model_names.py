"""A model file and a lesson from a stranger: the file names its heads and its trunk's
layers in markup (an image of a file on this machine, a link, bold), the lesson its title
and its slide. The window shows every name as written, in its charts' legends, titles,
labels, graph, settings and tooltips, and renders none of them: no image fetched, no link
made."""
from __future__ import annotations

import textwrap

from PySide6.QtCore import Qt

from gradviz.plain.config.config import Config

from shown_text import rendered_markup, shown_texts, write_png
from waits import WAIT_MS

# a module's name may hold no ".": the bold and the link name the trunk's layers
MODEL = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F
    from torch import nn


    def build(seed):
        torch.manual_seed(seed)
        trunk = nn.Sequential()
        trunk.add_module('<b>boldname</b>', nn.Linear(4, 8))
        trunk.add_module('<a href="x">linkname</a>', nn.Tanh())

        def batch(step, batch_size, generator):
            x = torch.randn(batch_size, 4, generator=generator)
            return x, [x.sum(1, keepdim=True), x[:, :1], x[:, 1:2]]

        return {"trunk": trunk, "heads": [nn.Linear(8, 1) for _ in range(3)],
                "losses": [F.mse_loss] * 3, "batch": batch, "names": NAMES}
    """)


def test_a_model_file_and_a_lesson_named_in_markup_show_as_written(
        qtbot, make_window, tmp_path):
    secret = tmp_path / "secret.png"
    write_png(secret)
    names = {"secret.png": f'<img src="{secret.as_uri()}">',
             "linkname": '<a href="x">linkname</a>', "boldname": "<b>boldname</b>",
             "mine.py": "<i>mine.py"}
    heads = [names["secret.png"], names["linkname"], names["boldname"]]
    model = tmp_path / "<i>mine.py"
    model.write_text(MODEL.replace("NAMES", repr(heads)))
    w = make_window(Config(device="cpu"), model_path=model)
    qtbot.waitUntil(lambda: w.model.model_name == "<i>mine.py", timeout=WAIT_MS)
    qtbot.mouseClick(w.run_bar.play, Qt.LeftButton)
    qtbot.waitUntil(lambda: len(w.history) >= 3, timeout=WAIT_MS)
    qtbot.mouseClick(w.run_bar.play, Qt.LeftButton)
    qtbot.waitUntil(lambda: not w.model.running and w.graph_view.graph is not None,
                    timeout=WAIT_MS)
    w.painter.paint_all()
    wrong = rendered_markup(shown_texts(w), names)
    assert wrong == [], "\n".join(wrong)
    legend = [label.item.toPlainText() for _, label in w.loss_plot.legend.items]
    assert legend[:3] == list(w.model.head_names)   # as the engine named them (long: cut)
    assert legend[0].startswith("<img src=") and legend[1:3] == heads[1:]
    assert any(name.startswith("trunk.<b>boldname</b>") for name in w.model.param_names)

    lesson = tmp_path / "<i>lesson.toml"
    lesson.write_text(textwrap.dedent(f"""\
        title = {names["secret.png"]!r}
        config = {{ heads = 2, steps = 3 }}

        [[slides]]
        title = "<b>slidebold</b> and <a href='y'>slidelink</a>"
        narration = "**We do:** nothing."
        panels = ["loss"]
        stop = 2
        """))
    assert w.lessons.open_file(str(lesson))
    qtbot.waitUntil(lambda: "slidebold" in w.lessons.narration.heading.text(), timeout=WAIT_MS)
    names.update(slidebold="<b>slidebold</b>", slidelink="<a href='y'>slidelink</a>")
    wrong = rendered_markup(shown_texts(w), names)
    assert wrong == [], "\n".join(wrong)
