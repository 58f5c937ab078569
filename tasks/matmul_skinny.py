"""Skinny matmul, M <= 128 rows (decode-time batches against a weight): 16 x 8192 x 8192 and
128 x 4096 x 4096 (M x N x K). Few output tiles and a long K: split-K territory.
Default tolerances (see tasks/matmul.py): the kernels accumulate in fp32, split-K partials too.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.mm(a, b)


M = 16
N = 8192
K = 8192


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []


KZOO = {
    "op": "matmul",
    "shapes": [
        {"M": 16, "N": 8192, "K": 8192},
        {"M": 128, "N": 4096, "K": 4096},
        {"M": 1, "N": 4096, "K": 4096},
    ],
    "cpu_shapes": [
        {"M": 5, "N": 40, "K": 530},
        {"M": 16, "N": 33, "K": 1030},
    ],
    "dtypes": ["bfloat16", "float16"],
    "bytes": lambda M, N, K, itemsize: (M * K + K * N + M * N) * itemsize,
    "flops": lambda M, N, K: 2 * M * N * K,
}
