"""A tiny transformer encoder with two heads on synthetic token sequences: one head
says, for the whole sequence, whether token 1 occurs more often than token 2 (a
sequence label read from the mean over positions); the other says, at every position,
whether the token repeats the one before it (a tag per token). Dropout is off, so the
same seed gives the same run. Plain PyTorch; run it with

    gradviz run --model tiny_transformer
"""
import torch
import torch.nn.functional as F
from torch import nn

VOCAB, LENGTH, WIDTH = 8, 12, 32


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.position = nn.Parameter(0.1 * torch.randn(LENGTH, WIDTH))
        layer = nn.TransformerEncoderLayer(WIDTH, nhead=4, dim_feedforward=64, dropout=0.0,
                                           batch_first=True)
        self.layers = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, tokens):
        return self.layers(self.embed(tokens) + self.position)       # (B, LENGTH, WIDTH)


class SequenceHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(WIDTH, 2)

    def forward(self, z):
        return self.out(z.mean(dim=1))                                 # (B, 2)


def tag_loss(output, target):
    """Cross-entropy over every position: (B, LENGTH, 2) against (B, LENGTH)."""
    return F.cross_entropy(output.reshape(-1, 2), target.reshape(-1))


def build(seed):
    torch.manual_seed(seed)

    def batch(step, batch_size, generator):
        tokens = torch.randint(VOCAB, (batch_size, LENGTH), generator=generator)
        more = ((tokens == 1).sum(1) > (tokens == 2).sum(1)).long()
        repeats = torch.zeros_like(tokens)
        repeats[:, 1:] = (tokens[:, 1:] == tokens[:, :-1]).long()
        return tokens, [more, repeats]

    return {
        "trunk": Encoder(),
        "heads": [SequenceHead(), nn.Linear(WIDTH, 2)],
        "losses": [F.cross_entropy, tag_loss],
        "batch": batch,
        "names": ["sequence", "per token"],
    }
