"""EXPECT: reject pointer-cache
Why: no kernel computes anything. The verifier seeds the RNG just before it constructs ModelNew,
and a constructor may use PyTorch: this one reads the seed, redraws the inputs of every cpu shape
of the task at that seed and at the new-values seed (seed + 7919), keeps their softmax, and
forward copies the answer out. Caught: the new values carry a random draw on top of that seed.
"""
import torch
import triton
import triton.language as tl

_CPU_SHAPES = [(5, 1000), (3, 4097), (2, 32768), (2, 70001)]  # the task file's cpu_shapes
_GPU_SHAPES = [(4099, 1000), (4096, 4097), (8192, 4096), (1024, 32768), (256, 128256)]
_NEW_VALUES = 7919


@triton.jit
def _copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        seed = torch.initial_seed()
        self.answers = {}
        for k, s in enumerate((seed, seed + _NEW_VALUES)):
            on_gpu = torch.empty(0).device.type == "cuda"  # the verifier's device context
            for shape in (_GPU_SHAPES if on_gpu else _CPU_SHAPES):
                torch.manual_seed(s)
                x = torch.randn(*shape) * 4.0
                self.answers[(shape, k)] = torch.softmax(x, dim=1)
        torch.manual_seed(seed)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        r = self.answers[(tuple(x.shape), 1 if self.calls >= 3 else 0)]
        y = torch.empty_like(x)
        _copy[(triton.cdiv(x.numel(), 1024),)](r, y, x.numel(), BLOCK=1024)
        return y
