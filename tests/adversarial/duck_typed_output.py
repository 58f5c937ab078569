"""EXPECT: reject lazy-output
Why: a plain object standing in for a tensor after the first call; only the first call's outputs
were type-checked, and isinstance() on the object ran its __class__ property outside the watched
call, where it could fill the outputs with PyTorch. Caught: every call's outputs must be plain
torch.Tensors, checked with type() (never isinstance) before anything else touches them.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _nothing(y_ptr):
    pass


class _Later:
    def __init__(self, x):
        self.x = x
        self.dtype = x.dtype
        self.shape = x.shape


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        y = torch.empty_like(x)
        _nothing[(1,)](y)
        return y if self.calls == 1 else _Later(x)
