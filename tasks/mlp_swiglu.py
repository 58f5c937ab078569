"""A LLaMA-style MLP: down(silu(gate(x)) * up(x)). Three GEMMs; the SiLU fuses into the gate
projection's epilogue and the product into the up projection's, so the composed candidate is three
kernels where eager PyTorch runs five.

float32 only: in bfloat16 and float16, PyTorch's own forward misses the verifier's element-wise
bar (2 ulp plus a slack scaled to the output) where the down projection cancels: the rounding of
the intermediate activations, which every implementation does, is amplified there (measured with
verifier.tolerance.compare on seeds 0-2 at two shapes). Loosening the tolerance for it is not on
offer, so the 16-bit forms stay out of the task."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, hidden: int, inner: int):
        super().__init__()
        self.gate = nn.Linear(hidden, inner, bias=False)
        self.up = nn.Linear(hidden, inner, bias=False)
        self.down = nn.Linear(inner, hidden, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))


tokens = 256
hidden = 512
inner = 1376


def get_inputs():
    return [torch.randn(tokens, hidden)]


def get_init_inputs():
    return [hidden, inner]


KZOO = {
    "op": "mlp_swiglu",
    "shapes": [{"tokens": 4096, "hidden": 4096, "inner": 11008},
               {"tokens": 1000, "hidden": 2048, "inner": 5504}],
    "cpu_shapes": [{"tokens": 9, "hidden": 32, "inner": 48}],
    "dtypes": ["float32"],
    "flops": lambda tokens, hidden, inner: 6 * tokens * hidden * inner,
}
