"""EXPECT: accept
Why: an honest one-pass softmax that holds four rows per program in a 2-D tile (rows up to 8192 wide),
with the looped kernel's approach for wider rows done by the online recurrence.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _tile_softmax(x_ptr, y_ptr, n_rows, n_cols, stride, BLOCK: tl.constexpr, ROWS: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK)
    mask = (rows < n_rows)[:, None] & (cols < n_cols)[None, :]
    offs = rows.to(tl.int64)[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=float("-inf")).to(tl.float32)
    x = tl.where((rows < n_rows)[:, None], x, 0.0)
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(y_ptr + offs, (e / tl.sum(e, axis=1)[:, None]).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _online_softmax(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = tl.full([BLOCK], float("-inf"), tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * stride + start + cols, mask=start + cols < n_cols,
                    other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    row_max = tl.max(m, 0)
    total = tl.sum(s * tl.exp(m - row_max), 0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride + start + cols, mask=mask, other=float("-inf"))
        y = tl.exp(x.to(tl.float32) - row_max) / total
        tl.store(y_ptr + row * stride + start + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n_rows, n_cols = x.shape
        block = triton.next_power_of_2(n_cols)
        if block <= 8192:
            _tile_softmax[(triton.cdiv(n_rows, 4),)](x, y, n_rows, n_cols, x.stride(0),
                                                      BLOCK=block, ROWS=4)
        else:
            _online_softmax[(n_rows,)](x, y, n_cols, x.stride(0), BLOCK=4096)
        return y
