"""Frobenius normalization as KernelBench writes it: x / ||x||_F over every element. torch.norm
written out (verifier/decompose.py): a reduction of squares over the whole tensor, then the
division by its square root."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.norm(x, p='fro')


batch = 16
features = 64
height = 256
width = 256


def get_inputs():
    return [torch.randn(batch, features, height, width)]


def get_init_inputs():
    return []


KZOO = {
    "op": "frobenius_norm",
    "shapes": [{'batch': 16, 'features': 64, 'height': 256, 'width': 256},
               {'batch': 3, 'features': 17, 'height': 99, 'width': 101}],
    "cpu_shapes": [{'batch': 2, 'features': 3, 'height': 5, 'width': 7}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
