"""A scan between pointwise ops: a running sum along the rows of sigmoid(x), scaled by the row
length. The scan has no template and stays a library call (torch.cumsum, as KernelBench's scan
tasks call it); the sigmoid before it and the scale after it are pointwise kernels. (KernelBench's
masked cumsum multiplies by a boolean mask first: a non-floating operand the templates do not
read, so that form is not covered yet.)"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(torch.sigmoid(x), dim=self.dim) * (1.0 / 4000)


batch = 128
length = 4000
dim = 1


def get_inputs():
    return [torch.randn(batch, length)]


def get_init_inputs():
    return [dim]


KZOO = {
    "op": "sigmoid_cumsum",
    "shapes": [{"batch": 128, "length": 4000}, {"batch": 4096, "length": 1023}],
    "cpu_shapes": [{"batch": 5, "length": 37}],
    "dtypes": ["float32", "bfloat16", "float16"],
}
