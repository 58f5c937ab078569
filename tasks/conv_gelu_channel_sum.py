"""Conv2d, GELU and a sum over channels: a tail reduced over a strided (non-innermost) dim."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.conv(x)).sum(dim=1)


batch = 8
c_in = 8
c_out = 32
size = 30


def get_inputs():
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs():
    return [c_in, c_out]


KZOO = {
    "op": "conv_gelu_channel_sum",
    "shapes": [{'batch': 64, 'c_in': 64, 'c_out': 128, 'size': 64}],
    "cpu_shapes": [{'batch': 2, 'c_in': 3, 'c_out': 5, 'size': 8}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
