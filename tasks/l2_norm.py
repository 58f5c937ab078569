"""L2 normalization of each row as KernelBench writes it: x / ||x||_2 over dim 1 (no eps). The
planner writes torch.norm out (verifier/decompose.py): a row reduction of squares, then the
division."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.norm(x, p=2, dim=1, keepdim=True)


batch = 16
dim = 16384


def get_inputs():
    return [torch.randn(batch, dim)]


def get_init_inputs():
    return []


KZOO = {
    "op": "l2_norm",
    "shapes": [{'batch': 16, 'dim': 16384}, {'batch': 4096, 'dim': 4097}],
    "cpu_shapes": [{'batch': 7, 'dim': 33}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
