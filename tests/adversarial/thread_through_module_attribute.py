"""EXPECT: reject deferred-work
Why: takes threading as an attribute of torch.cuda (no import of it to see), and hands the
PyTorch softmax to a helper class run in a thread joined before forward returns: nothing is
left running, and a dispatch mode watches its own thread only. Caught: the guards refuse the
attribute; at run time a thread the call starts runs under a monitor of its own.
"""
import torch
import triton
import triton.language as tl

_Thread = torch.cuda.threading.Thread


@triton.jit
def _touch(y_ptr):
    pass


class _Work:
    def __init__(self, x, y):
        y.copy_(torch.softmax(x, dim=1))


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _touch[(1,)](y)
        worker = _Thread(target=_Work, args=(x, y))
        worker.start()
        worker.join()
        return y
