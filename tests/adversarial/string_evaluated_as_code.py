"""EXPECT: reject module-patching
Why: typing.get_type_hints evaluates string annotations, so code in a string literal runs though
no eval is named (it could import sys and loosen the verifier's tolerances). Caught: the names
that run strings as code or map files (get_type_hints, ForwardRef, singledispatch, from_file)
are refused wherever they appear.
"""
import typing

import torch
import triton
import triton.language as tl


def _hint(a: "1 + 1"):
    pass


_EVALUATED = typing.get_type_hints(_hint)


@triton.jit
def _zeros(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], tl.float32), mask=offs < n)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _zeros[(triton.cdiv(x.numel(), 1024),)](y, x.numel(), BLOCK=1024)
        return y
