"""Mean absolute error per row (no reduction over the batch): a fused abs-difference row mean."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.abs(a - b).mean(dim=-1)


batch = 128
dim = 4096


def get_inputs():
    return [torch.randn(batch, dim), torch.randn(batch, dim)]


def get_init_inputs():
    return []


KZOO = {
    "op": "l1_rowwise",
    "shapes": [{'batch': 8192, 'dim': 4096}, {'batch': 1000, 'dim': 4097}],
    "cpu_shapes": [{'batch': 7, 'dim': 33}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
