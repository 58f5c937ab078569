"""Reductions over one dim (sum, mean, amax, amin, argmax, argmin): the space, constraints, byte
count.

Render context: `op` (sum | mean | amax | amin | argmax | argmin), `dim` (the reduced dim,
normalized to 0..rank-1 at the traced shape), `rank` (the traced input's rank) and `params` (the
Model's parameters, usually none). ModelNew follows KernelBench's reduction Model(dim): a
constructor argument, when given, is the dim (so one candidate serves task shapes that reduce
different dims); without one it reduces `dim`. The launchers `launch_<op>(x, dim)` take any dim
of any rank (`SUPPORTS_ANY_DIM = True`).

The input is viewed as (outer, R, inner) without copying. inner == 1 takes the row kernels: rows
whose width rounds up to at most `row_block_max` are read in one tile (`tile_elems` / width rows per
program, warps = tile / (32 * `elems_per_thread`), optionally a persistent grid of
`programs_per_sm` programs per SM); wider rows loop over `loop_block`-wide tiles with `loop_warps`
warps, unmasked full tiles, one masked last tile, `num_stages` deep. `one_pass_min_fill` (percent)
sends a row wider than `loop_block` that would fill less of its power-of-two tile than that to the
loop as well: a 4097-wide row fills half of an 8192-wide tile, whose masked half still takes its
warps, while an 8192-wide row of the same bucket fills it all (GPU round 119: the bucket's
configs were 46.5 us at 8192x8192 and 34 us at 4096x4097 in one pass, 17.4 and 49.7 looping).
inner > 1 takes the column kernel: each program reduces a `col_block_inner`-wide block of contiguous columns over R, in tiles
of `col_tile_elems` elements with `col_warps` warps. When the grid would give fewer than
`split_per_sm` programs per SM (few long rows, few columns), R is split across programs and a
second tiny kernel combines the fp32 partials in order (deterministic; no atomics).
`align_rows` starts rows whose stride breaks 16-byte alignment (width 4097, say) at the next aligned
address and reads the few elements before and after the aligned body apart, so the body's loads
stay 16 bytes wide. `body_tile` (with `align_rows`) sizes such a row's one-pass tile by its aligned
body, at most n_cols // vec * vec elements (4096 for a 4097-wide float32 row), not by the row
(8192, half of it masked); float32 sum and mean at 4096x4097 kept their configs against it on an
H200 (GPU round 388). `evict_first` marks the streamed input as read-once for the cache.
`const_cols` passes the row kernels (one pass and looped) the row's width as a compile-time
constant (one compile per width, as torch.compile's kernels are per shape): the compiler then
knows which lanes of a tile are in the row. torch.compile's float32 mean over 4097-wide rows
(`runs/probe-inductor-rows-h200-round354.json`) is a 16-warp loop with the width a constant:
compiled for sm_90 its threads issue 8 unmasked loads and one masked, where the served config's
one-pass tile of 8192 takes 16 masked loads a thread, half of them past the row (GPU round 451:
19.9 us against its 19.5 at 4096x4097, with both writing one address); with const_cols that tile
takes 9 loads, 1 masked, and 104 SASS instructions against 168 (full 8192-wide rows: 4 vector
loads either way, none masked with it; bench/results/compile-reduce-const-cols-sm90.json). On an
H200 that did not make it faster (GPU round 451, runs/tune-buckets-h200-round451-const/: the
served float32 mean and sum configs with it 19.42 and 19.39 us at 4096x4097 against 19.30 and
19.55 without, the best loops with it 19.39-19.55; torch.compile 19.2-19.3): the row is bound by
its bytes, not by the instructions; the knob is correct on the GPU at every task shape and dtype.
`packed_keys` (amax, amin, argmax) reduces a tile with one 32-bit integer max over
order-preserving keys (NaN above +inf, -0.0 as 0.0) and, for argmax, then one 32-bit min of the
indices whose key is that max (a REDUX each per warp on sm_80+), where the other choice takes a NaN
flag, a float max and (argmax) a first-index min. Until GPU round 138 argmax's took one 64-bit max
over the index packed below the key (shuffles): 9.22 against 8.80 us at 4099x1000, same params.
`nan_combine` (amax, amin; argmax ignores it; not with `packed_keys`) reduces a tile
with one `tl.reduce` whose combine is the NaN-propagating max or min (`max.NaN.f32` on sm_80+),
where the other choice takes two reductions (a NaN flag and a float max that skips NaN).
`max_then_index` (argmax, argmin; the others ignore it; not with `packed_keys`) reduces an argmax
tile with that one NaN-keeping max, then one first-index min over the lanes that hold the max or
a NaN (a NaN max means the tile has one, and then only NaN lanes match). Compiled for sm_90 its
1000-wide float32 row tile takes about as many instructions as `packed_keys`' (264 against 272,
bench/compile_reduce.py), but on an H200 every argmax bucket took it (GPU rounds 381-382,
argmax 1.21.0-1.29.0; float32 4099x1000 from 0.944x to 1.13x torch.compile, with one row a
program of 4 warps). In Triton's interpreter a
combine function runs in Python, about a hundred times slower than a built-in reduction: tests
give it small tiles.

Semantics follow torch with keepdim=False: fp32 accumulation, outputs in the input dtype (argmax:
int64, ties to the first index, a NaN counts as the maximum and the first NaN wins); amax/amin
propagate NaN; sum over an empty dim gives 0, mean NaN; amax/amin/argmax over an empty dim raise.
argmin is argmax over the negated input (each load of x negated, its masked lanes filled so they
lose): a NaN still counts first, ties still go to the first index, -0.0 and 0.0 still tie.
"""

from __future__ import annotations

from dataclasses import dataclass

from templates.base import Param, Template

OPS = ("sum", "mean", "amax", "amin", "argmax", "argmin")
MAX_TILE_VALUES_PER_THREAD = 64  # fp32 values a thread holds per tile (two vectors for argmax)
SHARED_MEMORY_BUDGET = 96 * 1024  # bytes of pipelined stages; leaves room for two programs per SM


@dataclass(frozen=True)
class ReduceConfig:
    row_block_max: int
    tile_elems: int
    elems_per_thread: int
    loop_block: int
    loop_warps: int
    num_stages: int
    programs_per_sm: int
    align_rows: bool
    col_block_inner: int
    col_tile_elems: int
    col_warps: int
    split_per_sm: int
    evict_first: bool
    packed_keys: bool
    one_pass_min_fill: int
    nan_combine: bool
    max_then_index: bool
    body_tile: bool
    const_cols: bool


SPACE = (
    Param("row_block_max", (1024, 2048, 4096, 8192, 16384)),
    Param("tile_elems", (1024, 2048, 4096, 8192, 16384)),
    Param("elems_per_thread", (4, 8, 16, 32)),
    Param("loop_block", (1024, 2048, 4096, 8192)),
    Param("loop_warps", (2, 4, 8, 16)),
    Param("num_stages", (1, 2, 3, 4)),
    Param("programs_per_sm", (0, 1, 2, 4, 8)),
    Param("align_rows", (False, True)),
    Param("col_block_inner", (32, 64, 128, 256, 512)),
    Param("col_tile_elems", (1024, 2048, 4096, 8192)),
    Param("col_warps", (2, 4, 8, 16)),
    Param("split_per_sm", (0, 1, 2, 4, 8)),
    Param("evict_first", (False, True)),
    Param("packed_keys", (False, True), legacy=False),
    Param("one_pass_min_fill", (0, 75), legacy=0),
    Param("nan_combine", (False, True), legacy=False),
    Param("max_then_index", (False, True), legacy=False),
    Param("body_tile", (False, True), legacy=False),
    Param("const_cols", (False, True), legacy=False),
)

DEFAULT = ReduceConfig(
    row_block_max=8192, tile_elems=4096, elems_per_thread=16, loop_block=4096, loop_warps=8,
    num_stages=2, programs_per_sm=0, align_rows=True, col_block_inner=256, col_tile_elems=4096,
    col_warps=8, split_per_sm=2, evict_first=True, packed_keys=False, one_pass_min_fill=0,
    nan_combine=False, max_then_index=False, body_tile=False, const_cols=False,
)


def one_pass_warps(elems: int, elems_per_thread: int) -> int:
    """Warps the one-pass row kernel uses for a tile of `elems` elements (the launcher agrees)."""
    return max(1, min(elems // (32 * elems_per_thread), 16))


def constraints(cfg: ReduceConfig) -> list[str]:
    problems = []
    if cfg.packed_keys and cfg.nan_combine:
        problems.append("packed_keys and nan_combine both choose how a tile reduces: pick one")
    if cfg.packed_keys and cfg.max_then_index:
        problems.append("packed_keys and max_then_index both choose how an argmax tile reduces: "
                        "pick one")
    if cfg.loop_block > cfg.row_block_max:
        problems.append("loop_block exceeds row_block_max: rows that need the loop are wider")
    for elems in (cfg.row_block_max, cfg.tile_elems):
        per_thread = elems // (32 * one_pass_warps(elems, cfg.elems_per_thread))
        if per_thread > MAX_TILE_VALUES_PER_THREAD:
            problems.append(f"a {elems}-element row tile holds {per_thread} values per thread "
                            "(spills)")
    for name, elems, warps in (("loop", cfg.loop_block, cfg.loop_warps),
                               ("column", cfg.col_tile_elems, cfg.col_warps)):
        per_thread = elems // (32 * warps)
        if per_thread < 1:
            problems.append(f"the {name} tile has less than one element per thread of its warps")
        if per_thread > MAX_TILE_VALUES_PER_THREAD // 2:
            problems.append(f"the {name} tile holds {per_thread} values per thread in each of its "
                            "accumulator and in-flight load (spills)")
        if cfg.num_stages * elems * 4 > SHARED_MEMORY_BUDGET:
            problems.append(f"{cfg.num_stages} stages of the {elems}-element {name} tile exceed "
                            f"{SHARED_MEMORY_BUDGET // 1024} KiB of shared memory")
    return problems


def bytes_moved(n_in: int, n_out: int, itemsize: int, out_itemsize: int | None = None) -> int:
    """The input read once and the output written once (argmax writes int64: out_itemsize=8)."""
    return n_in * itemsize + n_out * (itemsize if out_itemsize is None else out_itemsize)


TEMPLATE = Template(
    name="reduce",
    family="reduce",
    jinja_file="reduce.py.jinja",
    config_type=ReduceConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_{op}",
    doc=__doc__ or "",
)
