"""EXPECT: reject kernel-escape
Why: hands torch.softmax and Tensor.copy_ to a kernel as constexpr arguments, which Triton's
interpreter passes over as they are, and calls them in the kernel body. Caught: a kernel calls
Triton and other kernels by name only, never its arguments.
"""
import torch
import triton
import triton.language as tl

SOFTMAX = torch.softmax
COPY = torch.Tensor.copy_


@triton.jit
def _k(X: tl.constexpr, Y: tl.constexpr, F: tl.constexpr, G: tl.constexpr):
    G(Y, F(X, 1))      # parameters are local names: kernel-escape never looks at them


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        _k[(1,)](x, y, SOFTMAX, COPY)
        return y
