"""Batched matmul, torch.bmm over (batch, M, K) x (batch, K, N): attention-score-like products.
Default tolerances (see tasks/matmul.py)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


batch = 16
M = 2048
N = 2048
K = 1024


def get_inputs():
    return [torch.randn(batch, M, K), torch.randn(batch, K, N)]


def get_init_inputs():
    return []


KZOO = {
    "op": "matmul",
    "shapes": [
        {"batch": 16, "M": 2048, "N": 2048, "K": 1024},
        {"batch": 64, "M": 512, "N": 512, "K": 128},
        {"batch": 5, "M": 1000, "N": 999, "K": 257},
    ],
    "cpu_shapes": [
        {"batch": 3, "M": 33, "N": 47, "K": 65},
    ],
    "dtypes": ["bfloat16", "float16", "float32"],
    "bytes": lambda batch, M, N, K, itemsize: batch * (M * K + K * N + M * N) * itemsize,
    "flops": lambda batch, M, N, K: 2 * batch * M * N * K,
}
