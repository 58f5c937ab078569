"""Wrong on purpose: argmax over the last dim with >=, so tied maxima give the LAST index (torch:
the first). Every value is otherwise right, which only an exact integer comparison catches."""
import torch
import triton
import triton.language as tl


@triton.jit
def _row_argmax(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    best_v = tl.full([BLOCK], float("-inf"), tl.float32)
    best_i = tl.zeros([BLOCK], tl.int32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * stride + start + cols, mask=start + cols < n_cols,
                    other=float("-inf")).to(tl.float32)
        take = x >= best_v  # bug: a later equal value replaces the earlier one
        best_v = tl.where(take, x, best_v)
        best_i = tl.where(take, start + cols, best_i)
    top = tl.max(best_v, 0)
    idx = tl.max(tl.where(best_v == top, best_i, -1), 0)
    tl.store(out_ptr + row, idx.to(tl.int64))


class ModelNew(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols)
        out = torch.empty(x2.shape[0], dtype=torch.int64, device=x.device)
        _row_argmax[(x2.shape[0],)](x2, out, n_cols, x2.stride(0), BLOCK=1024)
        return out.reshape(x.shape[:-1])
