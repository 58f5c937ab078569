"""SELU as KernelBench writes it (torch.selu), written out as SCALE * elu(x, ALPHA)
(verifier/decompose.py): one pointwise kernel."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.selu(x)


batch = 16
dim = 16384


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return []


KZOO = {
    "op": "selu",
    "shapes": [{'batch': 16, 'dim': 16384}, {'batch': 4096, 'dim': 4097}],
    "cpu_shapes": [{'batch': 7, 'dim': 33}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
