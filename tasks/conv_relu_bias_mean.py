"""Conv2d, ReLU, a per-channel bias and a global average pool: a library convolution with a
pointwise-and-reduction tail that kernel-zoo fuses into one kernel behind the cuDNN call."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int, k: int):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, k)
        self.bias = nn.Parameter(torch.randn(c_out, 1, 1) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x)) + self.bias
        return y.mean(dim=(2, 3))


batch = 16
c_in = 3
c_out = 16
size = 32
k = 3


def get_inputs():
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs():
    return [c_in, c_out, k]


KZOO = {
    "op": "conv_relu_bias_mean",
    "shapes": [{'batch': 128, 'c_in': 64, 'c_out': 128, 'size': 64}, {'batch': 32, 'c_in': 3, 'c_out': 64, 'size': 127}],
    "cpu_shapes": [{'batch': 2, 'c_in': 3, 'c_out': 5, 'size': 9}, {'batch': 1, 'c_in': 2, 'c_out': 3, 'size': 12}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
