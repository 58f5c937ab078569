"""Causal scaled dot-product attention: F.scaled_dot_product_attention(q, k, v, is_causal=True), the
mask top-left aligned (key j visible to query i when j <= i). Shapes as the non-causal task's, all
with Lq == Lk; odd lengths put the diagonal across partial blocks.

GPU memory: the float64 reference materializes the full 8 x 16 x 4096 x 4096 score tensor (17 GB,
about 35 GB at its peak), which fits an 80 GB H100."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


batch = 8
heads = 16
seq = 4096
head_dim = 128


def get_inputs():
    return [torch.randn(batch, heads, seq, head_dim) for _ in range(3)]


def get_init_inputs():
    return []


KZOO = {
    "op": "scaled_dot_product_attention",
    "shapes": [
        {"batch": 8, "heads": 16, "seq": 4096, "head_dim": 128},
        {"batch": 4, "heads": 16, "seq": 1000, "head_dim": 64},
        {"batch": 2, "heads": 8, "seq": 2049, "head_dim": 128},
        {"batch": 16, "heads": 32, "seq": 512, "head_dim": 64},
    ],
    "cpu_shapes": [
        {"batch": 1, "heads": 2, "seq": 33, "head_dim": 16},
        {"batch": 1, "heads": 1, "seq": 70, "head_dim": 64},
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
    # the mask removes half of the score matrix (the diagonal blocks' extra work is not counted)
    "flops": lambda batch, heads, seq, head_dim:
        2 * batch * heads * seq * seq * head_dim,
}
