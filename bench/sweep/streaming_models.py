"""Two small streaming models written in torch for the sweep (issue 27): the kind of model that is
mostly per-node overhead, not arithmetic.

- Vad: a voice-activity detector over 512-sample chunks at 16 or 8 kHz. A scripted `If` on the
  sample-rate input picks the front end (ONNX If), an LSTM carries its state in and out.
- Kws: a keyword spotter over 40-band feature frames: two 1-D convolutions, a GRU with its
  state in and out, and a classifier over 12 keywords.
"""
import torch
from torch import nn


@torch.jit.script
def _front_end(x: torch.Tensor, sr: torch.Tensor, w16: torch.Tensor, w8: torch.Tensor) -> torch.Tensor:
    # x [B, 512] -> [B, 64, 16]: 16 frames of 32 samples, projected by the front end of the rate.
    frames = x.reshape(x.shape[0], 16, 32)
    if bool(sr == 16000):
        y = torch.matmul(frames, w16)
    else:
        y = torch.matmul(frames, w8)
    return y.transpose(1, 2)


class Vad(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.w16 = nn.Parameter(torch.randn(32, 64) * 0.2)
        self.w8 = nn.Parameter(torch.randn(32, 64) * 0.2)
        self.conv = nn.Conv1d(64, 64, 3, padding=1)
        self.lstm = nn.LSTM(64, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x, sr, h, c):
        f = torch.relu(self.conv(_front_end(x, sr, self.w16, self.w8)))  # [B, 64, 16]
        y, (h2, c2) = self.lstm(f.transpose(1, 2), (h, c))
        p = torch.sigmoid(self.out(y[:, -1]))
        return p, h2, c2


class Kws(nn.Module):
    def __init__(self, bands=40, hidden=64, keywords=12):
        super().__init__()
        self.conv1 = nn.Conv1d(bands, 64, 5, padding=2)
        self.conv2 = nn.Conv1d(64, 64, 3, padding=1, groups=4)
        self.gru = nn.GRU(64, hidden, batch_first=True)
        self.out = nn.Linear(hidden, keywords)

    def forward(self, x, h):
        # x [B, T, bands]
        f = torch.relu(self.conv1(x.transpose(1, 2)))
        f = torch.relu(self.conv2(f))
        y, h2 = self.gru(f.transpose(1, 2), h)
        return self.out(y), h2
