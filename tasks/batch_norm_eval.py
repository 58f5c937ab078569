"""BatchNorm2d in eval mode: a per-channel affine of the running statistics, one broadcasting
kernel."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels)
        with torch.no_grad():
            self.bn.running_mean.copy_(torch.randn(channels) * 0.3)
            self.bn.running_var.copy_(torch.rand(channels) + 0.5)
            self.bn.weight.copy_(torch.randn(channels))
            self.bn.bias.copy_(torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.bn(x)


batch = 8
channels = 32
size = 32


def get_inputs():
    return [torch.randn(batch, channels, size, size)]


def get_init_inputs():
    return [channels]


KZOO = {
    "op": "batch_norm_eval",
    "shapes": [{'batch': 64, 'channels': 128, 'size': 64}, {'batch': 16, 'channels': 96, 'size': 57}],
    "cpu_shapes": [{'batch': 2, 'channels': 3, 'size': 5}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
