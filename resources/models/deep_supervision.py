"""Deep supervision: a classifier with an output at three depths, every output trained
on the same target. The loop the article starts from:

    output = model(x)                     # three outputs, shallow to deep
    loss = 0
    for j in range(len(output)):
        loss += criterion(output[j], target)
    loss.backward()

Here the trunk returns the three depths (z0, z1, z2), head j reads z[j] (taps), and
every head's loss is cross-entropy against the one target. Synthetic data: each class
is a direction in input space. Plain PyTorch; run it with

    gradviz run --model deep_supervision
"""
import torch
import torch.nn.functional as F
from torch import nn

FEATURES, WIDTH, CLASSES = 16, 32, 4


class Trunk(nn.Module):
    """Three blocks; the output of each is returned (shallow, middle, deep)."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([
            nn.Sequential(nn.Linear(FEATURES, WIDTH), nn.Tanh()),
            nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.Tanh()),
            nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.Tanh()),
        ])

    def forward(self, x):
        outputs = []
        for block in self.blocks:
            x = block(x)
            outputs.append(x)
        return tuple(outputs)


def build(seed):
    torch.manual_seed(seed)
    trunk = Trunk()
    heads = [nn.Linear(WIDTH, CLASSES) for _ in range(3)]
    # the classes' directions: fixed by the seed, the same for every batch
    centres = torch.randn(CLASSES, FEATURES, generator=torch.Generator().manual_seed(seed))

    def batch(step, batch_size, generator):
        target = torch.randint(CLASSES, (batch_size,), generator=generator)
        x = centres[target] + 1.5 * torch.randn(batch_size, FEATURES, generator=generator)
        return x, [target, target, target]   # one target, shared by every depth

    return {
        "trunk": trunk,
        "heads": heads,
        "losses": [F.cross_entropy] * 3,
        "batch": batch,
        "taps": [0, 1, 2],
        "names": ["shallow", "middle", "deep"],
    }
