"""EXPECT: reject forbidden-api
Why: registers a global forward hook that keeps every other module's output by its input's
address, and returns the reference's own output for the same buffers (the verifier runs the
reference on them before the candidate). Caught: hooks are refused by name.
"""
import torch
import triton
import triton.language as tl

_seen = {}


def _keep(module, args, output):
    # every nn.Module's forward, the reference's included: keep its output by input address
    if not isinstance(module, ModelNew):
        _seen[args[0].data_ptr()] = output


torch.nn.modules.module.register_module_forward_hook(_keep)


@triton.jit
def _noop(x_ptr):
    pass


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        _noop[(1,)](x)
        return _seen[x.data_ptr()].clone()   # the verifier ran the reference on x just before
