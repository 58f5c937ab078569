"""The down projection of a Llama-3-8B MLP: (tokens x 14336) @ (14336 x 4096).

Sizes are written M x N x K = 8192 x 4096 x 14336, the convention of every matmul task here:
M rows of A and C, N columns of B and C, K the reduced dim. A long K against a moderate output.
Default tolerances (see tasks/matmul.py): the kernels accumulate in fp32.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


M = 8192
N = 4096
K = 14336


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []


KZOO = {
    "op": "matmul",
    "shapes": [
        {"M": 8192, "N": 4096, "K": 14336},
        {"M": 4096, "N": 4096, "K": 14336},
    ],
    "cpu_shapes": [
        {"M": 40, "N": 32, "K": 300},
    ],
    "dtypes": ["bfloat16", "float16"],
    "bytes": lambda M, N, K, itemsize: (M * K + K * N + M * N) * itemsize,
    "flops": lambda M, N, K: 2 * M * N * K,
}
