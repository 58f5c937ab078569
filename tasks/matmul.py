"""Square-ish matmul C = A @ B (M x K times K x N), the GEMM every library is measured on.

Shapes are M x N x K: 4096^3, 8192^3, and an odd one (4095 x 4097 x 4093) whose rows break
16-byte alignment (no TMA; masked edge tiles). Inputs are standard normal, so C's entries have a
spread of sqrt(K) and the verifier's relative tolerances bite on every element.

Tolerances are the verifier's defaults: the kernels accumulate in fp32 (fp32 inputs in IEEE fp32,
no TF32), so their error is the final rounding to the output dtype plus fp32 accumulation error
(~sqrt(K) * 2^-24 relative to sum |a||b|), well inside the bf16/fp16/fp32 tables.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a @ b


M = 4096
N = 4096
K = 4096


def get_inputs():
    return [torch.randn(M, K), torch.randn(K, N)]


def get_init_inputs():
    return []


KZOO = {
    "op": "matmul",
    "shapes": [
        {"M": 4096, "N": 4096, "K": 4096},
        {"M": 8192, "N": 8192, "K": 8192},
        {"M": 4095, "N": 4097, "K": 4093},
    ],
    "cpu_shapes": [
        {"M": 33, "N": 47, "K": 65},
        {"M": 64, "N": 32, "K": 128},
    ],
    "dtypes": ["bfloat16", "float16", "float32"],
    "bytes": lambda M, N, K, itemsize: (M * K + K * N + M * N) * itemsize,
    "flops": lambda M, N, K: 2 * M * N * K,
}
