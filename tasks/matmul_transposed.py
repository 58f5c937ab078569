"""C = A^T @ B with A given as K x M (a weight-gradient-like layout): the kernel reads A through
its strides, column-major, with no copy. Default tolerances (see tasks/matmul.py)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.t() @ b


M = 4096
N = 4096
K = 4096


def get_inputs():
    return [torch.randn(K, M), torch.randn(K, N)]


def get_init_inputs():
    return []


KZOO = {
    "op": "matmul_transposed",
    "shapes": [
        {"M": 4096, "N": 4096, "K": 4096},
        {"M": 4095, "N": 4097, "K": 1000},
    ],
    "cpu_shapes": [
        {"M": 33, "N": 47, "K": 65},
    ],
    "dtypes": ["bfloat16", "float16", "float32"],
    "bytes": lambda M, N, K, itemsize: (M * K + K * N + M * N) * itemsize,
    "flops": lambda M, N, K: 2 * M * N * K,
}
