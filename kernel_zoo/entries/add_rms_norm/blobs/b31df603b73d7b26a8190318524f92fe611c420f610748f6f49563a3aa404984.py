"""add_rms_norm rendered by kernel-zoo from template `norm` (rms norm, fused residual add).

Params: {"affine_table": false, "ahead_depth": 1, "align_edges": false, "align_rows": false, "body_tile": false, "edges_maxnreg": 0, "edges_persist": false, "elems_per_thread": 16, "hint_affine": true, "keep_in_l2": true, "loop_block": 2048, "loop_const_cols": true, "loop_full_from": 4096, "loop_warps": 8, "num_stages": 1, "one_pass_stats": false, "persist_full_rows": true, "programs_per_sm": 0, "reverse_last_pass": false, "row_ahead": false, "row_lag": false, "row_prefetch": false, "row_split": 0, "single_pass_max": 16384, "split_maxnreg": 0, "tile_elems": 4096}
Rows up to SINGLE_PASS_MAX wide (after rounding to a power of two) are read once, normalized in
registers in float32 and written once; wider rows take the looped kernel (statistics passes, then
a normalize pass).
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


PARAMS = {'single_pass_max': 16384, 'tile_elems': 4096, 'elems_per_thread': 16, 'loop_block': 2048, 'loop_warps': 8, 'num_stages': 1, 'programs_per_sm': 0, 'keep_in_l2': True, 'align_rows': False, 'persist_full_rows': True, 'one_pass_stats': False, 'reverse_last_pass': False, 'row_split': 0, 'row_prefetch': False, 'row_ahead': False, 'loop_full_from': 4096, 'hint_affine': True, 'loop_const_cols': True, 'align_edges': False, 'ahead_depth': 1, 'row_lag': False, 'split_maxnreg': 0, 'body_tile': False, 'edges_persist': False, 'affine_table': False, 'edges_maxnreg': 0}
SUPPORTS_ANY_DIM = False
SINGLE_PASS_MAX = 16384
TILE_ELEMS = 4096
ELEMS_PER_THREAD = 16
LOOP_BLOCK = 2048
LOOP_WARPS = 8
NUM_STAGES = 1
PROGRAMS_PER_SM = 0
PERSIST_FULL_ROWS = True  # without one: moot
ALIGN_ROWS = False
MAX_ROWS_PER_PROGRAM = 64


@triton.jit
def _norm_one_pass_kernel(
    x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, s_ptr, n_rows, n_cols_u, x_stride_u, r_stride_u, eps,
    BLOCK: tl.constexpr, ROWS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
    ALIGN: tl.constexpr, UNIT: tl.constexpr, PERSISTENT: tl.constexpr,
):
    # The width and strides arrive divided by UNIT (`_unit`), so the compiler sees that rows
    # start 16-byte aligned and keeps loads and stores vectorized.
    n_cols = n_cols_u * UNIT
    x_stride = x_stride_u * UNIT
    r_stride = r_stride_u * UNIT
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    col_mask = cols < n_cols
    if ALIGN == 1:
        # The affine vectors are loaded once per program and reused for every row it normalizes.
        if HAS_W:
            w_tile = tl.load(w_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)[None, :]
        if HAS_B:
            b_tile = tl.load(b_ptr + cols, mask=col_mask, other=0.0).to(tl.float32)[None, :]
    tile = pid
    rows = tile * ROWS + tl.arange(0, ROWS)
    rows64 = rows.to(tl.int64)
    if ALIGN > 1:
        # The row stride breaks 16-byte alignment (a width of 4097, say): each row's tile starts at
        # the aligned address below the row and masks the lanes outside it, so loads and stores stay
        # 16 bytes wide. The launcher makes every operand's row stride n_cols, so one shift serves
        # them all; the affine vectors are read at the shifted column of each lane.
        start = rows64 * n_cols
        shift = start % ALIGN
        base = tl.multiple_of(start - shift, ALIGN)
        col = cols[None, :] - shift[:, None]
        mask = (rows < n_rows)[:, None] & (col >= 0) & (col < n_cols)
        in_off = base[:, None] + cols[None, :]
        out_off = in_off
        r_off = in_off
        if HAS_W:
            w_tile = tl.load(w_ptr + col, mask=mask, other=0.0).to(tl.float32)
        if HAS_B:
            b_tile = tl.load(b_ptr + col, mask=mask, other=0.0).to(tl.float32)
    else:
        mask = (rows < n_rows)[:, None] & col_mask[None, :]
        in_off = rows64[:, None] * x_stride + cols[None, :]
        r_off = rows64[:, None] * r_stride + cols[None, :]
        # Outputs are contiguous (n_rows, n_cols), allocated by the launcher.
        out_off = rows64[:, None] * n_cols + cols[None, :]
    x = tl.load(x_ptr + in_off, mask=mask, other=0.0)
    r = tl.load(r_ptr + r_off, mask=mask, other=0.0)
    # The sum is rounded to the output dtype first, as the unfused `x + residual` would be, and
    # the normalization reads that rounded sum.
    s = (x.to(tl.float32) + r.to(tl.float32)).to(s_ptr.dtype.element_ty)
    tl.store(s_ptr + out_off, s, mask=mask)
    xf = s.to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(xf * xf, axis=1) / n_cols + eps)
    y = xf * rstd[:, None]
    if HAS_W:
        y = y * w_tile
    if HAS_B:
        y = y + b_tile
    tl.store(y_ptr + out_off, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _norm_looped_kernel(
    x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, s_ptr, n_cols_u, x_stride_u, r_stride_u, eps,
    BLOCK: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr, UNIT: tl.constexpr,
    CONST_COLS: tl.constexpr,
):
    # A width that is a whole number of blocks arrives as a constant (loop_const_cols): the
    # loops' bounds are known, so the compiler unrolls them and the masks fold away.
    if CONST_COLS > 0:
        n_cols = CONST_COLS
    else:
        n_cols = n_cols_u * UNIT
    x_stride = x_stride_u * UNIT
    r_stride = r_stride_u * UNIT
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    # Pass 1 reads x (and the residual, writing their rounded sum); the passes after it read the
    # row again: from x, or from the sum just written, kept in L2 where the hint allows.
    src_ptr = s_ptr + row * n_cols
    acc = tl.zeros([1, BLOCK], tl.float32)
    for start in tl.range(0, n_cols, BLOCK, num_stages=1):
        offs = start + cols[None, :]
        m = offs < n_cols
        x = tl.load(x_ptr + row * x_stride + offs, mask=m, other=0.0)
        r = tl.load(r_ptr + row * r_stride + offs, mask=m, other=0.0)
        s = (x.to(tl.float32) + r.to(tl.float32)).to(s_ptr.dtype.element_ty)
        tl.store(s_ptr + row * n_cols + offs, s, mask=m, eviction_policy="evict_last")
        xf = s.to(tl.float32)
        acc += xf * xf
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=1) / n_cols + eps)
    for start in tl.range(0, n_cols, BLOCK, num_stages=1):
        offs = start + cols[None, :]
        m = offs < n_cols
        xf = tl.load(src_ptr + offs, mask=m, other=0.0, eviction_policy="evict_first").to(tl.float32)
        y = xf * rstd[:, None]
        if HAS_W:
            y = y * tl.load(w_ptr + offs, mask=m, other=0.0, eviction_policy="evict_last").to(tl.float32)
        if HAS_B:
            y = y + tl.load(b_ptr + offs, mask=m, other=0.0, eviction_policy="evict_last").to(tl.float32)
        tl.store(y_ptr + row * n_cols + offs, y.to(y_ptr.dtype.element_ty), mask=m)


@functools.lru_cache(maxsize=None)
def _sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4  # Triton's interpreter: a small machine, so small grids reach every path
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _rows(x: torch.Tensor, n_cols: int) -> torch.Tensor:
    # a 2-D input with unit column stride is its own row view (no reshape: host time per call)
    x2 = x if x.dim() == 2 and x.shape[1] == n_cols else x.reshape(-1, n_cols)
    if x2.stride(-1) != 1:
        x2 = x2.contiguous()
    return x2


def _norm(x, residual, weight, bias, n_cols: int, eps: float):
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"add_rms_norm: unsupported dtype {x.dtype}")
    for name, vec in (("weight", weight), ("bias", bias)):
        if vec is not None and vec.numel() != n_cols:
            raise ValueError(f"add_rms_norm: {name} has {vec.numel()} elements, expected {n_cols}")
    x2 = _rows(x, n_cols)
    r2 = _rows(residual, n_cols) if residual is not None else x2
    w = x2 if weight is None else weight if weight.dim() == 1 else weight.reshape(-1)
    b = x2 if bias is None else bias if bias.dim() == 1 else bias.reshape(-1)
    n_rows = x2.shape[0]
    # outputs in x's shape, contiguous: the kernels write them as n_rows x n_cols, row-major
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    s = torch.empty(x.shape, dtype=x.dtype, device=x.device) if residual is not None else y
    if n_rows == 0 or n_cols == 0:
        return y, s
    vec = 16 // x.element_size()
    align = vec if ALIGN_ROWS and n_cols % vec != 0 else 1
    if align > 1 and _next_pow2(n_cols + align - 1) <= SINGLE_PASS_MAX:
        # the aligned one-pass tile shares one shift between operands: same row strides
        if x2.stride(0) != n_cols:
            x2 = x2.contiguous()
        if residual is not None and r2.stride(0) != n_cols:
            r2 = r2.contiguous()
    else:
        align = 1
    block = _next_pow2(n_cols + align - 1)
    unit = _unit((n_cols, x2.stride(0), r2.stride(0)), x2.data_ptr(), x.element_size())
    ints = (n_cols // unit, x2.stride(0) // unit, r2.stride(0) // unit)
    # full rows this wide take the looped kernel (loop_full_from), emptier ones the one pass
    loop_full = n_cols >= 4096 and 4 * n_cols >= 3 * block
    if block <= SINGLE_PASS_MAX and not loop_full:
        rows = max(1, min(TILE_ELEMS // block, MAX_ROWS_PER_PROGRAM, _next_pow2(n_rows)))
        warps = max(1, min(block * rows // (32 * ELEMS_PER_THREAD), 32))
        n_tiles = _cdiv(n_rows, rows)
        persistent = PROGRAMS_PER_SM > 0 and (PERSIST_FULL_ROWS or 4 * n_cols < 3 * block)
        if persistent:
            device_index = x.device.index if x.device.index is not None else 0
            grid = (min(n_tiles, _sm_count(device_index) * PROGRAMS_PER_SM),)
        else:
            grid = (n_tiles,)
        _launch(_norm_one_pass_kernel, grid,
                (x2, r2, w, b, y, s, n_rows, *ints, eps),
                dict(BLOCK=block, ROWS=rows, HAS_W=weight is not None, HAS_B=bias is not None,
                     ALIGN=align, UNIT=unit, PERSISTENT=persistent, num_warps=warps,
                     num_stages=NUM_STAGES))
    else:
        _launch(_norm_looped_kernel, (n_rows,),
                (x2, r2, w, b, y, s, *ints, eps),
                dict(BLOCK=LOOP_BLOCK, HAS_W=weight is not None, HAS_B=bias is not None,
                     UNIT=unit, num_warps=LOOP_WARPS, num_stages=NUM_STAGES,
                     CONST_COLS=n_cols if n_cols % LOOP_BLOCK == 0 else 0))
    return y, s


def _numel(normalized_shape) -> int:
    n = 1
    for size in ([normalized_shape] if isinstance(normalized_shape, int) else normalized_shape):
        n *= int(size)
    return n


def launch_add_rms_norm(x, residual, weight, eps=1e-6):
    """(rms_norm(x + residual) over weight's elements, x + residual), in one pass."""
    if residual.shape != x.shape:
        raise ValueError(f"add_rms_norm: residual {tuple(residual.shape)} != x {tuple(x.shape)}")
    return _norm(x, residual, weight, None, weight.numel(), float(eps))


class ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: add_rms_norm over the last 1 dim(s)."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.norm = torch.nn.Module()
        self.norm.weight = torch.nn.UninitializedParameter()


    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        return launch_add_rms_norm(x, residual, self.norm.weight, 1e-06)
