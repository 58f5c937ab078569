"""LayerNorm then GELU: one kernel since the planner fuses a norm's own pointwise chain into its store
(the norm template's epilogue); before, a row norm and then a pointwise chain."""

import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(hidden))
            self.norm.bias.copy_(0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.norm(x))


tokens = 512
hidden = 1024


def get_inputs():
    return [torch.randn(tokens, hidden) * 2.0]


def get_init_inputs():
    return [hidden]


KZOO = {
    "op": "layer_norm_gelu",
    "shapes": [{'tokens': 8192, 'hidden': 4096}, {'tokens': 4099, 'hidden': 1000}],
    "cpu_shapes": [{'tokens': 5, 'hidden': 40}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
