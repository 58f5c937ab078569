"""Max reduction over a dimension as KernelBench writes it: torch.max(x, dim)[0], the values of
(values, indices), written out as amax (verifier/decompose.py)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=1)[0]


batch = 16
dim1 = 256
dim2 = 256


def get_inputs():
    return [torch.randn(batch, dim1, dim2)]


def get_init_inputs():
    return []


KZOO = {
    "op": "max_dim",
    "shapes": [{'batch': 16, 'dim1': 256, 'dim2': 256}, {'batch': 32, 'dim1': 4097, 'dim2': 1000}],
    "cpu_shapes": [{'batch': 2, 'dim1': 7, 'dim2': 33}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
