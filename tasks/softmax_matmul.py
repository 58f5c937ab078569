"""Softmax of a matmul, times a matmul: softmax(q @ k^T / sqrt(d)) @ v with a causal mask written as
masked_fill over torch.triu of ones. Plain attention in the form models write by hand; the planner
recognizes it as attention and fuses it (no L x L score tensor in memory).

GPU memory: the float64 reference holds two 8.6 GB score tensors at 4 x 16 x 4096 x 4096."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(q, k.transpose(2, 3)) / (q.size(-1) ** 0.5)
        mask = torch.triu(torch.ones((q.size(-2), k.size(-2)), dtype=torch.bool, device=q.device),
                          diagonal=1)
        scores = scores.masked_fill(mask, float("-inf"))
        return torch.matmul(F.softmax(scores, dim=-1), v)


batch = 4
heads = 16
seq = 4096
head_dim = 128


def get_inputs():
    return [torch.randn(batch, heads, seq, head_dim) for _ in range(3)]


def get_init_inputs():
    return []


KZOO = {
    "op": "softmax_matmul",
    "shapes": [
        {"batch": 4, "heads": 16, "seq": 4096, "head_dim": 128},
        {"batch": 4, "heads": 16, "seq": 1000, "head_dim": 64},
        {"batch": 2, "heads": 8, "seq": 2049, "head_dim": 128},
    ],
    "cpu_shapes": [
        {"batch": 1, "heads": 2, "seq": 33, "head_dim": 16},
        {"batch": 1, "heads": 1, "seq": 20, "head_dim": 64},
    ],
    "dtypes": ["bfloat16", "float16", "float32"],
    # Every flash-attention kernel (PyTorch's flash SDPA too) rounds the probabilities to the input
    # dtype before the P @ V product, so an output element's error scales with ulp * |v|, not
    # with ulp * |out|: where the weighted sum of v nearly cancels, the default absolute slack (a
    # fraction of max|out|) is too tight for exact flash numerics. Emulating them (fp32 scores,
    # RNE-rounded P and output) over 60 draws needed atol_scale 1.2e-3 (bf16) and 1.7e-4 (fp16);
    # these bounds are about twice that. rtol and the norm-wise bound stay the defaults.
    "tolerances": {"bfloat16": {"atol_scale": 2.5e-3}, "float16": {"atol_scale": 3.5e-4}},
    "bytes": lambda batch, heads, seq, head_dim, itemsize:
        4 * batch * heads * seq * head_dim * itemsize,
    "flops": lambda batch, heads, seq, head_dim:
        2 * batch * heads * seq * seq * head_dim,
}
