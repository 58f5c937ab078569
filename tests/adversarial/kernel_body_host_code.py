"""EXPECT: reject kernel-escape
Why: a kernel whose body calls a helper class. On a GPU it cannot compile, but in Triton's
interpreter a kernel body is plain Python, run inside the launch, where the helper computes
the output with PyTorch out of sight of the launch counting. Caught: a kernel body may refer
to Triton, other kernels and constants only.
"""
import torch
import triton
import triton.language as tl

_SLOT = []


class _Work:
    def __init__(self):
        x, y = _SLOT
        y.copy_(torch.softmax(x, dim=1))


@triton.jit
def _softmax_kernel(y_ptr):
    _Work()


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _SLOT[:] = [x, y]
        _softmax_kernel[(1,)](y)
        return y
