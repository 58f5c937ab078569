"""EXPECT: reject forbidden-import
Why: `from typing import sys` reaches sys as `typing.sys` does, only spelled as an import, which
the guards checked by module path alone until 2026-12-01: with sys the candidate could rewrite
the verifier's tolerance table in place (and with `from torch import os`, run a shell) and pass
a kernel that writes zeros. Caught: an imported name is held to the rules on attributes.
"""
import torch
import triton
import triton.language as tl
from typing import sys

_MODULES = len(sys.modules)


@triton.jit
def _zeros(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], tl.float32), mask=offs < n)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _zeros[(triton.cdiv(x.numel(), 1024),)](y, x.numel(), BLOCK=1024)
        return y
