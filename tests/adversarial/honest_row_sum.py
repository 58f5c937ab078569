"""EXPECT: accept
TASK: row_sum
Why: an honest row reduction, fp32 accumulation over column tiles.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _row_sum(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        acc += tl.load(x_ptr + row * stride + start + cols, mask=start + cols < n_cols,
                       other=0.0).to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, 0).to(y_ptr.dtype.element_ty))


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty(x.shape[0], dtype=x.dtype, device=x.device)
        _row_sum[(x.shape[0],)](x, y, x.shape[1], x.stride(0), BLOCK=2048)
        return y
