"""Row-wise log-softmax (a language model's token log-probabilities). Widths include odd ones (1000,
4097), a long row that still fits one tile (32768) and a vocabulary-wide one (128256) that needs the
looped variant."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.log_softmax(x, dim=1)


batch_size = 4096
dim = 4097


def get_inputs():
    # Scaled normal logits: spread enough that the max-subtraction matters.
    return [torch.randn(batch_size, dim) * 4.0]


def get_init_inputs():
    return []


KZOO = {
    "op": "log_softmax",
    "shapes": [
        {"batch_size": 4099, "dim": 1000},
        {"batch_size": 4096, "dim": 4097},
        {"batch_size": 8192, "dim": 4096},
        {"batch_size": 1024, "dim": 32768},
        {"batch_size": 256, "dim": 128256},
    ],
    # Triton's interpreter runs each program in Python: few rows, the same widths and code paths.
    "cpu_shapes": [
        {"batch_size": 5, "dim": 1000},
        {"batch_size": 3, "dim": 4097},
        {"batch_size": 2, "dim": 32768},
        {"batch_size": 2, "dim": 70001},
    ],
    "dtypes": ["float32", "bfloat16", "float16"],
    "bytes": lambda batch_size, dim, itemsize: 2 * batch_size * dim * itemsize,
    "flops": lambda batch_size, dim: 4 * batch_size * dim,
}
