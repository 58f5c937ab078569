"""layer_norm rendered by kernel-zoo from template `norm` (layer norm).

Params: {"affine_table": false, "ahead_depth": 1, "align_edges": true, "align_rows": false, "body_tile": true, "edges_maxnreg": 80, "edges_persist": false, "elems_per_thread": 32, "hint_affine": false, "keep_in_l2": false, "loop_block": 4096, "loop_const_cols": false, "loop_full_from": 0, "loop_warps": 4, "num_stages": 3, "one_pass_stats": false, "persist_full_rows": true, "programs_per_sm": 0, "reverse_last_pass": false, "row_ahead": false, "row_lag": false, "row_prefetch": false, "row_split": 0, "single_pass_max": 32768, "split_maxnreg": 0, "tile_elems": 8192}
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


PARAMS = {'single_pass_max': 32768, 'tile_elems': 8192, 'elems_per_thread': 32, 'loop_block': 4096, 'loop_warps': 4, 'num_stages': 3, 'programs_per_sm': 0, 'keep_in_l2': False, 'align_rows': False, 'persist_full_rows': True, 'one_pass_stats': False, 'reverse_last_pass': False, 'row_split': 0, 'row_prefetch': False, 'row_ahead': False, 'loop_full_from': 0, 'hint_affine': False, 'loop_const_cols': False, 'align_edges': True, 'ahead_depth': 1, 'row_lag': False, 'split_maxnreg': 0, 'body_tile': True, 'edges_persist': False, 'affine_table': False, 'edges_maxnreg': 80}
SUPPORTS_ANY_DIM = False
SINGLE_PASS_MAX = 32768
TILE_ELEMS = 8192
ELEMS_PER_THREAD = 32
LOOP_BLOCK = 4096
LOOP_WARPS = 4
NUM_STAGES = 3
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
    xf = x.to(tl.float32)
    mean = tl.sum(xf, axis=1) / n_cols
    xc = tl.where(mask, xf - mean[:, None], 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=1) / n_cols + eps)
    y = xc * rstd[:, None]
    if HAS_W:
        y = y * w_tile
    if HAS_B:
        y = y + b_tile
    tl.store(y_ptr + out_off, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _row_layout(seg, n_cols, ALIGN: tl.constexpr):
    """Where a row's 16-byte aligned body starts (`body`), how many elements precede it (`head`)
    and how many of its elements the vector loads cover (`limit`, a multiple of ALIGN)."""
    if ALIGN > 1:
        head = ((ALIGN - seg % ALIGN) % ALIGN).to(tl.int32)
        head = tl.minimum(head, n_cols)
        body = tl.multiple_of(seg + head, ALIGN)
        limit = ((n_cols - head) // ALIGN) * ALIGN
    else:
        head = (seg * 0).to(tl.int32)
        body = seg
        limit = n_cols
    return head, body, limit


@triton.jit
def _row_edges(head, limit, n_cols, ALIGN: tl.constexpr):
    """The columns (`e_col`) and mask (`e_mask`) of 2 * ALIGN lanes per row: the first ALIGN the
    `head` elements before the row's body, the rest the fewer than ALIGN after its `limit`."""
    lane = tl.arange(0, 2 * ALIGN)
    in_head = lane[None, :] < ALIGN
    e_col = tl.where(in_head, lane[None, :], (head + limit)[:, None] + lane[None, :] - ALIGN)
    e_mask = tl.where(in_head, lane[None, :] < head[:, None], e_col < n_cols)
    return e_col, e_mask


@triton.jit
def _norm_edges_kernel(
    x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, s_ptr, n_rows, n_cols, eps,
    BLOCK: tl.constexpr, ROWS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
    ALIGN: tl.constexpr,
):
    # align_edges: rows whose width breaks 16-byte alignment, every operand's row stride n_cols
    # (the launcher makes it so). A row's body starts at its first ALIGN-aligned element and
    # spans a multiple of ALIGN elements, so its masks are constant over each vector and its
    # loads and stores stay 16 bytes wide; the elements before the body (`head`, < ALIGN) and
    # after it (< ALIGN) are the edge lanes, read and written apart.
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < n_rows
    seg = tl.minimum(rows, n_rows - 1).to(tl.int64) * n_cols
    head, body, limit = _row_layout(seg, n_cols, ALIGN)
    cols = tl.arange(0, BLOCK)
    mask = row_ok[:, None] & (cols[None, :] < limit[:, None])
    offs = body[:, None] + cols[None, :]
    e_col, e_mask = _row_edges(head, limit, n_cols, ALIGN)
    e_mask = row_ok[:, None] & e_mask
    e_offs = seg[:, None] + e_col
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    x_e = tl.load(x_ptr + e_offs, mask=e_mask, other=0.0)
    xf = x.to(tl.float32)
    xf_e = x_e.to(tl.float32)
    mean = (tl.sum(xf, axis=1) + tl.sum(xf_e, axis=1)) / n_cols
    xf = tl.where(mask, xf - mean[:, None], 0.0)
    xf_e = tl.where(e_mask, xf_e - mean[:, None], 0.0)
    rstd = 1.0 / tl.sqrt((tl.sum(xf * xf, axis=1) + tl.sum(xf_e * xf_e, axis=1)) / n_cols + eps)
    y = xf * rstd[:, None]
    y_e = xf_e * rstd[:, None]
    # the affine vectors at each lane's column: the body's shifted by the row's head
    w_col = head[:, None] + cols[None, :]
    if HAS_W:
        y = y * tl.load(w_ptr + w_col, mask=mask, other=0.0).to(tl.float32)
        y_e = y_e * tl.load(w_ptr + e_col, mask=e_mask, other=0.0).to(tl.float32)
    if HAS_B:
        y = y + tl.load(b_ptr + w_col, mask=mask, other=0.0).to(tl.float32)
        y_e = y_e + tl.load(b_ptr + e_col, mask=e_mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)
    y = y_e
    tl.store(y_ptr + e_offs, y.to(y_ptr.dtype.element_ty), mask=e_mask)


@triton.jit
def _norm_looped_kernel(
    x_ptr, r_ptr, w_ptr, b_ptr, y_ptr, s_ptr, n_cols_u, x_stride_u, r_stride_u, eps,
    BLOCK: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr, UNIT: tl.constexpr,
):
    n_cols = n_cols_u * UNIT
    x_stride = x_stride_u * UNIT
    r_stride = r_stride_u * UNIT
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    # Pass 1 reads x (and the residual, writing their rounded sum); the passes after it read the
    # row again: from x, or from the sum just written, kept in L2 where the hint allows.
    src_ptr = x_ptr + row * x_stride
    acc = tl.zeros([1, BLOCK], tl.float32)
    for start in tl.range(0, n_cols, BLOCK, num_stages=3):
        offs = start + cols[None, :]
        m = offs < n_cols
        x = tl.load(x_ptr + row * x_stride + offs, mask=m, other=0.0)
        xf = x.to(tl.float32)
        acc += xf
    mean = tl.sum(acc, axis=1) / n_cols
    # A second statistics pass around the mean: E[x^2] - mean^2 loses the variance when the
    # mean is large against the spread.
    acc = tl.zeros([1, BLOCK], tl.float32)
    for start in tl.range(0, n_cols, BLOCK, num_stages=3):
        offs = start + cols[None, :]
        m = offs < n_cols
        xf = tl.load(src_ptr + offs, mask=m, other=0.0).to(tl.float32)
        xc = tl.where(m, xf - mean[:, None], 0.0)
        acc += xc * xc
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=1) / n_cols + eps)
    for start in tl.range(0, n_cols, BLOCK, num_stages=3):
        offs = start + cols[None, :]
        m = offs < n_cols
        xf = tl.load(src_ptr + offs, mask=m, other=0.0).to(tl.float32)
        y = (xf - mean[:, None]) * rstd[:, None]
        if HAS_W:
            y = y * tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
        if HAS_B:
            y = y + tl.load(b_ptr + offs, mask=m, other=0.0).to(tl.float32)
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
        raise TypeError(f"layer_norm: unsupported dtype {x.dtype}")
    for name, vec in (("weight", weight), ("bias", bias)):
        if vec is not None and vec.numel() != n_cols:
            raise ValueError(f"layer_norm: {name} has {vec.numel()} elements, expected {n_cols}")
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
    block = _next_pow2(n_cols)
    edges = True
    if edges and n_cols % vec != 0 and block <= SINGLE_PASS_MAX:
        # align_edges: each row's aligned body and its edges apart (_norm_edges_kernel), every
        # operand's rows n_cols apart
        # body_tile: the tile spans a row's aligned body, at most n_cols // vec * vec elements
        block = _next_pow2(max(n_cols // vec * vec, 1))
        x2 = x2 if x2.stride(0) == n_cols else x2.contiguous()
        if residual is not None and r2.stride(0) != n_cols:
            r2 = r2.contiguous()
        rows = max(1, min(TILE_ELEMS // block, MAX_ROWS_PER_PROGRAM, _next_pow2(n_rows)))
        warps = max(1, min(block * rows // (32 * ELEMS_PER_THREAD), 32))
        _launch(_norm_edges_kernel, (_cdiv(n_rows, rows),),
                (x2, r2, w, b, y, s, n_rows, n_cols, eps),
                dict(BLOCK=block, ROWS=rows, HAS_W=weight is not None, HAS_B=bias is not None,
                     ALIGN=vec, num_warps=warps, num_stages=NUM_STAGES, maxnreg=80))
        return y, s
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
    if block <= SINGLE_PASS_MAX:
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
                     UNIT=unit, num_warps=LOOP_WARPS, num_stages=NUM_STAGES))
    return y, s


def _numel(normalized_shape) -> int:
    n = 1
    for size in ([normalized_shape] if isinstance(normalized_shape, int) else normalized_shape):
        n *= int(size)
    return n


def launch_layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5):
    """LayerNorm over the trailing `normalized_shape` dims (biased variance, as PyTorch)."""
    y, _ = _norm(x, None, weight, bias, _numel(normalized_shape), float(eps))
    return y


class ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: layer_norm over the last 1 dim(s)."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        self.norm = torch.nn.Module()
        self.norm.weight = torch.nn.UninitializedParameter()
        self.norm.bias = torch.nn.UninitializedParameter()


    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return launch_layer_norm(x, x.shape[-1:], self.norm.weight, self.norm.bias, 1e-05)
