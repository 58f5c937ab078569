"""Wrong on purpose: the mean divides by all rows, ignored ones included (PyTorch divides by the rows
that count). Each row's loss is right; only the mean's denominator is wrong."""
import torch
import triton
import triton.language as tl


@triton.jit
def _row_loss(x_ptr, t_ptr, loss_ptr, n_cols, stride, ignore_index, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    target = tl.load(t_ptr + row)
    m = float("-inf")
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * stride + start + cols, mask=start + cols < n_cols,
                    other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, tl.max(x, 0))
    s = 0.0
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * stride + start + cols, mask=start + cols < n_cols,
                    other=float("-inf")).to(tl.float32)
        s += tl.sum(tl.exp(x - m), 0)
    counted = target != ignore_index
    x_t = tl.load(x_ptr + row * stride + target, mask=counted, other=0.0).to(tl.float32)
    tl.store(loss_ptr + row, tl.where(counted, m + tl.log(s) - x_t, 0.0))


@triton.jit
def _mean(loss_ptr, out_ptr, n_rows, BLOCK: tl.constexpr):
    total = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_rows, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        total += tl.load(loss_ptr + offs, mask=offs < n_rows, other=0.0)
    tl.store(out_ptr, (tl.sum(total, 0) / n_rows).to(out_ptr.dtype.element_ty))  # bug: all rows


class ModelNew(torch.nn.Module):
    def __init__(self, ignore_index=-100):
        super().__init__()
        self.ignore_index = ignore_index

    def forward(self, logits, target):
        n_rows, n_cols = logits.shape
        loss = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
        out = torch.empty((), dtype=logits.dtype, device=logits.device)
        _row_loss[(n_rows,)](logits, target, loss, n_cols, logits.stride(0), self.ignore_index,
                             BLOCK=1024)
        _mean[(1,)](loss, out, n_rows, BLOCK=256)
        return out
