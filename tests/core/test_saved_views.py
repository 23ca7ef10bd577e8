"""The memory probe's two counts where a saved tensor is a view of a bigger one (a batch
sliced from a dataset), against plain PyTorch: saved_bytes counts the storages the
graph keeps alive (the whole dataset), saved_tensor_bytes the saved tensors' own
elements (what backward needs); a copied batch makes the two the same. The probe reads
grad_fn's saved attributes only: backward afterwards computes what it would have."""
from __future__ import annotations

import runpy
import textwrap

import torch
from torch import nn

from gradviz.core.model_file import ModelFile
from gradviz.core.session import Session
from gradviz.core.watch_graph import saved_memory
from gradviz.plain.config.config import Config

from core_reference import SavedTracker

ROWS, FEATURES, BATCH = 100_000, 10, 8


def _own(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()


def _forward(x: torch.Tensor, layer: nn.Linear) -> tuple[torch.Tensor, torch.Tensor]:
    out = torch.tanh(layer(x))
    return (out ** 2).mean(), out


def _measured(batch: torch.Tensor, layer: nn.Linear):
    """(the probe's (storage bytes, tensor bytes), a pack hook's on the same forward run
    again, the forward's output). Two forwards: under a pack hook, what a node saved is
    the hook's box, which the probe cannot read."""
    loss, out = _forward(batch, layer)
    held, tensors, _, _ = saved_memory([loss], list(layer.parameters()), [])
    tracker = SavedTracker(layer)
    with tracker.tracking():
        hooked, _ = _forward(batch, layer)
    return (held, tensors), (tracker.bytes_held(), tracker.tensor_bytes_held()), out


def test_a_sliced_batch_keeps_its_dataset_alive_but_backward_needs_its_rows():
    torch.manual_seed(0)
    data = torch.randn(ROWS, FEATURES)
    layer = nn.Linear(FEATURES, 4)
    batch = data[:BATCH]
    probe, hooked, out = _measured(batch, layer)
    assert probe == hooked
    # plain PyTorch: addmm saved the batch (a view of data's storage); tanh saved its
    # output, which pow saved again (the same tensor: counted once)
    assert probe[0] == data.untyped_storage().nbytes() + out.untyped_storage().nbytes()
    assert probe[0] == 4 * ROWS * FEATURES + 4 * BATCH * 4
    assert probe[1] == _own(batch) + _own(out) == 4 * BATCH * FEATURES + 4 * BATCH * 4


def test_a_copied_batch_counts_the_same_both_ways():
    torch.manual_seed(0)
    data = torch.randn(ROWS, FEATURES)
    layer = nn.Linear(FEATURES, 4)
    batch = data[:BATCH].clone()
    probe, hooked, out = _measured(batch, layer)
    assert probe == hooked
    assert probe[0] == probe[1] == _own(batch) + _own(out)
    assert batch.untyped_storage().nbytes() == _own(batch)


def test_overlapping_views_count_at_most_their_storage():
    """x and x.t() are two views of one storage, each all of it: backward needs its
    bytes once, not twice."""
    x = torch.randn(6, 6, requires_grad=True)
    y = torch.tanh(x)          # tanh saved y
    loss = (y @ y.t()).sum()   # mm saved y and y.t()
    probe = saved_memory([loss], [], [])
    tracker = SavedTracker(nn.Linear(1, 1))
    with tracker.tracking():
        again = torch.tanh(x)
        hooked = (again @ again.t()).sum()
    assert probe[:2] == (_own(y), _own(y)) == (tracker.bytes_held(), tracker.tensor_bytes_held())
    assert hooked.grad_fn is not None


def test_measuring_changes_no_gradient():
    torch.manual_seed(0)
    data = torch.randn(ROWS, FEATURES)
    layer = nn.Linear(FEATURES, 4)
    state = {k: v.clone() for k, v in layer.state_dict().items()}
    loss, _ = _forward(data[:BATCH], layer)
    saved_memory([loss], list(layer.parameters()), [])
    loss.backward()
    twin = nn.Linear(FEATURES, 4)
    twin.load_state_dict(state)
    plain, _ = _forward(data[:BATCH], twin)
    plain.backward()
    for a, b in zip(layer.parameters(), twin.parameters()):
        assert torch.equal(a.grad, b.grad)


# a model file whose batches are slices of one dataset tensor, as a loop over a tensor
# dataset on the device takes them; the regression head's target a slice too
SLICING = """
import torch
import torch.nn.functional as F
from torch import nn

ROWS = 100_000

def build(seed):
    torch.manual_seed(seed)
    data = torch.randn(ROWS, 4)
    def batch(step, batch_size, generator):
        start = step * batch_size % (ROWS - batch_size)
        x = data[start:start + batch_size]
        return x, [x[:, :2], x.sum(1).gt(0).long()]
    return {"trunk": nn.Linear(4, 8), "heads": [nn.Linear(8, 2), nn.Linear(8, 3)],
            "losses": [F.mse_loss, F.cross_entropy], "batch": batch,
            "names": ["value", "sign"]}
"""


def test_a_model_files_sliced_batches_count_the_dataset_kept_and_the_rows_needed(tmp_path):
    path = tmp_path / "slicing.py"
    path.write_text(textwrap.dedent(SLICING))
    cfg = Config(device="cpu", heads=2, batch_size=BATCH, sample_every=1)
    record = Session(cfg, ModelFile(path)).step()
    assert record is not None
    # plain PyTorch: the file's own model and step 0's batch, the forward under a pack hook
    built = runpy.run_path(str(path))["build"](cfg.seed)
    trunk, heads, losses = built["trunk"], built["heads"], built["losses"]
    x, targets = built["batch"](0, BATCH, torch.Generator())
    tracker = SavedTracker(nn.ModuleList([trunk, *heads]))
    with tracker.tracking():
        z = trunk(x)
        alive = [loss(head(z), t) for loss, head, t in zip(losses, heads, targets)]
    assert record.saved_bytes_peak == tracker.bytes_held()
    assert record.saved_tensor_bytes_peak == tracker.tensor_bytes_held()
    assert len(alive) == 2   # (the graph the tracker counted was alive until here)
    # the dataset's storage is kept alive whole; backward needs only the batch's rows and
    # the target's two columns of them
    dataset = x.untyped_storage().nbytes()
    assert dataset == 4 * 100_000 * 4
    assert record.saved_bytes_peak - record.saved_tensor_bytes_peak == \
        dataset - _own(x) - _own(targets[0])
    assert (record.saved_bytes, record.saved_tensor_bytes) == (0, 0)   # backward freed it
