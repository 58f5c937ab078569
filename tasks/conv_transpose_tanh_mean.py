"""ConvTranspose2d, a bias, tanh and a mean over the spatial dims (keepdim)."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(c_in, c_out, 3, stride=2)
        self.bias = nn.Parameter(torch.randn(c_out, 1, 1) * 0.2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.deconv(x) - self.bias).mean(dim=(2, 3), keepdim=True)


batch = 8
c_in = 16
c_out = 16
size = 16


def get_inputs():
    return [torch.randn(batch, c_in, size, size)]


def get_init_inputs():
    return [c_in, c_out]


KZOO = {
    "op": "conv_transpose_tanh_mean",
    "shapes": [{'batch': 64, 'c_in': 64, 'c_out': 64, 'size': 32}],
    "cpu_shapes": [{'batch': 2, 'c_in': 3, 'c_out': 4, 'size': 5}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
