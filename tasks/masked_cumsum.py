"""KernelBench's masked cumsum: a running sum along the rows of x where a boolean mask holds,
torch.cumsum(x * mask, dim). The product is a pointwise kernel that reads the mask as 1.0 or 0.0
(as PyTorch promotes it); the scan stays a library call, run in float32 and rounded to the run's
dtype by a pointwise kernel of its own: PyTorch's own 16-bit cumsum on CUDA accumulates in 16
bits, outside the verifier's 16-bit bar at these row lengths (bench/results/probe-cumsum-fp16-h100.json;
agent/compose.py, WIDE_SCANS)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x * mask, dim=self.dim)


batch = 128
length = 4000
dim = 1


def get_inputs():
    return [torch.randn(batch, length), torch.randint(0, 2, (batch, length)).bool()]


def get_init_inputs():
    return [dim]


KZOO = {
    "op": "masked_cumsum",
    "shapes": [{"batch": 128, "length": 4000}, {"batch": 4096, "length": 1023}],
    "cpu_shapes": [{"batch": 5, "length": 37}],
    "dtypes": ["float32", "bfloat16", "float16"],
}
