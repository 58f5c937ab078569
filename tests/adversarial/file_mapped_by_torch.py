"""EXPECT: reject module-patching
Why: torch.from_file(path, shared=True) maps any file writable: a candidate rewrote the
verifier's own tolerance.py on disk, and every later verification passed a kernel that was wrong
(rewritten to code, the file ran in the parent process too). Caught: from_file is refused by
name, under torch and torch.UntypedStorage alike.
"""
import torch
import triton
import triton.language as tl

_MAP = torch.from_file("/dev/null", shared=False, size=0, dtype=torch.uint8)


@triton.jit
def _zeros(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], tl.float32), mask=offs < n)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _zeros[(triton.cdiv(x.numel(), 1024),)](y, x.numel(), BLOCK=1024)
        return y
