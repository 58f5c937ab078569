"""InstanceNorm2d (no affine, as torch's default): each (sample, channel) plane normalized."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.norm = nn.InstanceNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


batch = 8
channels = 32
size = 32


def get_inputs():
    return [torch.randn(batch, channels, size, size) * 1.5 - 0.3]


def get_init_inputs():
    return [channels]


KZOO = {
    "op": "instance_norm",
    "shapes": [{'batch': 32, 'channels': 128, 'size': 64}, {'batch': 16, 'channels': 64, 'size': 33}],
    "cpu_shapes": [{'batch': 2, 'channels': 3, 'size': 5}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
