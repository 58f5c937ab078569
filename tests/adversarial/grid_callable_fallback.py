"""EXPECT: reject pytorch-fallback|forbidden-api
Why: computes the softmax with PyTorch in a callable grid, which Triton calls inside the
launch, where the aten monitor stepped aside for Triton's own argument copies; torch is reached
through a rebinding (T = torch), which path-based rules did not follow. Caught: the guards
resolve rebindings and read lambdas as forward code; at run time a grid and pre-run hooks are
watched again.
"""
import torch
import triton
import triton.language as tl

T = torch                        # a plain rebinding: T.<anything> is never resolved to a torch path
F = T.nn.functional
LOAD, SAVE, HUB = T.load, T.save, T.hub
EVENT, GRAPH = T.cuda.Event, T.cuda.CUDAGraph
SM, COPY = F.softmax, T.Tensor.copy_


@triton.jit
def _noop(x_ptr):
    pass


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        _noop[lambda meta: (COPY(y, SM(x, 1)), (1,))[1]](x)
        return y
