"""Cross-entropy forward (mean over non-ignored rows), rendered by kernel-zoo from template
`cross_entropy`.

Params: {"align_rows": true, "block": 4096, "evict_first": true, "final_block": 1024, "final_warps": 4, "flat_per_sm": 0, "num_stages": 2, "pdl": false, "row_align": 16, "split_per_sm": 2, "vector_max": true, "warps": 8}
Pass 1 reads each row once and keeps an online log-sum-exp per lane (one exp per element); few rows
split the vocabulary into parts. Pass 2, one program, combines the parts, gathers the target logits
and takes the mean in a fixed order (deterministic, no atomics).
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


PARAMS = {'block': 4096, 'warps': 8, 'num_stages': 2, 'split_per_sm': 2, 'align_rows': True, 'evict_first': True, 'final_block': 1024, 'final_warps': 4, 'flat_per_sm': 0, 'row_align': 16, 'pdl': False, 'vector_max': True}
BLOCK = 4096
WARPS = 8
NUM_STAGES = 2
SPLIT_PER_SM = 2
ALIGN_ROWS = True
ROW_ALIGN = 16
FINAL_BLOCK = 1024
FINAL_WARPS = 4
FLAT_PER_SM = 0
PDL = False
# Start of every lane's running max: finite, so exp(-|x - m|) of a masked -inf lane is 0, never
# NaN; logits below it do not count (no real model has any).
FLOOR = tl.constexpr(-1.0e38)
LOG2E = tl.constexpr(1.4426950408889634)


@triton.jit
def _online_step(m, s, x):
    # One exp per element: exp(-|x - m|) is the new term when x <= m, and rescales the old sum
    # when x is the new maximum.
    d = x - m
    e = tl.exp(-tl.abs(d))
    s = tl.where(d > 0, s * e + 1.0, s + e)
    return tl.maximum(m, x), s


@triton.jit
def _exp2_ftz(x, ON_GPU: tl.constexpr):
    # 2^x with results below 2^-126 flushed to 0: one MUFU instruction, where exp2's denormal
    # fix-up adds a compare and two predicated multiplies. A term that small beside the row's
    # maximum term (1) changes no fp32 sum.
    if ON_GPU:
        return tl.inline_asm_elementwise("ex2.approx.ftz.f32 $0, $1;", "=f,f", [x],
                                         dtype=tl.float32, is_pure=True, pack=1)
    else:
        return tl.math.exp2(x)


@triton.jit
def _vector_step(m, s, x, ON_GPU: tl.constexpr):
    # x: (lanes, VEC), each lane's VEC elements one thread's 16-byte vector. The lane's max over
    # its vector first (no exchange between threads), then one exp2 and one add per element
    # against the new max, and one rescale of the lane's sum per vector: about 5 instructions an
    # element where _online_step's compare, select and rescale take 12 or more.
    m_new = tl.maximum(m, tl.max(x, 1))
    shift = m_new * LOG2E
    s = s * _exp2_ftz(m * LOG2E - shift, ON_GPU) + tl.sum(
        _exp2_ftz(x * LOG2E - shift[:, None], ON_GPU), 1)
    return m_new, s


@triton.jit
def _lanes_total(m, s):
    """The lanes' running (max, sum) as one: the max over lanes and the sum rescaled to it."""
    row_max = tl.max(m, 0)
    return row_max, tl.sum(s * tl.exp(m - row_max), 0)


@triton.jit
def _row_layout(seg, n_cols, ALIGN: tl.constexpr):
    """Where a row's body aligned to ALIGN elements starts (`body`), how many elements precede it
    (`head`) and how many of its elements the vector loads cover (`limit`, a multiple of ALIGN)."""
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
def _lse_kernel(
    logits_ptr, target_ptr, loss_ptr, part_m_ptr, part_s_ptr, n_cols_u, stride_u, chunk_blocks,
    ignore_index,
    BLOCK: tl.constexpr, UNIT: tl.constexpr, ALIGN: tl.constexpr, SPLIT: tl.constexpr,
    PDL: tl.constexpr, VEC: tl.constexpr, ON_GPU: tl.constexpr,
):
    if PDL:
        # The mean kernel may be scheduled once every program here has started; it waits for
        # this grid to finish (gdc_wait) before it reads a loss.
        tl.extra.cuda.gdc_launch_dependents()
    n_cols = n_cols_u * UNIT
    stride = stride_u * UNIT
    row = tl.program_id(0)
    part = tl.program_id(1)
    n_parts = tl.num_programs(1)
    target = tl.load(target_ptr + row)
    counted = target != ignore_index
    seg = row.to(tl.int64) * stride
    head, body, limit = _row_layout(seg, n_cols, ALIGN)
    if SPLIT:
        start = part * chunk_blocks * BLOCK
        stop = tl.maximum(tl.minimum(start + chunk_blocks * BLOCK, limit), start)
    else:
        start = part * 0
        stop = limit
        # Issued first, so its latency hides behind the row's stream.
        in_range = counted & (target >= 0) & (target < n_cols)
        x_target = tl.load(logits_ptr + seg + target, mask=in_range, other=0.0).to(tl.float32)
    stop = tl.where(counted, stop, start)  # an ignored row is never read
    full_stop = start + ((stop - start) // BLOCK) * BLOCK
    # (lanes, VEC) tiles: each lane one thread's 16-byte vector of the row
    cols = tl.arange(0, BLOCK // VEC)[:, None] * VEC + tl.arange(0, VEC)[None, :]
    m = tl.full([BLOCK // VEC], FLOOR, tl.float32)
    s = tl.zeros([BLOCK // VEC], tl.float32)
    if ALIGN > 1:
        # The elements before the aligned body and after its last full line join the first
        # part's lanes first, from one mostly masked tile issued before the stream: no
        # reductions of their own (GPU round 152; they had two after the stream).
        in_head = cols < ALIGN
        col = tl.where(in_head, cols, head + limit + cols - ALIGN)
        edge_end = tl.where(counted & (part == 0), n_cols, 0)
        edge_mask = ((in_head & (cols < tl.minimum(head, edge_end)))
                     | (~in_head & (cols < 2 * ALIGN) & (col < edge_end)))
        edge = tl.load(logits_ptr + seg + col, mask=edge_mask, other=float("-inf"))
        m, s = _vector_step(m, s, edge.to(tl.float32), ON_GPU)
    # Full tiles need no mask, so every load is a full vector; one masked tile ends the range.
    for k in tl.range(start, full_stop, BLOCK, num_stages=2):
        x = tl.load(logits_ptr + body + k + cols, eviction_policy="evict_first").to(tl.float32)
        m, s = _vector_step(m, s, x, ON_GPU)
    pos = full_stop + cols
    x = tl.load(logits_ptr + body + pos, mask=pos < stop, other=float("-inf"), eviction_policy="evict_first")
    m, s = _vector_step(m, s, x.to(tl.float32), ON_GPU)
    row_max, row_sum = _lanes_total(m, s)
    if SPLIT:
        tl.store(part_m_ptr + row * n_parts + part, row_max)
        tl.store(part_s_ptr + row * n_parts + part, row_sum)
    else:
        # An ignored row has no sum: log(1) keeps its (unused) loss finite.
        loss = row_max + tl.log(tl.where(counted, row_sum, 1.0)) - x_target
        tl.store(loss_ptr + row, tl.where(counted, loss, 0.0))


@triton.jit
def _flat_step(m, s, lse, x, k, end, r, b, began_before, first_ptr, n_cols,
               BLOCK: tl.constexpr, RMAX: tl.constexpr):
    """One tile (`x`, at offset `k` of the span) of a flat program joins the running (max, sum).
    When the span's row `r` ends in the tile (at `b`, by `end`), the lanes before `b` end it: its
    log-sum-exp goes to lane `r` of `lse`, or, for a row that began before the span, to the
    program's first partial; the lanes after `b` then start row `r + 1`."""
    if b <= end:
        cur = k + tl.arange(0, BLOCK) < b
        m, s = _online_step(m, s, tl.where(cur, x, float("-inf")))
        row_max, row_sum = _lanes_total(m, s)
        if began_before & (r == 0):
            tl.store(first_ptr, row_max)
            tl.store(first_ptr + 1, row_sum)
        lse = tl.where(tl.arange(0, RMAX) == r, row_max + tl.log(row_sum), lse)
        m = tl.full([BLOCK], FLOOR, tl.float32)
        s = tl.zeros([BLOCK], tl.float32)
        m, s = _online_step(m, s, tl.where(cur, float("-inf"), x))
        r += 1
        b += n_cols
    else:  # most tiles: no row ends in them
        m, s = _online_step(m, s, x)
    return m, s, lse, r, b


@triton.jit
def _flat_kernel(
    logits_ptr, target_ptr, part_ptr, n_rows, n_cols, span_blocks, ignore_index,
    BLOCK: tl.constexpr, RMAX: tl.constexpr,
):
    # Program p reads the span [p * span, (p + 1) * span) of the contiguous logits as one stream
    # of full tiles, across row ends: no pipeline drains between rows, and every program gets the
    # same number of bytes. A span holds at least a row, so a row lies in at most two spans.
    p = tl.program_id(0)
    span = span_blocks * BLOCK
    e0 = p.to(tl.int64) * span
    length = tl.minimum(n_rows.to(tl.int64) * n_cols - e0, span).to(tl.int32)
    r_first = e0 // n_cols
    # The span's rows, their targets, and the target logits of the rows wholly inside it: gathered
    # first, so their latency hides behind the stream.
    rows = r_first + tl.arange(0, RMAX)
    row_at = rows * n_cols - e0  # where each row begins, from the span's start
    on = row_at < length
    target = tl.load(target_ptr + rows, mask=on, other=ignore_index)
    whole = on & (target != ignore_index) & (row_at >= 0) & (row_at + n_cols <= length)
    in_range = whole & (target >= 0) & (target < n_cols)
    x_target = tl.load(logits_ptr + rows * n_cols + target, mask=in_range, other=0.0)
    base = logits_ptr + e0
    began_before = e0 % n_cols != 0
    first_ptr = part_ptr + p * 8 + 2
    lse = tl.zeros([RMAX], tl.float32)
    m = tl.full([BLOCK], FLOOR, tl.float32)
    s = tl.zeros([BLOCK], tl.float32)
    r = length * 0
    b = ((r_first + 1) * n_cols - e0).to(tl.int32)  # where row r ends, from the span's start
    full = (length // BLOCK) * BLOCK
    cols = tl.arange(0, BLOCK)
    for k in tl.range(0, full, BLOCK, num_stages=2):
        x = tl.load(base + k + cols, eviction_policy="evict_first").to(tl.float32)
        m, s, lse, r, b = _flat_step(m, s, lse, x, k, k + BLOCK, r, b, began_before, first_ptr,
                                     n_cols, BLOCK, RMAX)
    # The last program's span may end in a partial tile.
    x = tl.load(base + full + cols, mask=full + cols < length, other=float("-inf"), eviction_policy="evict_first")
    m, s, lse, r, b = _flat_step(m, s, lse, x.to(tl.float32), full, length, r, b, began_before,
                                 first_ptr, n_cols, BLOCK, RMAX)
    # The row still open at the span's end continues in the next span: its partial.
    row_max, row_sum = _lanes_total(m, s)
    tl.store(part_ptr + p * 8 + 4, row_max)
    tl.store(part_ptr + p * 8 + 5, row_sum)
    tl.store(part_ptr + p * 8, tl.sum(tl.where(whole, lse - x_target.to(tl.float32), 0.0), 0))
    tl.store(part_ptr + p * 8 + 1, tl.sum(whole.to(tl.int32), 0).to(tl.float32))


@triton.jit
def _flat_mean_kernel(
    logits_ptr, target_ptr, part_ptr, out_ptr, n_cols, span_blocks, n_programs, ignore_index,
    BLOCK: tl.constexpr, PROGRAMS: tl.constexpr,
):
    # One program: the spans' sums, and the rows split between two spans, in a fixed order.
    p = tl.arange(0, PROGRAMS)
    on = p < n_programs
    total = tl.load(part_ptr + p * 8, mask=on, other=0.0)
    count = tl.load(part_ptr + p * 8 + 1, mask=on, other=0.0)
    e0 = p.to(tl.int64) * span_blocks * BLOCK
    split = on & (p > 0) & (e0 % n_cols != 0)  # span p begins inside a row
    row = e0 // n_cols
    target = tl.load(target_ptr + row, mask=split, other=ignore_index)
    counted = split & (target != ignore_index)
    m1 = tl.load(part_ptr + (p - 1) * 8 + 4, mask=counted, other=FLOOR)
    s1 = tl.load(part_ptr + (p - 1) * 8 + 5, mask=counted, other=0.0)
    m2 = tl.load(part_ptr + p * 8 + 2, mask=counted, other=FLOOR)
    s2 = tl.load(part_ptr + p * 8 + 3, mask=counted, other=0.0)
    row_max = tl.maximum(m1, m2)
    row_sum = s1 * tl.exp(m1 - row_max) + s2 * tl.exp(m2 - row_max)
    in_range = counted & (target >= 0) & (target < n_cols)
    x_target = tl.load(logits_ptr + row * n_cols + target, mask=in_range, other=0.0)
    loss = row_max + tl.log(tl.where(counted, row_sum, 1.0)) - x_target.to(tl.float32)
    total += tl.where(counted, loss, 0.0)
    count += counted.to(tl.float32)
    # No counted row: 0 / 0 = NaN, as PyTorch gives.
    mean = tl.sum(total, 0) / tl.sum(count, 0)
    tl.store(out_ptr, mean.to(out_ptr.dtype.element_ty))


@triton.jit
def _mean_kernel(
    logits_ptr, target_ptr, loss_ptr, part_m_ptr, part_s_ptr, out_ptr, n_rows, n_cols, stride,
    n_parts, ignore_index,
    ROWS: tl.constexpr, PARTS: tl.constexpr, SPLIT: tl.constexpr, PDL: tl.constexpr,
):
    if PDL:
        # Launched before the row kernel ended (programmatic dependent launch): wait for it to
        # finish and its stores to be visible.
        tl.extra.cuda.gdc_wait()
    total = tl.zeros([ROWS], tl.float32)
    count = tl.zeros([ROWS], tl.int32)
    # One program, rows in order: the same sum on every call.
    for r0 in range(0, n_rows, ROWS):
        rows = r0 + tl.arange(0, ROWS)
        target = tl.load(target_ptr + rows, mask=rows < n_rows, other=ignore_index)
        counted = (rows < n_rows) & (target != ignore_index)
        if not SPLIT:
            # Every row's loss was stored (an ignored row's as 0), so this load waits for no
            # other: one round trip to memory a step, not two (GPU round 143: the mean took 5 of
            # 4099x50257's 156 us).
            loss = tl.load(loss_ptr + rows, mask=rows < n_rows, other=0.0)
        if SPLIT:
            parts = tl.arange(0, PARTS)
            part_mask = counted[:, None] & (parts < n_parts)[None, :]
            offs = rows[:, None] * n_parts + parts[None, :]
            m = tl.load(part_m_ptr + offs, mask=part_mask, other=FLOOR)
            s = tl.load(part_s_ptr + offs, mask=part_mask, other=0.0)
            row_max = tl.max(m, 1)
            row_sum = tl.sum(s * tl.exp(m - row_max[:, None]), 1)
            in_range = counted & (target >= 0) & (target < n_cols)
            x_target = tl.load(logits_ptr + rows.to(tl.int64) * stride + target, mask=in_range,
                               other=0.0).to(tl.float32)
            loss = row_max + tl.log(tl.where(counted, row_sum, 1.0)) - x_target
        total += tl.where(counted, loss, 0.0)
        count += counted.to(tl.int32)
    # No counted row: 0 / 0 = NaN, as PyTorch gives.
    mean = tl.sum(total, 0) / tl.sum(count, 0).to(tl.float32)
    tl.store(out_ptr, mean.to(out_ptr.dtype.element_ty))


@functools.lru_cache(maxsize=None)
def _sm_count(device_index: int) -> int:
    if not torch.cuda.is_available():
        return 4  # Triton's interpreter: a small machine, so small grids reach every path
    return torch.cuda.get_device_properties(device_index).multi_processor_count


@functools.lru_cache(maxsize=None)
def _pdl_capable(device_index: int) -> bool:
    """Programmatic dependent launch: a CUDA device of compute capability 9.0 or later (asked
    only for CUDA tensors, so Triton's interpreter never meets the instructions)."""
    return torch.cuda.is_available() and torch.cuda.get_device_capability(device_index)[0] >= 9


def launch_cross_entropy(logits: torch.Tensor, target: torch.Tensor,
                         ignore_index: int = -100) -> torch.Tensor:
    """F.cross_entropy(logits, target, ignore_index=ignore_index) with reduction="mean"."""
    if logits.dtype not in (torch.float32, torch.float16, torch.bfloat16):
        raise TypeError(f"launch_cross_entropy: unsupported logits dtype {logits.dtype}")
    if logits.dim() != 2 or target.dim() != 1 or target.shape[0] != logits.shape[0]:
        raise ValueError(f"launch_cross_entropy: expected (N, C) logits and (N,) targets, got "
                         f"{tuple(logits.shape)} and {tuple(target.shape)}")
    if target.dtype not in (torch.int64, torch.int32) or target.device != logits.device:
        raise TypeError("launch_cross_entropy: targets must be int64 or int32 class indices on "
                        "the logits' device")
    n_rows, n_cols = logits.shape
    if n_cols == 0:
        raise ValueError("launch_cross_entropy: logits have no classes")
    if logits.stride(1) != 1:
        logits = logits.contiguous()  # the row kernel walks contiguous classes
    if target.stride(0) != 1:
        target = target.contiguous()
    out = torch.empty((), dtype=logits.dtype, device=logits.device)
    stride = logits.stride(0) if n_rows > 1 else n_cols
    itemsize = logits.element_size()
    vec = 16 // itemsize
    unit = _unit((n_cols, stride), logits.data_ptr(), itemsize)
    align = 1
    if ALIGN_ROWS and unit < vec and logits.data_ptr() % 16 == 0 and n_cols >= 2 * vec:
        align, unit = vec, 1
        # Rows that break 16-byte alignment read their bodies from ROW_ALIGN-byte line starts
        # when that is wider (GPU round 150: 4099x50257's row kernel 150.7 -> 147.6 us; rows
        # already 16-byte aligned lost a little that way, 144.7 -> 146.8 at 50256, so they don't).
        wide = ROW_ALIGN // itemsize
        if wide > vec and logits.data_ptr() % ROW_ALIGN == 0 and n_cols >= 2 * wide:
            align = wide
    device_index = logits.device.index if logits.device.index is not None else 0
    if FLAT_PER_SM and n_rows > 1 and stride == n_cols and n_cols >= BLOCK and n_rows < 1 << 24:
        n_total = n_rows * n_cols
        span_blocks = _cdiv(_cdiv(n_total, _sm_count(device_index) * FLAT_PER_SM), BLOCK)
        span = span_blocks * BLOCK
        if span >= n_cols:  # a row lies in at most two spans
            n_programs = _cdiv(n_total, span)
            # per program: its rows' loss sum and count, its first and last rows' partials
            part = torch.empty((n_programs, 8), dtype=torch.float32, device=logits.device)
            _launch(_flat_kernel, (n_programs,),
                    (logits, target, part, n_rows, n_cols, span_blocks, ignore_index),
                    dict(BLOCK=BLOCK, RMAX=_next_pow2((span - 1) // n_cols + 2),
                         num_warps=WARPS, num_stages=NUM_STAGES))
            _launch(_flat_mean_kernel, (1,),
                    (logits, target, part, out, n_cols, span_blocks, n_programs, ignore_index),
                    dict(BLOCK=BLOCK, PROGRAMS=_next_pow2(n_programs), num_warps=FINAL_WARPS))
            return out
    target_programs = _sm_count(device_index) * SPLIT_PER_SM
    pdl = PDL and logits.is_cuda and n_rows > 0 and _pdl_capable(device_index)
    n_blocks = _cdiv(n_cols, BLOCK)
    parts = min(_cdiv(target_programs, n_rows), n_blocks) if n_rows < target_programs else 1
    chunk_blocks = _cdiv(n_blocks, parts)
    parts = _cdiv(n_blocks, chunk_blocks)
    split = parts > 1
    if split:
        part_m = torch.empty((n_rows, parts), dtype=torch.float32, device=logits.device)
        part_s = torch.empty((n_rows, parts), dtype=torch.float32, device=logits.device)
        loss = part_m
    else:
        loss = torch.empty((n_rows,), dtype=torch.float32, device=logits.device)
        part_m = part_s = loss
    # A repeated call launches through the compiled kernels' own launchers (`_launch`): the JIT's
    # binding of every argument cost a 64-row call most of its 125 us of host time (GPU round 131).
    if n_rows > 0:
        _launch(_lse_kernel, (n_rows, parts),
                (logits, target, loss, part_m, part_s, n_cols // unit, stride // unit,
                 chunk_blocks, ignore_index),
                dict(BLOCK=BLOCK, UNIT=unit, ALIGN=align, SPLIT=split, PDL=pdl, VEC=vec,
                     ON_GPU=logits.is_cuda, num_warps=WARPS, num_stages=NUM_STAGES))
    parts_p2 = _next_pow2(parts) if split else 1
    rows = max(1, min(FINAL_BLOCK // parts_p2, _next_pow2(max(n_rows, 1))))
    _launch(_mean_kernel, (1,),
            (logits, target, loss, part_m, part_s, out, n_rows, n_cols, stride, parts,
             ignore_index),
            dict(ROWS=rows, PARTS=parts_p2, SPLIT=split, PDL=pdl, num_warps=FINAL_WARPS,
                 **({"launch_pdl": True} if pdl else {})))
    return out


class ModelNew(torch.nn.Module):
    """Drop-in for the task's Model: cross-entropy with ignore_index=-100."""

    def __init__(self, *args, **kwargs):
        super().__init__()


    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        return launch_cross_entropy(logits, target, -100)
