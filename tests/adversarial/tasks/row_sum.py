"""Sum over the last dimension (a reduction task for the verifier's honest controls)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.sum(x, dim=-1)


batch_size = 64
dim = 3001


def get_inputs():
    return [torch.randn(batch_size, dim)]


def get_init_inputs():
    return []


KZOO = {
    "shapes": [{"batch_size": 4096, "dim": 3001}, {"batch_size": 33, "dim": 65537}],
    "cpu_shapes": [{"batch_size": 5, "dim": 3001}, {"batch_size": 3, "dim": 9000}],
    "dtypes": ["float32", "bfloat16"],
}
