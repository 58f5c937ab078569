"""GroupNorm with an affine weight and bias: planned as a row LayerNorm over (N, groups, -1)
and a per-channel affine kernel. The group count is the Model's configuration, which a
composed kernel is specialized to, so it stays 8 at every shape."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, groups: int, channels: int):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(channels))
            self.norm.bias.copy_(0.5 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


batch = 8
groups = 8
channels = 64
size = 16


def get_inputs():
    return [torch.randn(batch, channels, size, size) * 2.0 + 0.5]


def get_init_inputs():
    return [groups, channels]


KZOO = {
    "op": "group_norm",
    "shapes": [{'batch': 32, 'channels': 256, 'size': 64}, {'batch': 16, 'channels': 64, 'size': 63}],
    "cpu_shapes": [{'batch': 2, 'channels': 16, 'size': 5}, {'batch': 1, 'channels': 8, 'size': 3}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
