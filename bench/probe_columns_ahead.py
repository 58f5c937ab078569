"""Softmax and log-softmax over dim 1 at 32x1000x1024 float32: what caps the one-pass column
kernel, and does a persistent one that loads its next tile as it writes this one lift it?

Both rows read 0.84 of the copy bandwidth on an H200 (the standing after round 454), two of the
five large rows under issue #3's 90%. The served one-pass column kernel (`inner_dim`) gives each
program one tile: 16 adjacent columns over all 1000 rows (1024 with the mask), 64 KB, read whole
before its first write; two programs of 16 warps share an SM (64 registers a thread), 7.76
waves. Wider tiles (round 403) and a staggered first wave (round 454) did not reach the bar.

The probe's kernels (probe-only; checked in Triton's interpreter by
tests/test_probe_columns_ahead.py):
- `copy16` and, with `--copies`, COPIES: plain copies in tiles of other shapes, each access
  pattern's ceiling beside the served kernels;
- a persistent walk (`per_sm` programs an SM, each taking the tiles `programs` apart) holding the
  served tile as four chunks of a quarter of its rows: each chunk's output is stored and that
  chunk's registers are at once loaded from the program's next tile (`ahead`), so the SM's reads
  of the next tile go out while it writes this one; `early` loads the whole next tile before
  reducing this one (two tiles of registers, one program an SM of 32 warps); `op` copy is the
  same walk with no arithmetic.

GPU round 457 (runs/probe-columns-ahead-h200-round457*.json), us, graph replays under the L2
flush: the served kernels 72.2-73.3 (0.84-0.85 of copy). **The tile's shape is the cap:** a copy
in the served tile's geometry took 71.5-72.4 (0.85-0.86), in 16-column tiles of 64-1024 rows
70.8-72.4 (0.85-0.87), 32 columns 67.0-68.8 (0.89-0.91), 64-1024 columns 65.6-66.8 (0.92-0.93):
64-byte runs 4 KB apart cost the memory a tenth of its bandwidth whatever the kernel does with
them. The walks lost, copies included (copy 73.5-75.7; softmax and log-softmax 106.7-184.3, the
`ahead` forms at 16 warps spilling under the cap).

Longer runs need the 1000 channels split over programs that exchange per-column statistics.
The softmax template's `col_split` (commit 5fd48b1, reverted) did that on a cooperative grid,
groups of 2, 4 or 8 programs (tiles of 32, 64 or 128 columns) walking the tiles a step behind
their reads (as `row_lag`), pairs exchanged as `pair_slots` words, and lost far:
114.4-246.0 us (`-split.json`; 32 warps a program 122.1-246.0; before it, a form that held the
tile and waited for its partners at each tile, 112.6-225.2, `-split-nolag.json`). Its renders
with the wait taken out took 116.2-245.6, and with no exchange at all, each chunk normalized
alone (wrong, timed only to see the cost), 93.3-190.5: the tiled walk itself, not the exchange,
is what loses. `--looped` times the template's looped column path at 32 or 64 columns a program
(`tile_elems` 8192 sends 1000 channels there: a pass for the max and sum, a pass that re-reads
and writes), across `loop_programs_per_sm`, `loop_block` and `loop_warps`: 81.0-168.0 us
(`-looped.json`; the best 32 columns, 8192-element blocks of 8 warps, no persistent grid: softmax
83.7, log-softmax 81.0). `--parts` times a kernel of the probe's own that holds 32 or 64 columns
of all 1000 channels as 2, 4 or 8 parts of rows read in turn, their column statistics combined
as they come, the last part kept in registers and written first and the others read again from
L2 (`-parts.json`): as plain copies that order took 68.8-77.9 us (0.80-0.90 of copy), but
softmax and log-softmax 90.5-155.0 (at 64 registers a thread, two programs an SM, they spill;
without the cap, one program an SM).

Every variant is checked against float64 before it is timed (a wrong one is recorded, not
timed), timed interleaved with eager PyTorch; registers and spills beside each. Writes
bench/results/probe-columns-ahead-<device>[-copies|-looped|-parts].json.

    python bench/probe_columns_ahead.py [--shape 32,1000,1024] [--copies | --looped | --parts]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

SHAPE = (32, 1000, 1024)
OPS = {"copy": 0, "softmax": 1, "log_softmax": 2}
BLOCK_I = 16  # the served tile's columns (64-byte runs in float32)
# name -> (programs an SM, warps, register cap or 0, early, num_stages)
VARIANTS = {
    "ahead_p2_w16": (2, 16, 64, False, 1),   # the served tile, registers and occupancy
    "ahead_p1_w32": (1, 32, 64, False, 1),   # 8 values a thread a tile: room to spare
    "early_p1_w32": (1, 32, 64, True, 1),    # two tiles in registers, 16 values each
    "ahead_p2_w16_s3": (2, 16, 64, False, 3),  # as the first, Triton's pipeliner allowed
}

# --copies: name -> (columns, rows, warps, register cap or 0) of a plain copy's tiles, the
# ceiling of each access pattern (16 columns are 64-byte runs 4 KB apart)
COPIES = {
    "copy_c16_r1024_w16": (16, 1024, 16, 64),   # the served tile's geometry
    "copy_c16_r256_w4": (16, 256, 4, 0),
    "copy_c16_r64_w1": (16, 64, 1, 0),
    "copy_c32_r512_w16": (32, 512, 16, 0),
    "copy_c32_r1024_w32": (32, 1024, 32, 64),
    "copy_c64_r256_w16": (64, 256, 16, 0),
    "copy_c128_r128_w16": (128, 128, 16, 0),
    "copy_c256_r64_w16": (256, 64, 16, 0),
    "copy_c1024_r16_w16": (1024, 16, 16, 0),
    "copy_c1024_r4_w4": (1024, 4, 4, 0),
}


@triton.jit
def _tile(t, n_tiles, n_blocks_i, n_red, n_inner, r, c, BLOCK_I: tl.constexpr):
    # offsets of tile t's first row chunk, and its column mask (none past the last tile)
    outer = (t // n_blocks_i).to(tl.int64)
    inner = (t % n_blocks_i) * BLOCK_I + c
    off = outer * n_red * n_inner + r.to(tl.int64)[:, None] * n_inner + inner[None, :]
    return off, (inner < tl.where(t < n_tiles, n_inner, 0))[None, :]


@triton.jit
def _columns_ahead_kernel(x_ptr, y_ptr, n_red, n_inner, n_blocks_i, n_tiles,
                          BLOCK_I: tl.constexpr, CHUNK_R: tl.constexpr, OP: tl.constexpr,
                          EARLY: tl.constexpr):
    # x is a contiguous (outer, n_red, n_inner) view, n_red <= 4 * CHUNK_R; tile t is BLOCK_I
    # columns of outer index t // n_blocks_i over all n_red rows, held as four row chunks.
    # OP 0 copies, 1 softmax, 2 log-softmax over the rows.
    pid = tl.program_id(0)
    step = tl.num_programs(0)
    r = tl.arange(0, CHUNK_R)
    c = tl.arange(0, BLOCK_I)
    d = CHUNK_R * n_inner  # from one chunk to the next
    m0 = (r < n_red)[:, None]
    m1 = (r + CHUNK_R < n_red)[:, None]
    m2 = (r + 2 * CHUNK_R < n_red)[:, None]
    m3 = (r + 3 * CHUNK_R < n_red)[:, None]
    o, m = _tile(pid, n_tiles, n_blocks_i, n_red, n_inner, r, c, BLOCK_I)
    x0 = tl.load(x_ptr + o, mask=m & m0, other=float("-inf")).to(tl.float32)
    x1 = tl.load(x_ptr + o + d, mask=m & m1, other=float("-inf")).to(tl.float32)
    x2 = tl.load(x_ptr + o + 2 * d, mask=m & m2, other=float("-inf")).to(tl.float32)
    x3 = tl.load(x_ptr + o + 3 * d, mask=m & m3, other=float("-inf")).to(tl.float32)
    for t in range(pid, n_tiles, step):
        no, nm = _tile(t + step, n_tiles, n_blocks_i, n_red, n_inner, r, c, BLOCK_I)
        if EARLY:  # the whole next tile requested before this one is reduced
            n0 = tl.load(x_ptr + no, mask=nm & m0, other=float("-inf")).to(tl.float32)
            n1 = tl.load(x_ptr + no + d, mask=nm & m1, other=float("-inf")).to(tl.float32)
            n2 = tl.load(x_ptr + no + 2 * d, mask=nm & m2, other=float("-inf")).to(tl.float32)
            n3 = tl.load(x_ptr + no + 3 * d, mask=nm & m3, other=float("-inf")).to(tl.float32)
        if OP == 0:
            y0, y1, y2, y3 = x0, x1, x2, x3
        else:
            # a column of -inf gives NaN, as torch does; masked rows are -inf and add 0
            cm = tl.maximum(tl.maximum(tl.max(x0, axis=0), tl.max(x1, axis=0)),
                            tl.maximum(tl.max(x2, axis=0), tl.max(x3, axis=0)))[None, :]
            if OP == 1:
                y0 = tl.exp(x0 - cm)
                y1 = tl.exp(x1 - cm)
                y2 = tl.exp(x2 - cm)
                y3 = tl.exp(x3 - cm)
                inv = 1.0 / (tl.sum(y0, axis=0) + tl.sum(y1, axis=0)
                             + tl.sum(y2, axis=0) + tl.sum(y3, axis=0))[None, :]
                y0 = y0 * inv
                y1 = y1 * inv
                y2 = y2 * inv
                y3 = y3 * inv
            else:
                total = (tl.sum(tl.exp(x0 - cm), axis=0) + tl.sum(tl.exp(x1 - cm), axis=0)
                         + tl.sum(tl.exp(x2 - cm), axis=0) + tl.sum(tl.exp(x3 - cm), axis=0))
                shift = cm + tl.log(total)[None, :]
                y0 = x0 - shift
                y1 = x1 - shift
                y2 = x2 - shift
                y3 = x3 - shift
        # each chunk stored, then (ahead) its registers loaded from the next tile
        o, m = _tile(t, n_tiles, n_blocks_i, n_red, n_inner, r, c, BLOCK_I)
        ty = y_ptr.dtype.element_ty
        tl.store(y_ptr + o, y0.to(ty), mask=m & m0)
        if not EARLY:
            x0 = tl.load(x_ptr + no, mask=nm & m0, other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + o + d, y1.to(ty), mask=m & m1)
        if not EARLY:
            x1 = tl.load(x_ptr + no + d, mask=nm & m1, other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + o + 2 * d, y2.to(ty), mask=m & m2)
        if not EARLY:
            x2 = tl.load(x_ptr + no + 2 * d, mask=nm & m2, other=float("-inf")).to(tl.float32)
        tl.store(y_ptr + o + 3 * d, y3.to(ty), mask=m & m3)
        if not EARLY:
            x3 = tl.load(x_ptr + no + 3 * d, mask=nm & m3, other=float("-inf")).to(tl.float32)
        if EARLY:
            x0, x1, x2, x3 = n0, n1, n2, n3


@triton.jit
def _columns_copy_kernel(x_ptr, y_ptr, n_red, n_inner, BLOCK_R: tl.constexpr,
                         BLOCK_I: tl.constexpr):
    # a copy in [BLOCK_R, BLOCK_I] tiles: a program per (column block, row block, outer index);
    # BLOCK_R >= n_red is the served one-pass tile's geometry
    outer = tl.program_id(2).to(tl.int64)
    inner = tl.program_id(0) * BLOCK_I + tl.arange(0, BLOCK_I)
    r = tl.program_id(1) * BLOCK_R + tl.arange(0, BLOCK_R)
    off = outer * n_red * n_inner + r.to(tl.int64)[:, None] * n_inner + inner[None, :]
    mask = (r < n_red)[:, None] & (inner < n_inner)[None, :]
    tl.store(y_ptr + off, tl.load(x_ptr + off, mask=mask), mask=mask)


@triton.jit
def _part_stats(x):
    # per column: the max and the sum of exponentials around it (0 around 0 for -inf only)
    m = tl.max(x, axis=0)
    return m, tl.sum(tl.exp(x - tl.where(m == float("-inf"), 0.0, m)[None, :]), axis=0)


@triton.jit
def _part_out(x, col_max, total, OP: tl.constexpr):
    if OP == 1:
        return tl.exp(x - col_max[None, :]) * (1.0 / total)[None, :]
    return (x - col_max[None, :]) - tl.log(total)[None, :]


@triton.jit
def _columns_parts_kernel(x_ptr, y_ptr, n_red, n_inner, PART_R: tl.constexpr,
                          PARTS: tl.constexpr, BLOCK_I: tl.constexpr, OP: tl.constexpr):
    # BLOCK_I columns of one outer index over n_red <= PARTS * PART_R rows, in PARTS parts of
    # PART_R rows: each read and reduced in turn (their statistics combined as they come), the
    # last kept in registers and written first, then the others read again (from L2, where
    # their first reads left them) and written. OP 0 copies (every part but the last read
    # twice), 1 softmax, 2 log-softmax.
    outer = tl.program_id(1).to(tl.int64)
    inner = tl.program_id(0) * BLOCK_I + tl.arange(0, BLOCK_I)
    r = tl.arange(0, PART_R)
    cols = (inner < n_inner)[None, :]
    # one outer index's slab is under 2**31 elements (the launcher checks): int32 offsets in it
    x_ptr += outer * n_red * n_inner
    y_ptr += outer * n_red * n_inner
    off = r[:, None] * n_inner + inner[None, :]
    col_max = tl.full([BLOCK_I], float("-inf"), tl.float32)
    total = tl.zeros([BLOCK_I], tl.float32)
    for p in tl.static_range(PARTS):
        mask = (r + p * PART_R < n_red)[:, None] & cols
        x = tl.load(x_ptr + off + p * PART_R * n_inner, mask=mask, other=float("-inf"),
                    eviction_policy="evict_last" if p < PARTS - 1 else "evict_first")
        if OP != 0:
            m, s = _part_stats(x.to(tl.float32))
            new_max = tl.maximum(col_max, m)
            safe = tl.where(new_max == float("-inf"), 0.0, new_max)
            total = total * tl.exp(col_max - safe) + s * tl.exp(m - safe)
            col_max = new_max
    # x is the last part; a column of -inf gives NaN, as torch does
    ty = y_ptr.dtype.element_ty
    last = (PARTS - 1) * PART_R
    mask = (r + last < n_red)[:, None] & cols
    if OP == 0:
        tl.store(y_ptr + off + last * n_inner, x, mask=mask)
    else:
        tl.store(y_ptr + off + last * n_inner, _part_out(x.to(tl.float32), col_max, total,
                                                         OP).to(ty), mask=mask)
    for p in tl.static_range(PARTS - 1):
        mask = (r + p * PART_R < n_red)[:, None] & cols
        x = tl.load(x_ptr + off + p * PART_R * n_inner, mask=mask, other=float("-inf"),
                    eviction_policy="evict_first")
        if OP == 0:
            tl.store(y_ptr + off + p * PART_R * n_inner, x, mask=mask)
        else:
            tl.store(y_ptr + off + p * PART_R * n_inner,
                     _part_out(x.to(tl.float32), col_max, total, OP).to(ty), mask=mask)


def _pow2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def _launcher(kernel, grid, x, y, args, kwargs: dict, cap: int):
    """(launch, y): launch() runs `kernel` over `grid` on x, y, *args (its registers capped at
    `cap` a thread where set) and returns y."""
    if cap:
        kwargs = dict(kwargs, maxnreg=cap)

    def launch():
        kernel[grid](x, y, *args, **kwargs)
        return y
    return launch, y


def columns_ahead(x: torch.Tensor, op: str, programs: int, warps: int, cap: int = 0,
                  early: bool = False, stages: int = 1, block_i: int = BLOCK_I):
    """`op` over dim 1 of a contiguous 3-d `x` by the persistent kernel: (launch, y), where
    launch() writes y. `programs` is the grid (at most one program a tile)."""
    outer, n_red, n_inner = x.shape
    chunk_r = max(1, _pow2(n_red) // 4)
    if 4 * chunk_r < n_red:
        chunk_r *= 2
    n_blocks_i = triton.cdiv(n_inner, block_i)
    n_tiles = outer * n_blocks_i
    return _launcher(_columns_ahead_kernel, (max(1, min(programs, n_tiles)),), x,
                     torch.empty_like(x), (n_red, n_inner, n_blocks_i, n_tiles),
                     dict(BLOCK_I=block_i, CHUNK_R=chunk_r, OP=OPS[op], EARLY=early,
                          num_warps=warps, num_stages=stages), cap)


def columns_parts(x: torch.Tensor, op: str, block_i: int = 32, parts: int = 2, warps: int = 16,
                  cap: int = 64):
    """`op` over dim 1 of a contiguous 3-d `x` by the parts kernel, `block_i` columns a
    program, the rows in `parts` parts: (launch, y)."""
    outer, n_red, n_inner = x.shape
    assert n_red * n_inner < 2**31, "the parts kernel's offsets are int32 within a slab"
    return _launcher(_columns_parts_kernel, (triton.cdiv(n_inner, block_i), outer), x,
                     torch.empty_like(x), (n_red, n_inner),
                     dict(PART_R=_pow2(triton.cdiv(n_red, parts)), PARTS=parts, BLOCK_I=block_i,
                          OP=OPS[op], num_warps=warps, num_stages=1), cap)


# --parts: name -> (columns, parts, warps, register cap or 0) of the parts kernel
PARTS = {"c32_p2_w16": (32, 2, 16, 64), "c32_p2_w16_free": (32, 2, 16, 0),
         "c32_p4_w16": (32, 4, 16, 64), "c32_p4_w8": (32, 4, 8, 64),
         "c32_p4_w16_free": (32, 4, 16, 0), "c32_p8_w8": (32, 8, 8, 64),
         "c64_p8_w16": (64, 8, 16, 64), "c32_p2_w32": (32, 2, 32, 0)}


def columns_copy(x: torch.Tensor, warps: int = 16, cap: int = 64, block_i: int = BLOCK_I,
                 block_r: int = 0):
    """x copied in [block_r, block_i] tiles, one a program (block_r 0: all the rows, the served
    tile's geometry): (launch, y)."""
    outer, n_red, n_inner = x.shape
    block_r = block_r or _pow2(n_red)
    return _launcher(_columns_copy_kernel,
                     (triton.cdiv(n_inner, block_i), triton.cdiv(n_red, block_r), outer), x,
                     torch.empty_like(x), (n_red, n_inner),
                     dict(BLOCK_R=block_r, BLOCK_I=block_i, num_warps=warps, num_stages=1), cap)


# --looped: (col_block_inner, col_split_per_sm) -> the looped path's 32 or 64 columns a program at
# 32x1000x1024 (it narrows 256-column blocks until the grid has 2, or col_split_per_sm, programs
# an SM), each crossed with these loop knobs
LOOPED_COLUMNS = {32: (32, 0), 64: (64, 0)}
LOOPED_KNOBS = [dict(loop_programs_per_sm=lp, loop_block=lb, loop_warps=lw)
                for lp in (0, 1, 2, 4) for lb in (4096, 8192) for lw in (8, 16)]


def looped_sources(op: str) -> dict[str, str]:
    """name -> the softmax template's render over dim 1 of the params the zoo serves an H200 for
    `op` in float32 `inner_dim`, with `tile_elems` 8192 (so 1000 channels take the looped path:
    a pass for the max and sum, a pass that re-reads and writes) and LOOPED_COLUMNS x
    LOOPED_KNOBS; `reverse_last_pass` off and `keep_in_l2` on throughout."""
    from kernel_zoo import store
    from templates import get_template

    found = store.find_config(op, "sm_90", "float32", bucket="inner_dim", device="NVIDIA H200")
    if found is None:
        raise SystemExit(f"the zoo serves no {op} float32 inner_dim config to an H200")
    template = get_template("softmax")
    out = {}
    for columns, (block_inner, split_per_sm) in LOOPED_COLUMNS.items():
        for knobs in LOOPED_KNOBS:
            params = dict(found[1]["params"], tile_elems=8192, col_block_inner=block_inner,
                          col_split_per_sm=split_per_sm, reverse_last_pass=False,
                          keep_in_l2=True, **knobs)
            cfg = template.config(params)
            if template.violations(cfg):
                continue
            name = (f"c{columns}_lp{knobs['loop_programs_per_sm']}_lb{knobs['loop_block']}"
                    f"_lw{knobs['loop_warps']}")
            out[name] = template.render(cfg, op=op, log=op == "log_softmax", dim=1, params=[])
    return out


def _stats(kernel) -> dict:
    """Registers and spills of each compiled specialisation of `kernel` (the newest last)."""
    found = {}
    for cache in getattr(kernel, "device_caches", {}).values():
        for compiled in cache[0].values():
            compiled._init_handles()
            found = {"n_regs": compiled.n_regs, "n_spills": compiled.n_spills,
                     "num_warps": compiled.metadata.num_warps}
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default=",".join(map(str, SHAPE)),
                        help="batch,channels,positions (default %(default)s)")
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument("--looped", action="store_true",
                        help="time the softmax template's looped column path at 32 or 64 "
                             "columns a program (LOOPED_COLUMNS x LOOPED_KNOBS) beside the served "
                             "kernels, instead of the probe's own kernels")
    modes.add_argument("--parts", action="store_true",
                        help="time the probe's parts kernel (PARTS) beside the served kernels, "
                             "instead of the walks")
    modes.add_argument("--copies", action="store_true",
                        help="time only plain copies in tiles of other shapes (COPIES) beside "
                             "the served kernels: each access pattern's ceiling")
    args = parser.parse_args(argv)
    from probe_inner_block import parse_shape, served_source

    shape = parse_shape(parser, args.shape)
    if not torch.cuda.is_available():
        print("bench/probe_columns_ahead.py needs a CUDA GPU: it measures time", file=sys.stderr)
        return 2

    from probe_log_softmax_dim1 import time_rows

    from verifier.core import load_candidate
    from verifier.environment import device_label, environment
    from verifier.tolerance import compare, tolerance_for

    device = torch.device("cuda")
    sms = torch.cuda.get_device_properties(device).multi_processor_count
    torch.manual_seed(0)
    x = torch.randn(*shape, device=device) * 4.0
    ref = {"copy": x.double(), "softmax": torch.softmax(x.double(), dim=1),
           "log_softmax": torch.log_softmax(x.double(), dim=1)}
    eager = {"copy": x.clone(), "softmax": torch.softmax(x, dim=1),
             "log_softmax": torch.log_softmax(x, dim=1)}
    rows, fns = {}, {}

    def judge(name, op, out, stats):
        judged = compare(out, ref[op], eager[op], tolerance_for("float32"))
        rows[name] = {"op": op, "rel_l2_err": judged.rel_l2_err, "n_bad": judged.n_bad,
                      **stats}
        return judged.ok

    cache = Path(tempfile.mkdtemp())
    for op in ("softmax", "log_softmax"):
        version, source = served_source(op)
        model = load_candidate(source, cache).ModelNew()
        name = f"{op}_served_{version}"
        if judge(name, op, model(x), {}):
            fns[name] = (lambda m=model: m(x))
    for op in ("softmax", "log_softmax") if args.looped else ():
        for name, source in looped_sources(op).items():
            module = load_candidate(source, cache)
            model = module.ModelNew()
            if judge(f"{op}_{name}", op, model(x), {}):
                fns[f"{op}_{name}"] = (lambda m=model: m(x))
    for vname, (block_i, parts, warps, cap) in PARTS.items() if args.parts else ():
        for op in OPS:
            launch, y = columns_parts(x, op, block_i, parts, warps, cap)
            name = f"{op}_parts_{vname}"
            out = launch()
            torch.cuda.synchronize()
            if judge(name, op, out, _stats(_columns_parts_kernel)):
                fns[name] = launch
    launch, y = columns_copy(x)
    if judge("copy16", "copy", launch(), _stats(_columns_copy_kernel)):
        fns["copy16"] = launch
    for name, (block_i, block_r, warps, cap) in COPIES.items() if args.copies else ():
        launch, y = columns_copy(x, warps, cap, block_i, block_r)
        if judge(name, "copy", launch(), _stats(_columns_copy_kernel)):
            fns[name] = launch
        rows[name].update(block_i=block_i, block_r=block_r, warps=warps, cap=cap)
    walks = VARIANTS.items() if not (args.copies or args.looped or args.parts) else ()
    for vname, (per_sm, warps, cap, early, stages) in walks:
        for op in OPS:
            launch, y = columns_ahead(x, op, per_sm * sms, warps, cap, early, stages)
            name = f"{op}_{vname}"
            out = launch()
            torch.cuda.synchronize()
            if judge(name, op, out, _stats(_columns_ahead_kernel)):
                fns[name] = launch
            rows[name].update(programs_per_sm=per_sm, warps=warps, cap=cap, early=early,
                              num_stages=stages)
    fns["eager_softmax"] = lambda: torch.softmax(x, dim=1)
    fns["eager_log_softmax"] = lambda: torch.log_softmax(x, dim=1)
    copy, failed = time_rows(fns, rows, x, device, width=32)
    for name, row in rows.items():
        if "us" not in row:
            print(f"{name:32s} wrong: rel_l2_err {row['rel_l2_err']:.1e}, not timed")
    result = {"probe": "softmax and log-softmax over dim 1, float32: a persistent column kernel "
                       "loading its next tile as it writes this one",
              "shape": list(shape), "dtype": "float32", "environment": environment(),
              "date": dt.datetime.now(dt.timezone.utc).isoformat(), "copy_gbps": copy / 1e9,
              "variants": {k: dict(zip(("programs_per_sm", "warps", "cap", "early",
                                        "num_stages"), v)) for k, v in VARIANTS.items()
                           if not (args.copies or args.looped or args.parts)},
              "copies": {k: dict(zip(("block_i", "block_r", "warps", "cap"), v))
                         for k, v in COPIES.items() if args.copies},
              "graph_capture_failed": failed, "rows": rows}
    suffix = ("-copies" if args.copies else "-looped" if args.looped else
              "-parts" if args.parts else "")
    out = ROOT / "bench" / "results" / f"probe-columns-ahead-{device_label()}{suffix}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
