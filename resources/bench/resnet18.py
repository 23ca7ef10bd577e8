"""A ResNet-18-shaped network with two heads on synthetic 32x32 colour images: the size
of graph a practitioner brings (about 11 M parameters, 8 residual blocks, some 60 module
calls, a few hundred autograd nodes). One head says which of 10 colour patterns made the
image (cross-entropy), the other how bright it is (mean squared error). Plain PyTorch,
written out here rather than taken from torchvision so that nothing is downloaded or
needed. It times the graph's layout (`python -m gradviz.render.layout`); it trains too,
slowly on a CPU:

    gradviz --model resources/bench/resnet18.py --batch-size 8
"""
import torch
import torch.nn.functional as F
from torch import nn

CLASSES, SIZE = 10, 32


class BasicBlock(nn.Module):
    """Two 3x3 convolutions and a shortcut; a 1x1 convolution on the shortcut where the
    block halves the image or widens the channels. One ReLU module, called twice, as
    ResNets are usually written."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                            nn.BatchNorm2d(cout))

    def forward(self, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + shortcut)


class Trunk(nn.Module):
    """ResNet-18 up to its pooled features (512 per image): the stem, four stages of two
    blocks (64, 128, 256, 512 channels), global average pooling."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, 2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, padding=1)
        widths = [64, 128, 256, 512]
        for i, width in enumerate(widths):
            cin = widths[max(i - 1, 0)]
            stage = nn.Sequential(BasicBlock(cin, width, 1 if i == 0 else 2),
                                  BasicBlock(width, width, 1))
            self.add_module(f"layer{i + 1}", stage)
        self.avgpool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return torch.flatten(self.avgpool(x), 1)


def build(seed):
    torch.manual_seed(seed)
    patterns = torch.randn(CLASSES, 3, SIZE, SIZE,
                           generator=torch.Generator().manual_seed(seed))

    def batch(step, batch_size, generator):
        kind = torch.randint(CLASSES, (batch_size,), generator=generator)
        light = torch.rand(batch_size, 1, generator=generator)
        noise = torch.randn(batch_size, 3, SIZE, SIZE, generator=generator)
        images = light.view(-1, 1, 1, 1) * patterns[kind] + 0.3 * noise
        return images, [kind, light]

    return {
        "trunk": Trunk(),
        "heads": [nn.Linear(512, CLASSES), nn.Linear(512, 1)],
        "losses": [F.cross_entropy, F.mse_loss],
        "batch": batch,
        "names": ["pattern", "brightness"],
    }
