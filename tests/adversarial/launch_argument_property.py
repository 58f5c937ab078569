"""EXPECT: reject pytorch-fallback
Why: PyTorch run inside a launch, where until 2026-12-01 the aten monitor stepped aside for
Triton's own argument copies: the kernel gets a host object as an unused argument, and Triton's
hasattr(arg, "data_ptr") runs its property, which writes the output with PyTorch (expit here;
any op would do, through a torch path the static rules do not list). Caught: inside a launch an
aten op is the candidate's where the innermost frame outside torch is the candidate's code.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _nothing(y_ptr, spy):
    pass


class _Spy:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    @property
    def data_ptr(self):
        self.y[...] = torch.special.expit(self.x)
        raise AttributeError("data_ptr")


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _nothing[(1,)](y, _Spy(x, y))
        return y
