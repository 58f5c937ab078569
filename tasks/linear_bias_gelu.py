"""gelu(linear(x, W, b)): a transformer MLP's up projection with its bias and exact GELU, the
headline fused GEMM: one kernel, the bias add and GELU applied to the fp32 accumulator.

Sizes M x N x K: tokens x out_features x in_features, 8192 x 8192 x 4096 first. The bias is
redrawn at scale 0.5 (nn.Linear's default is +-1/sqrt(K), ~0.016 at K=4096: a kernel that dropped
it could hide inside the bf16 tolerance). Default tolerances: the matmul accumulates in fp32 and
the epilogue runs in fp32 before the one rounding to the output dtype (see tasks/matmul.py).
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        with torch.no_grad():
            self.fc.bias.copy_(0.5 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.fc(x))


tokens = 8192
in_features = 4096
out_features = 8192


def get_inputs():
    return [torch.randn(tokens, in_features)]


def get_init_inputs():
    return [in_features, out_features]


KZOO = {
    "op": "linear_bias_gelu",
    "shapes": [
        {"tokens": 8192, "in_features": 4096, "out_features": 8192},
        {"tokens": 4096, "in_features": 4096, "out_features": 14336},
        {"tokens": 4099, "in_features": 1000, "out_features": 3073},
    ],
    "cpu_shapes": [
        {"tokens": 33, "in_features": 65, "out_features": 47},
        {"tokens": 64, "in_features": 128, "out_features": 96},
    ],
    "dtypes": ["bfloat16", "float16", "float32"],
    "bytes": lambda tokens, in_features, out_features, itemsize: (
        tokens * in_features + in_features * out_features + out_features
        + tokens * out_features) * itemsize,
    "flops": lambda tokens, in_features, out_features: 2 * tokens * in_features * out_features,
}
