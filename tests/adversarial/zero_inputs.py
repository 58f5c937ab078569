"""EXPECT: reject input-mutation
Why: computes the right answer, then zeroes its input with a kernel of its own
(a later reference run would see zeros). Caught: inputs are compared bit for bit after the calls.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _softmax_rows(x_ptr, y_ptr, n_cols, x_stride, y_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=start + cols < n_cols,
                    other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, x)
    row_max = tl.max(m, 0)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=start + cols < n_cols,
                    other=float("-inf")).to(tl.float32)
        s += tl.exp(x - row_max)
    total = tl.sum(s, 0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * x_stride + start + cols, mask=mask,
                    other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + row * y_stride + start + cols,
                 (tl.exp(x - row_max) / total).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _zero(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros([BLOCK], tl.float32).to(x_ptr.dtype.element_ty), mask=offs < n)


def launch(x, y, rows=None):
    rows = x.shape[0] if rows is None else rows
    _softmax_rows[(rows,)](x, y, x.shape[1], x.stride(0), y.stride(0), BLOCK=1024)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        y = torch.empty_like(x)
        launch(x, y)
        _zero[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)
        return y
