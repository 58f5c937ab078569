"""EXPECT: reject lazy-output
Why: returns a tensor subclass that would compute only when looked at.
Caught: no torch.Tensor subclasses, and outputs must be plain tensors.
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


class Lazy(torch.Tensor):
    pass


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
        return y.as_subclass(Lazy)
