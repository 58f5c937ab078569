"""relu(2x + 1): a fused elementwise task for the verifier's honest controls."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x * 2.0 + 1.0)


n = 100003


def get_inputs():
    return [torch.randn(n)]


def get_init_inputs():
    return []


KZOO = {
    "shapes": [{"n": 16777259}, {"n": 100003}],
    "cpu_shapes": [{"n": 100003}, {"n": 17}],
    "dtypes": ["float32", "bfloat16"],
}
