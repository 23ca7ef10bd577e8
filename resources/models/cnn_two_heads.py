"""A small CNN (about 1 M parameters) with two heads on synthetic 32x32 images: each
image is a blurred blob somewhere on a noisy background. One head classifies which
quadrant the blob is in (cross-entropy); the other rebuilds the clean image from the
shared features (mean squared error): two tasks pulling one trunk. Plain PyTorch; run
it with

    gradviz run --model cnn_two_heads --batch-size 32
"""
import torch
import torch.nn.functional as F
from torch import nn

SIZE = 32


def _conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))


def images(batch_size, generator):
    """(noisy images, quadrant of each blob, clean images)."""
    centre = torch.rand(batch_size, 2, generator=generator) * (SIZE - 8) + 4
    width = torch.rand(batch_size, 1, 1, generator=generator) * 3 + 2
    axis = torch.arange(SIZE, dtype=torch.float32)
    dy = (axis.view(1, SIZE, 1) - centre[:, 0].view(-1, 1, 1)) ** 2
    dx = (axis.view(1, 1, SIZE) - centre[:, 1].view(-1, 1, 1)) ** 2
    clean = torch.exp(-(dx + dy) / (2 * width ** 2)).unsqueeze(1)      # (B, 1, 32, 32)
    noisy = clean + 0.2 * torch.randn(clean.shape, generator=generator)
    quadrant = (centre[:, 0] >= SIZE / 2).long() * 2 + (centre[:, 1] >= SIZE / 2).long()
    return noisy, quadrant, clean


def build(seed):
    torch.manual_seed(seed)
    trunk = nn.Sequential(_conv(1, 32), _conv(32, 64), _conv(64, 128),   # -> 128 x 4 x 4
                          nn.Conv2d(128, 256, 3, padding=1), nn.ReLU())  # -> 256 x 4 x 4
    classify = nn.Sequential(nn.Flatten(), nn.Linear(256 * 4 * 4, 128), nn.ReLU(),
                             nn.Linear(128, 4))
    rebuild = nn.Sequential(
        nn.ConvTranspose2d(256, 64, 4, stride=2, padding=1), nn.ReLU(),   # 8 x 8
        nn.ConvTranspose2d(64, 32, 4, stride=2, padding=1), nn.ReLU(),    # 16 x 16
        nn.ConvTranspose2d(32, 1, 4, stride=2, padding=1))                # 32 x 32

    def batch(step, batch_size, generator):
        noisy, quadrant, clean = images(batch_size, generator)
        return noisy, [quadrant, clean]

    return {
        "trunk": trunk,
        "heads": [classify, rebuild],
        "losses": [F.cross_entropy, F.mse_loss],
        "batch": batch,
        "names": ["quadrant", "image"],
    }
