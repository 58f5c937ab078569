"""Fused elementwise kernel `swiglu` rendered by kernel-zoo from template `pointwise`.

Params: {"block": 2048, "col_block": 1024, "gelu_erf_fit": false, "min_per_thread": 8, "num_stages": 1, "num_warps": 4, "programs_per_sm": 0, "small_per_thread": 4, "stream_hint": false, "tiling": "rows"}
Expression: ["mul", ["silu", ["input", 0]], ["input", 1]]
Inputs: [{"index": 0, "kind": "full", "source": "arg"}, {"index": 1, "kind": "full", "source": "arg"}]
Math in fp32; the output takes the full inputs' dtype (or `out_dtype`, where the caller gives one;
a `wide` input may be float32 beside it). Full tiles run unmasked, the last one masked.
"""
import functools

import torch
import triton
import triton.language as tl


def _cdiv(a: int, b: int) -> int:
    """ceil(a / b) for non-negative ints, on the host."""
    return -(-a // b)


def _next_pow2(n: int) -> int:
    """The smallest power of two >= n, 0 for 0 (as triton.next_power_of_2), on the host."""
    return 1 << (n - 1).bit_length() if n > 0 else 0


def _unit(values, data_ptr: int, itemsize: int) -> int:
    """The widest vector (elements, at most 16 bytes) that every offset and the base align to.
    A kernel takes its widths and strides divided by it and multiplies them back by the
    constexpr: Triton marks an int argument only when it is divisible by 16, so a 1000-wide
    bf16 row (2000 bytes, 16-byte aligned) would otherwise get 2-byte loads and stores."""
    unit = 16 // itemsize
    while unit > 1 and (any(v % unit for v in values) or data_ptr % (unit * itemsize)):
        unit //= 2
    return unit


def _direct(compiled, kernel, grid, n_args: int, kwargs):
    """A recorded launch through the compiled kernel's own launcher: (the launcher over `grid`,
    the values of the kernel's parameters after its first `n_args`, all passed as keywords), or
    None in Triton's interpreter or where a parameter was left to its default.
    `kernel[grid](...)` binds and specializes every argument again on each call; a recipe's key
    (shapes, strides, dtypes, device, 16-byte alignment) already fixes all that specialization
    depends on, and its sizes and strides are the first call's. The verifier counts these
    launches as it counts `kernel[grid](...)` (verifier/runtime.py)."""
    if compiled is None:
        return None
    rest = kernel.arg_names[n_args:]
    if any(name not in kwargs for name in rest):
        return None
    return compiled[(*grid, 1, 1)[:3]], tuple(kwargs[name] for name in rest)


def _run(kernel, grid, direct, args, kwargs):
    """kernel[grid](*args, **kwargs), through `direct` (from _direct) where there is one."""
    if direct is None:
        kernel[grid](*args, **kwargs)
    else:
        run, consts = direct
        run(*args, *consts)


# Compiled kernels' own launchers (`_direct`), by what Triton's JIT specializes a launch on: each
# tensor's dtype, device and 16-byte alignment, each int's value (stricter than Triton's ==1 and
# divisible-by-16), each float's type, the grid and the keywords. A repeat launches through the
# compiled kernel's launcher and skips the JIT's binding of every argument.
_LAUNCHERS = {}
_MAX_LAUNCHERS = 256


def _arg_key(v):
    if isinstance(v, torch.Tensor):
        return (v.dtype, v.device, v.data_ptr() % 16)
    if isinstance(v, float):
        return float
    return (type(v), v)


def _launch(kernel, grid, args, kwargs):
    """kernel[grid](*args, **kwargs), through the compiled kernel's own launcher when a launch
    Triton would specialize the same way ran before."""
    key = (kernel, grid, tuple(_arg_key(v) for v in args), tuple(kwargs.items()))
    direct = _LAUNCHERS.get(key)
    if direct is not None:
        _run(kernel, grid, direct, args, kwargs)
        return
    direct = _direct(kernel[grid](*args, **kwargs), kernel, grid, len(args), kwargs)
    if direct is not None:
        if len(_LAUNCHERS) >= _MAX_LAUNCHERS:
            _LAUNCHERS.clear()
        _LAUNCHERS[key] = direct


PARAMS = {'block': 2048, 'num_warps': 4, 'num_stages': 1, 'programs_per_sm': 0, 'stream_hint': False, 'tiling': 'rows', 'col_block': 1024, 'min_per_thread': 8, 'gelu_erf_fit': False, 'small_per_thread': 4}
BLOCK = 2048
NUM_WARPS = 4
NUM_STAGES = 1
PROGRAMS_PER_SM = 0
TILING = "rows"
COL_BLOCK = 1024
MIN_ELEMS_PER_THREAD = 8
SMALL_CALL_THREADS = 1024  # a call under this many threads an SM at min_per_thread is small
MAX_GRID_Y = 65535


@triton.jit
def _relu(x):
    return tl.where(x < 0.0, 0.0, x)  # NaN passes through, as in torch


@triton.jit
def _leaky_relu(x, slope):
    return tl.where(x > 0.0, x, x * slope)


@triton.jit
def _expm1(x):
    # exp(x) - 1 cancels near 0; the series is exact to fp32 there.
    series = x * (1.0 + x * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0)))))
    return tl.where(tl.abs(x) < 0.03125, series, tl.exp(x) - 1.0)


@triton.jit
def _elu(x, alpha):
    return tl.where(x > 0.0, x, alpha * _expm1(x))


@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))  # exp overflow gives 1/inf = 0, never NaN


@triton.jit
def _silu(x):
    return x / (1.0 + tl.exp(-x))


@triton.jit
def _tanh(x):
    ax = tl.abs(x)
    t = tl.exp(-2.0 * ax)
    far = (1.0 - t) / (1.0 + t)
    x2 = ax * ax
    near = ax * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    r = tl.where(ax < 0.0625, near, far)
    return tl.where(x < 0.0, -r, r)


@triton.jit
def _gelu_erf(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


@triton.jit
def _gelu_tanh(x):
    # 0.5 * (1 + tanh(u)) == sigmoid(2u): no cancellation for negative x.
    u = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    return x / (1.0 + tl.exp(-2.0 * u))


@triton.jit
def _log1p_unit(e):
    # log(1 + e) for e in [0, 1]; the series covers small e, where 1 + e would round e away.
    series = e * (1.0 - e * (0.5 - e * (1.0 / 3.0 - e * (0.25 - e * 0.2))))
    return tl.where(e < 0.03125, series, tl.log(1.0 + e))


@triton.jit
def _softplus(x, beta, threshold):
    z = x * beta
    sp = tl.where(z > 0.0, z, 0.0) + _log1p_unit(tl.exp(-tl.abs(z)))
    return tl.where(z > threshold, x, sp / beta)


@triton.jit
def _mish(x):
    # tanh(log1p(e^x)) == n / (n + 2) with n = e^x (e^x + 2); past 20 it is 1 in fp32.
    e = tl.exp(tl.where(x < 20.0, x, 20.0))
    n = e * (e + 2.0)
    return tl.where(x > 20.0, x, x * (n / (n + 2.0)))


@triton.jit
def _clamp_min(x, lo):
    return tl.where(x < lo, lo, x)


@triton.jit
def _clamp_max(x, hi):
    return tl.where(x > hi, hi, x)


@triton.jit
def _clamp(x, lo, hi):
    # min(max(x, lo), hi), as torch.clamp (lo > hi gives hi); NaN passes through.
    return _clamp_max(_clamp_min(x, lo), hi)


@triton.jit
def _hardsigmoid(x):
    return _clamp(x + 3.0, 0.0, 6.0) / 6.0


@triton.jit
def _hardswish(x):
    return x * _clamp(x + 3.0, 0.0, 6.0) / 6.0


@triton.jit
def _maximum(a, b):
    return tl.where((a > b) | (a != a), a, b)  # NaN in either wins, as torch.maximum


@triton.jit
def _minimum(a, b):
    return tl.where((a < b) | (a != a), a, b)


@triton.jit
def _flat_kernel(
    in0, in1, out_ptr, n_elements, n_cols, n_full_blocks, tail_base,
    BLOCK: tl.constexpr, ONE_WRAP: tl.constexpr,
):
    pid = tl.program_id(0)
    base = tl.cast(pid, tl.int64) * BLOCK
    if pid < n_full_blocks:
        offs = tl.arange(0, BLOCK)
        x0 = tl.load(in0 + base + offs).to(tl.float32)
        x1 = tl.load(in1 + base + offs).to(tl.float32)
        t0 = _silu(x0)
        t1 = t0 * x1
        tl.store(out_ptr + base + offs, t1.to(out_ptr.dtype.element_ty))
    else:
        offs = tl.arange(0, BLOCK)
        mask = offs < n_elements - base
        x0 = tl.load(in0 + base + offs, mask=mask).to(tl.float32)
        x1 = tl.load(in1 + base + offs, mask=mask).to(tl.float32)
        t0 = _silu(x0)
        t1 = t0 * x1
        tl.store(out_ptr + base + offs, t1.to(out_ptr.dtype.element_ty), mask=mask)


@functools.lru_cache(maxsize=None)
def _sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4  # Triton's interpreter: a small machine, so small grids reach every path
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _programs(tiles: int, device: torch.device, columns: int = 1) -> int:
    """Programs along the tile axis: one per tile, or a persistent share of the SMs."""
    if PROGRAMS_PER_SM == 0:
        return tiles
    index = device.index if device.index is not None else 0
    return max(1, min(tiles, _sm_count(index) * PROGRAMS_PER_SM // columns))


def launch_swiglu(in0, in1, *, out_dtype=None):
    """swiglu: the expression above over 2 input(s); a new tensor of the full inputs' shape,
    of their dtype or `out_dtype`."""
    like = in0
    dtype = like.dtype if out_dtype is None else out_dtype
    if dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"launch_swiglu: unsupported dtype {dtype}")
    shape = like.shape
    n_cols = shape[-1] if len(shape) > 0 else 1
    if in0.shape != shape or in0.dtype != dtype:
        raise ValueError(f"launch_swiglu: input 0 is {tuple(in0.shape)} {in0.dtype}; "
                         f"expected {tuple(shape)} {dtype} like input 0")
    if not in0.is_contiguous():
        in0 = in0.contiguous()
    if in1.shape != shape or in1.dtype != dtype:
        raise ValueError(f"launch_swiglu: input 1 is {tuple(in1.shape)} {in1.dtype}; "
                         f"expected {tuple(shape)} {dtype} like input 0")
    if not in1.is_contiguous():
        in1 = in1.contiguous()
    out = torch.empty(shape, dtype=dtype, device=like.device)
    n_elements = out.numel()
    if n_elements == 0:
        return out
    flags = {}
    args = (in0, in1, out)
    block = min(BLOCK, max(_next_pow2(n_elements), 32 * MIN_ELEMS_PER_THREAD))
    per_thread, max_warps = MIN_ELEMS_PER_THREAD, NUM_WARPS
    if PROGRAMS_PER_SM == 0:
        # A small call (a decode batch's 16 rows) would leave SMs idle with one program per
        # BLOCK: halve the tile, down to one 16-byte vector per thread of one warp, until every
        # SM has a program.
        index = like.device.index if like.device.index is not None else 0
        sms = _sm_count(index)
        if n_elements < sms * SMALL_CALL_THREADS * MIN_ELEMS_PER_THREAD:
            # small_per_thread: a call too small to give every SM 1024 threads at
            # min_per_thread elements each spreads thinner, more threads in flight a tile
            per_thread, max_warps = 4, 32
        while block > 32 * per_thread and _cdiv(n_elements, block) < sms:
            block //= 2
    warps = max(1, min(max_warps, block // (32 * per_thread)))
    n_full_blocks = n_elements // block
    n_blocks = _cdiv(n_elements, block)
    _launch(_flat_kernel, (_programs(n_blocks, like.device),),
            (*args, n_elements, n_cols, n_full_blocks, n_full_blocks * block),
            dict(BLOCK=block, ONE_WRAP=block <= n_cols, num_warps=warps, num_stages=NUM_STAGES,
                 **flags))
    return out


class ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: the fused expression in one kernel."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, *args, out_dtype=None):
        return launch_swiglu(
            args[0],
            args[1],
            out_dtype=out_dtype,
        )
