"""Conv2d, BatchNorm2d in eval mode (running statistics) and ReLU: the convolution stays a
library call; the normalization and activation become one broadcasting kernel."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c_out)
        with torch.no_grad():  # non-trivial statistics, or a kernel ignoring them would pass
            self.bn.running_mean.copy_(torch.randn(c_out) * 0.3)
            self.bn.running_var.copy_(torch.rand(c_out) + 0.5)
            self.bn.weight.copy_(torch.randn(c_out))
            self.bn.bias.copy_(torch.randn(c_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.bn(self.conv(x)))


batch = 8
c_in = 16
c_out = 32
size = 28


def get_inputs():
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs():
    return [c_in, c_out]


KZOO = {
    "op": "conv_bn_relu",
    "shapes": [{'batch': 64, 'c_in': 64, 'c_out': 128, 'size': 56}, {'batch': 16, 'c_in': 32, 'c_out': 96, 'size': 57}],
    "cpu_shapes": [{'batch': 2, 'c_in': 3, 'c_out': 5, 'size': 7}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
