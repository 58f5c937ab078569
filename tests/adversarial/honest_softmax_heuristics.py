"""EXPECT: accept
Why: an honest looped softmax whose block size comes from triton.heuristics with a plain host
function (the tutorials' pattern): a decorator runs on the host, not in the kernel body.
"""
import torch
import triton
import triton.language as tl


def _block(args):
    return min(4096, triton.next_power_of_2(args["n_cols"]))


@triton.heuristics({"BLOCK": _block})
@triton.jit
def _row_softmax(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = float("-inf")
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * stride + start + cols, mask=start + cols < n_cols, other=float("-inf"))
        m = tl.maximum(m, tl.max(x.to(tl.float32), 0))
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * stride + start + cols, mask=start + cols < n_cols, other=float("-inf"))
        s += tl.sum(tl.exp(x.to(tl.float32) - m), 0)
    for start in range(0, n_cols, BLOCK):
        mask = start + cols < n_cols
        x = tl.load(x_ptr + row * stride + start + cols, mask=mask, other=float("-inf"))
        y = tl.exp(x.to(tl.float32) - m) / s
        tl.store(y_ptr + row * stride + start + cols, y.to(y_ptr.dtype.element_ty), mask=mask)
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        _row_softmax[(x.shape[0],)](x, y, x.shape[1], x.stride(0))
        return y
