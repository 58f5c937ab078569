"""Tanh(Linear(x)) with nn modules (nn.Linear, then nn.Tanh()): the planner traces both
through to F.linear and torch.tanh, and the bias add and activation become the GEMM's epilogue;
`kernel_zoo.ops.linear(x, w, b, "tanh")`'s entry. Shapes as tasks/linear_bias_silu.py's (an
LLM block's 4096 -> 4096 at 4 x 2048 tokens and at a decode step's 16); bias redrawn at scale 0.5
(see tasks/linear_bias_gelu.py); default tolerances."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.act = nn.Tanh()
        with torch.no_grad():
            self.fc.bias.copy_(0.5 * torch.randn(out_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.fc(x))


batch = 4
seq = 2048
in_features = 4096
out_features = 4096


def get_inputs():
    return [torch.randn(batch, seq, in_features)]


def get_init_inputs():
    return [in_features, out_features]


KZOO = {
    "op": "linear_bias_tanh",
    "shapes": [
        {"batch": 4, "seq": 2048, "in_features": 4096, "out_features": 4096},
        {"batch": 1, "seq": 16, "in_features": 4096, "out_features": 4096},
    ],
    "cpu_shapes": [
        {"batch": 2, "seq": 17, "in_features": 65, "out_features": 47},
    ],
    "dtypes": ["bfloat16", "float16"],
    "bytes": lambda batch, seq, in_features, out_features, itemsize: (
        batch * seq * (in_features + out_features) + in_features * out_features
        + out_features) * itemsize,
    "flops": lambda batch, seq, in_features, out_features: (
        2 * batch * seq * in_features * out_features),
}
