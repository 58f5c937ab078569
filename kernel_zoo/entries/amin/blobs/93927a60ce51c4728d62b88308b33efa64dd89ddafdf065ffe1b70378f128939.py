"""amin over one dimension, rendered by kernel-zoo from template `reduce`.

Params: {"align_rows": false, "body_tile": false, "col_block_inner": 64, "col_tile_elems": 2048, "col_warps": 4, "elems_per_thread": 16, "evict_first": true, "loop_block": 4096, "loop_warps": 8, "max_then_index": false, "nan_combine": true, "num_stages": 4, "one_pass_min_fill": 0, "packed_keys": false, "programs_per_sm": 0, "row_block_max": 8192, "split_per_sm": 2, "tile_elems": 4096}
Traced as a rank-3 input reduced over dim 2; launch_amin(x, dim) takes any dim
of any rank. The input is viewed as (outer, R, inner) without copying: inner == 1 takes a row
kernel (one tile per row group, or a loop over wide rows), inner > 1 the column kernel; few
programs split R, and a second kernel combines the fp32 partials in a fixed order.
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


PARAMS = {'row_block_max': 8192, 'tile_elems': 4096, 'elems_per_thread': 16, 'loop_block': 4096, 'loop_warps': 8, 'num_stages': 4, 'programs_per_sm': 0, 'align_rows': False, 'col_block_inner': 64, 'col_tile_elems': 2048, 'col_warps': 4, 'split_per_sm': 2, 'evict_first': True, 'packed_keys': False, 'one_pass_min_fill': 0, 'nan_combine': True, 'max_then_index': False, 'body_tile': False}
SUPPORTS_ANY_DIM = True
OP = "amin"
ROW_BLOCK_MAX = 8192
TILE_ELEMS = 4096
ELEMS_PER_THREAD = 16
LOOP_BLOCK = 4096
LOOP_WARPS = 8
NUM_STAGES = 4
PROGRAMS_PER_SM = 0
ONE_PASS_MIN_FILL = 0
ALIGN_ROWS = False
COL_BLOCK_INNER = 64
COL_TILE_ELEMS = 2048
COL_WARPS = 4
SPLIT_PER_SM = 2
MAX_ROWS_PER_PROGRAM = 64
COMBINE_BLOCK = 1024
INDEX_NONE = tl.constexpr(2**31 - 1)  # index of a masked lane: loses every tie


@triton.jit
def _step(acc, x):
    return tl.minimum(acc, x, propagate_nan=tl.PropagateNan.ALL)


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
def _one_pass_kernel(
    x_ptr, out_ptr, n_rows, n_cols_u, stride_u,
    BLOCK: tl.constexpr, ROWS: tl.constexpr, UNIT: tl.constexpr, ALIGN: tl.constexpr,
):
    # Strides and widths arrive divided by UNIT so that the compiler sees their alignment.
    n_cols = n_cols_u * UNIT
    stride = stride_u * UNIT
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    tile = pid
    rows = tile * ROWS + tl.arange(0, ROWS)
    # Rows past the end re-read the last row (valid memory) and are never stored.
    seg = tl.minimum(rows, n_rows - 1).to(tl.int64) * stride
    head, body, limit = _row_layout(seg, n_cols, ALIGN)
    if ALIGN > 1:
        mask = cols[None, :] < limit[:, None]
        offs = body[:, None] + cols[None, :]
    else:
        mask = (cols < limit)[None, :]
        offs = seg[:, None] + cols[None, :]
    acc_v = tl.load(x_ptr + offs, mask=mask, other=float("inf"), eviction_policy="evict_first").to(tl.float32)
    res_v = tl.reduce(acc_v, 1, _step)

    if ALIGN > 1:
        # The few elements before the aligned body and after its last full vector.
        lane = tl.arange(0, 2 * ALIGN)
        in_head = lane < ALIGN
        col = tl.where(in_head[None, :], lane[None, :],
                       head[:, None] + limit[:, None] + lane[None, :] - ALIGN)
        edge_mask = (in_head[None, :] & (lane[None, :] < head[:, None])) | (
            ~in_head[None, :] & (col < n_cols))
        edge_v = tl.load(x_ptr + seg[:, None] + col, mask=edge_mask,
                         other=float("inf")).to(tl.float32)
        edge_v = tl.reduce(edge_v, 1, _step)

        res_v = _step(res_v, edge_v)

    tl.store(out_ptr + rows, res_v.to(out_ptr.dtype.element_ty), mask=rows < n_rows)


@triton.jit
def _looped_kernel(
    x_ptr, out_ptr, part_v_ptr, part_i_ptr, n_rows, n_cols_u, stride_u, chunk_blocks,
    BLOCK: tl.constexpr, UNIT: tl.constexpr, ALIGN: tl.constexpr, SPLIT: tl.constexpr,
):
    n_cols = n_cols_u * UNIT
    stride = stride_u * UNIT
    row = tl.program_id(0)
    part = tl.program_id(1)
    seg = row.to(tl.int64) * stride
    head, body, limit = _row_layout(seg, n_cols, ALIGN)
    cols = tl.arange(0, BLOCK)
    if SPLIT:
        start = part * chunk_blocks * BLOCK
        stop = tl.maximum(tl.minimum(start + chunk_blocks * BLOCK, limit), start)
    else:
        start = part * 0
        stop = limit
    full_stop = start + ((stop - start) // BLOCK) * BLOCK
    acc_v = tl.full([BLOCK], float("inf"), tl.float32)

    # Full tiles need no mask, so every load is a full vector; one masked tile ends the range.
    for k in tl.range(start, full_stop, BLOCK, num_stages=4):
        x = tl.load(x_ptr + body + k + cols, eviction_policy="evict_first").to(tl.float32)
        acc_v = _step(acc_v, x)

    pos = full_stop + cols
    x = tl.load(x_ptr + body + pos, mask=pos < stop, other=float("inf"), eviction_policy="evict_first").to(tl.float32)
    acc_v = _step(acc_v, x)

    res_v = tl.reduce(acc_v, 0, _step)

    if ALIGN > 1:
        lane = tl.arange(0, 2 * ALIGN)
        in_head = lane < ALIGN
        col = tl.where(in_head, lane, head + limit + lane - ALIGN)
        # Only the first part reads the edges (scalar limits: the interpreter keeps masks bool).
        edge_end = tl.where(part == 0, n_cols, 0)
        edge_mask = (in_head & (lane < tl.minimum(head, edge_end))) | (~in_head & (col < edge_end))
        edge_v = tl.load(x_ptr + seg + col, mask=edge_mask, other=float("inf")).to(tl.float32)
        edge_v = tl.reduce(edge_v, 0, _step)

        res_v = _step(res_v, edge_v)

    if SPLIT:
        tl.store(part_v_ptr + part * n_rows + row, res_v)
    else:
        tl.store(out_ptr + row, res_v.to(out_ptr.dtype.element_ty))


@triton.jit
def _columns_kernel(
    x_ptr, out_ptr, part_v_ptr, part_i_ptr, n_red, n_inner_u, stride_o_u, stride_r_u,
    inner_blocks, chunk_blocks, n_out,
    BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, UNIT: tl.constexpr, SPLIT: tl.constexpr,
    EVEN_I: tl.constexpr,
):
    n_inner = n_inner_u * UNIT
    stride_r = stride_r_u * UNIT
    pid = tl.program_id(0)
    part = tl.program_id(1)
    outer = pid // inner_blocks
    cols = (pid % inner_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    col_mask = cols < n_inner
    base = x_ptr + outer.to(tl.int64) * (stride_o_u * UNIT) + cols
    start = part * chunk_blocks * BLOCK_R
    stop = tl.minimum(start + chunk_blocks * BLOCK_R, n_red)
    full_stop = start + ((stop - start) // BLOCK_R) * BLOCK_R
    red = tl.arange(0, BLOCK_R)
    acc_v = tl.full([BLOCK_R, BLOCK_I], float("inf"), tl.float32)

    # Each step reads BLOCK_R rows of BLOCK_I contiguous columns: coalesced, one accumulator per
    # lane, one cross-row reduction at the end. Full steps load with no row mask (and no mask at
    # all when the column blocks tile the inner dim: EVEN_I); one masked step ends the range.
    for r0 in tl.range(start, full_stop, BLOCK_R, num_stages=4):
        r = r0 + red
        ptrs = base[None, :] + r.to(tl.int64)[:, None] * stride_r
        if EVEN_I:
            x = tl.load(ptrs, eviction_policy="evict_first").to(tl.float32)
        else:
            x = tl.load(ptrs, mask=col_mask[None, :], other=float("inf"), eviction_policy="evict_first").to(tl.float32)
        acc_v = _step(acc_v, x)

    r = full_stop + red
    mask = (r < stop)[:, None] & col_mask[None, :]
    x = tl.load(base[None, :] + r.to(tl.int64)[:, None] * stride_r, mask=mask,
                other=float("inf"), eviction_policy="evict_first").to(tl.float32)
    acc_v = _step(acc_v, x)

    res_v = tl.reduce(acc_v, 0, _step)

    out_offs = outer.to(tl.int64) * n_inner + cols
    if SPLIT:
        tl.store(part_v_ptr + part * n_out + out_offs, res_v, mask=col_mask)
    else:
        tl.store(out_ptr + out_offs, res_v.to(out_ptr.dtype.element_ty), mask=col_mask)


@triton.jit
def _combine_kernel(part_v_ptr, part_i_ptr, out_ptr, n_out, n_parts, n_red, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_out
    acc_v = tl.full([BLOCK], float("inf"), tl.float32)

    # Parts in order of their range: for argmax a strict > keeps the earlier part's index on ties.
    for part in range(0, n_parts):
        v = tl.load(part_v_ptr + part * n_out + offs, mask=mask, other=float("inf"))
        acc_v = _step(acc_v, v)

    tl.store(out_ptr + offs, acc_v.to(out_ptr.dtype.element_ty), mask=mask)


@functools.lru_cache(maxsize=None)
def _sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4  # Triton's interpreter: a small machine, so small grids reach every path
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _merged(sizes, strides):
    """(elements, stride) of dims that walk memory with one stride, or None when they cannot."""
    kept = [(n, s) for n, s in zip(sizes, strides) if n != 1]
    numel = 1
    for n, _ in kept:
        numel *= n
    if not kept:
        return numel, 1
    for (_, s_outer), (n_inner, s_inner) in zip(kept, kept[1:]):
        if s_outer != s_inner * n_inner:
            return None
    return numel, kept[-1][1]


def _as_3d(x: torch.Tensor, dim: int):
    """(outer, R, inner, outer stride, R stride) of a copy-free view, or None."""
    sizes, strides = list(x.shape), list(x.stride())
    outer = _merged(sizes[:dim], strides[:dim])
    inner = _merged(sizes[dim + 1:], strides[dim + 1:])
    if outer is None or inner is None or (inner[0] > 1 and inner[1] != 1):
        return None
    return outer[0], sizes[dim], inner[0], outer[1], strides[dim]


def _reduce(x: torch.Tensor, dim: int, op: str) -> torch.Tensor:
    if x.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"launch_{op}: unsupported dtype {x.dtype}; use float32, float16 or "
                        "bfloat16")
    rank = x.dim()
    if not -max(rank, 1) <= dim < max(rank, 1):
        raise IndexError(f"launch_{op}: dim {dim} is out of range for a rank-{rank} input")
    dim %= max(rank, 1)
    out_shape = tuple(x.shape[:dim]) + tuple(x.shape[dim + 1:])
    out_dtype = torch.int64 if op == "argmax" else x.dtype
    out = torch.empty(out_shape, dtype=out_dtype, device=x.device)
    if rank == 0:
        x = x.reshape(1)
    n_red = x.shape[dim]
    if n_red == 0 and op in ("amax", "amin", "argmax"):
        raise ValueError(f"launch_{op}: cannot reduce an empty dim ({dim} of {tuple(x.shape)})")
    if out.numel() == 0:
        return out
    view = _as_3d(x, dim)
    if view is None:
        x = x.contiguous()  # a view (outer, R, inner) with contiguous inner dims needs a copy here
        view = _as_3d(x, dim)
    outer, n_red, inner, stride_o, stride_r = view
    itemsize = x.element_size()
    device_index = x.device.index if x.device.index is not None else 0
    target = _sm_count(device_index) * SPLIT_PER_SM
    if inner == 1 and (n_red <= 1 or stride_r == 1):
        _launch_rows(x, out, outer, n_red, stride_o if outer > 1 else n_red, itemsize,
                     device_index, target)
    else:
        _launch_columns(x, out, outer, n_red, inner, stride_o if outer > 1 else 0, stride_r,
                        itemsize, target)
    return out


def _launch_rows(x, out, n_rows, n_cols, stride, itemsize, device_index, target):
    vec = 16 // itemsize
    unit = _unit((n_cols, stride), x.data_ptr(), itemsize)
    align = 1
    if ALIGN_ROWS and unit < vec and x.data_ptr() % 16 == 0 and n_cols >= 2 * vec:
        align, unit = vec, 1
    block = _next_pow2(max(n_cols, 1))
    fills = n_cols <= LOOP_BLOCK or n_cols * 100 >= block * ONE_PASS_MIN_FILL
    if block <= ROW_BLOCK_MAX and fills:
        rows = max(1, min(TILE_ELEMS // block, MAX_ROWS_PER_PROGRAM,
                          _next_pow2(n_rows)))
        warps = max(1, min(block * rows // (32 * ELEMS_PER_THREAD), 16))
        n_tiles = _cdiv(n_rows, rows)
        grid = (min(n_tiles, _sm_count(device_index) * PROGRAMS_PER_SM) if PROGRAMS_PER_SM
                else n_tiles,)
        _launch(_one_pass_kernel, grid, (x, out, n_rows, n_cols // unit, stride // unit),
                dict(BLOCK=block, ROWS=rows, UNIT=unit, ALIGN=align, num_warps=warps))
        return
    n_blocks = _cdiv(n_cols, LOOP_BLOCK)
    parts = min(_cdiv(target, n_rows), n_blocks) if n_rows < target else 1
    chunk_blocks = _cdiv(n_blocks, parts)
    parts = _cdiv(n_blocks, chunk_blocks)
    part_v, part_i = _parts(parts, n_rows, out)
    _launch(_looped_kernel, (n_rows, parts),
            (x, out, part_v, part_i, n_rows, n_cols // unit, stride // unit, chunk_blocks),
            dict(BLOCK=LOOP_BLOCK, UNIT=unit, ALIGN=align, SPLIT=parts > 1,
                 num_warps=LOOP_WARPS, num_stages=NUM_STAGES))
    if parts > 1:
        _combine(part_v, part_i, out, parts, n_rows, n_cols)


def _launch_columns(x, out, outer, n_red, inner, stride_o, stride_r, itemsize, target):
    unit = _unit((inner, stride_o, stride_r), x.data_ptr(), itemsize)
    block_i = min(COL_BLOCK_INNER, _next_pow2(inner))
    block_r = max(1, min(COL_TILE_ELEMS // block_i, _next_pow2(max(n_red, 1))))
    warps = max(1, min(COL_WARPS, block_i * block_r // 32))
    inner_blocks = _cdiv(inner, block_i)
    programs = outer * inner_blocks
    red_blocks = max(1, _cdiv(n_red, block_r))
    parts = min(_cdiv(target, programs), red_blocks) if programs < target else 1
    chunk_blocks = _cdiv(red_blocks, parts)
    parts = _cdiv(red_blocks, chunk_blocks)
    n_out = outer * inner
    part_v, part_i = _parts(parts, n_out, out)
    _launch(_columns_kernel, (programs, parts),
            (x, out, part_v, part_i, n_red, inner // unit, stride_o // unit, stride_r // unit,
             inner_blocks, chunk_blocks, n_out),
            dict(BLOCK_R=block_r, BLOCK_I=block_i, UNIT=unit, SPLIT=parts > 1,
                 EVEN_I=inner % block_i == 0, num_warps=warps, num_stages=NUM_STAGES))
    if parts > 1:
        _combine(part_v, part_i, out, parts, n_out, n_red)


def _parts(parts: int, n_out: int, out: torch.Tensor):
    """fp32 partial results (and int32 partial indices for argmax) of each part, or placeholders."""
    if parts == 1:
        return out, out
    part_v = torch.empty((parts, n_out), dtype=torch.float32, device=out.device)
    part_i = (torch.empty((parts, n_out), dtype=torch.int32, device=out.device)
              if OP == "argmax" else part_v)
    return part_v, part_i


def _combine(part_v, part_i, out, parts: int, n_out: int, n_red: int) -> None:
    _launch(_combine_kernel, (_cdiv(n_out, COMBINE_BLOCK),),
            (part_v, part_i, out, n_out, parts, n_red), dict(BLOCK=COMBINE_BLOCK, num_warps=4))


def launch_amin(x: torch.Tensor, dim: int) -> torch.Tensor:
    """torch.amin(x, dim) with keepdim=False, for float32, float16 and bfloat16 inputs."""
    return _reduce(x, dim, OP)


class ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: amin over one dim."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        # KernelBench's reduction Model takes its dim as the constructor argument; one given wins
        # over the traced dim, so one candidate serves task shapes that reduce different dims.
        self.dim = int(args[0]) if args else int(kwargs.get("dim", 2))


    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return launch_amin(x, self.dim)
