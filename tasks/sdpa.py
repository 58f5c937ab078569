"""Scaled dot-product attention, non-causal: F.scaled_dot_product_attention on (B, H, L, D) q, k, v
with the default scale 1/sqrt(D). Shapes include an LLM prefill (8 x 16 x 4096 x 128), head dim
64, odd lengths (1000) and a query length other than the key length.

GPU memory: the verifier's float64 reference (SDPA's math path) materializes B*H*Lq*Lk scores in
float64, 17 GB at 8 x 16 x 4096 x 4096, about 35 GB at its peak with the softmax copy: it fits an
80 GB H100 beside the candidate."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        return F.scaled_dot_product_attention(q, k, v)


batch = 8
heads = 16
seq_q = 4096
seq_k = 4096
head_dim = 128


def get_inputs():
    q = torch.randn(batch, heads, seq_q, head_dim)
    k = torch.randn(batch, heads, seq_k, head_dim)
    v = torch.randn(batch, heads, seq_k, head_dim)
    return [q, k, v]


def get_init_inputs():
    return []


KZOO = {
    "op": "scaled_dot_product_attention",
    "shapes": [
        {"batch": 8, "heads": 16, "seq_q": 4096, "seq_k": 4096, "head_dim": 128},
        {"batch": 4, "heads": 16, "seq_q": 1000, "seq_k": 1000, "head_dim": 64},
        {"batch": 2, "heads": 8, "seq_q": 777, "seq_k": 2049, "head_dim": 128},
        {"batch": 16, "heads": 32, "seq_q": 512, "seq_k": 512, "head_dim": 64},
    ],
    # Triton's interpreter: an odd length (33: a partial block of queries and of keys), head dim 64,
    # and Lq != Lk.
    "cpu_shapes": [
        {"batch": 1, "heads": 2, "seq_q": 33, "seq_k": 33, "head_dim": 16},
        {"batch": 1, "heads": 1, "seq_q": 20, "seq_k": 45, "head_dim": 64},
    ],
    "dtypes": ["bfloat16", "float16", "float32"],
    # Every flash-attention kernel (PyTorch's flash SDPA too) rounds the probabilities to the input
    # dtype before the P @ V product, so an output element's error scales with ulp * |v|, not
    # with ulp * |out|: where the weighted sum of v nearly cancels, the default absolute slack (a
    # fraction of max|out|) is too tight for exact flash numerics. Emulating them (fp32 scores,
    # RNE-rounded P and output) over 60 draws needed atol_scale 1.2e-3 (bf16) and 1.7e-4 (fp16);
    # these bounds are about twice that. rtol and the norm-wise bound stay the defaults.
    "tolerances": {"bfloat16": {"atol_scale": 2.5e-3}, "float16": {"atol_scale": 3.5e-4}},
    "bytes": lambda batch, heads, seq_q, seq_k, head_dim, itemsize:
        2 * batch * heads * (seq_q + seq_k) * head_dim * itemsize,
    "flops": lambda batch, heads, seq_q, seq_k, head_dim:
        4 * batch * heads * seq_q * seq_k * head_dim,
}
