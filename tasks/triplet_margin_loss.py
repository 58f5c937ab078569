"""Triplet margin loss as KernelBench writes it (nn.TripletMarginLoss). F.triplet_margin_loss
written out (verifier/decompose.py): the two pairwise distances, norm(a - x + eps) over each row,
then the mean of clamp(margin + d(a, p) - d(a, n), min=0).

Each distance is one kernel that takes the root in fp32 and rounds the distance once to the
dtype, as PyTorch's own pairwise_distance does. Before the tail template fused the root into the
reduction, the plan stored the sum of squares, rounded, and took its root in another kernel: the
loss, a difference of two near-equal distances, then missed the verifier's bound in bfloat16
(relative L2 error 0.0155 against 0.0144 at 7 x 33), and the task declared no bfloat16."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, margin: float = 1.0):
        super().__init__()
        self.loss_fn = nn.TripletMarginLoss(margin=margin)

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor,
                negative: torch.Tensor) -> torch.Tensor:
        return self.loss_fn(anchor, positive, negative)


batch_size = 128
dim = 4096


def get_inputs():
    return [torch.rand(batch_size, dim), torch.rand(batch_size, dim), torch.rand(batch_size, dim)]


def get_init_inputs():
    return [1.0]


KZOO = {
    "op": "triplet_margin_loss",
    "shapes": [{'batch_size': 4096, 'dim': 4096}, {'batch_size': 1000, 'dim': 4097}],
    "cpu_shapes": [{'batch_size': 7, 'dim': 33}, {'batch_size': 3, 'dim': 64}],
    "dtypes": ['float32', 'bfloat16', 'float16'],
}
