"""A row sum written with torch.nansum: no template family matches it (the planner covers
torch.sum), so with --llm the model alone writes its kernel. Inputs carry no NaN, so a plain row
sum is the right answer."""
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.nansum(x, dim=-1)


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
