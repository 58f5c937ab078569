"""KL divergence as KernelBench writes it: F.kl_div(log(predictions), targets, 'batchmean') over
softmax rows. F.kl_div written out (verifier/decompose.py): xlogy(t, t) - t log(p) per element,
the sums over each row, then their mean over the batch."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        return F.kl_div(torch.log(predictions), targets, reduction="batchmean")


batch_size = 128
dim = 4096


def get_inputs():
    return [torch.randn(batch_size, dim).softmax(dim=-1),
            torch.randn(batch_size, dim).softmax(dim=-1)]


def get_init_inputs():
    return []


KZOO = {
    "op": "kl_div_loss",
    "shapes": [{'batch_size': 4096, 'dim': 4096}, {'batch_size': 1000, 'dim': 4097}],
    "cpu_shapes": [{'batch_size': 7, 'dim': 33}, {'batch_size': 3, 'dim': 64}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
