"""Row normalizations: RMSNorm, LayerNorm, and residual add fused into RMSNorm.

Render context (from the planner, agent.plan):
- `op`: "rms_norm" | "layer_norm" | "add_rms_norm" (the zoo op; the launcher is `launch_<op>`)
- `kind`: "rms" | "layer"; `residual`: the add_rms_norm form (returns (normed, x + residual))
- `weight_path`, `bias_path`: ModelNew attribute paths of the affine parameters, or None
- `eps`: the Model's epsilon; `params`: the Model's parameters to mirror (see _model.jinja)
- `epilogue` (optional, not with `residual`): an expression tree in templates/pointwise.py's
  format over the leaf ["acc"], the fp32 normalized (and scaled, shifted) value, and constants
  only: LayerNorm then GELU, say, as one kernel that stores the activation once

The knobs are scale-free, as in the softmax template: rows up to `single_pass_max` wide (rounded up
to a power of two) are read once into registers, `tile_elems / width` rows per program so narrow
rows are batched; wider rows take a looped kernel (a statistics pass, then a normalize pass) whose
re-read of the row is hinted to stay in L2. `programs_per_sm` > 0 makes the one-pass grid
persistent (each program walks row tiles, its weight vector loaded once); with
`persist_full_rows` off, rows filling at least 3/4 of their power-of-two tile get one program per
tile and the plain tile kernel instead. GPU round 120: the persistent kernel at 2 programs per SM
took RMSNorm at 4096x4097 (half its 8192-wide tile masked) from 45.6 to 35.9 us and 16384x8192
from 175.3 to 188.3, and the two shapes share a bucket; round 121: a one-step walk over a full
grid kept the 190 us, so full rows take the plain kernel, not just the full grid. `align_rows`
starts rows whose width breaks 16-byte alignment (4097, say) at the aligned address below them,
meant to keep loads and stores vectorized; compiled for sm_90 they are not (its lane mask shifts
by row, which Triton cannot prove constant over a vector: `align_edges` below). `one_pass_stats` gives LayerNorm's looped kernel one statistics
pass (each block's mean and centred sum of squares merged into the row's, as in Chan et al.'s
parallel variance) instead of a mean pass and a centred-variance pass: the row is read twice in
all, not three times (RMSNorm has one statistics pass either way). `reverse_last_pass` walks the
looped kernel's normalize pass from the row's end: the blocks the pass before it read last are the
likeliest still in L2, so they are read first.

`row_split` > 0 reads a row wider than `single_pass_max` once instead, as the softmax template's
knob does: that many programs share it, each holding its slice (of at most `single_pass_max`) in
registers, and they exchange their slices' sums of squares (LayerNorm: their means and centred
sums of squares, merged as in Chan et al.) at a per-row counter in one cooperative launch; two
launches in Triton's interpreter. `row_prefetch` loads a program's slice of its next row before
it waits for this row's partials. `row_ahead` (with `row_split`), as softmax's: a program
publishes its next row's statistics as slot words as soon as that row is loaded, before it writes
this row, and no counter is kept (`row_prefetch` changes nothing with it). `ahead_depth` 2, as
softmax's: two rows ahead, three slices in registers (on an H200 no faster, GPU round 373).
`row_lag` and `split_maxnreg`, as softmax's: a program writes each row a step after it read it,
from a second read that L2 holds (fused with a residual, of the sum it stored then), so one
slice is live at a time, and `split_maxnreg` caps the kernel's registers (Triton's `maxnreg`);
it and `edges_maxnreg` are lowered to a thread's share of its block's 65536 registers where they
exceed it (80 at 32 warps), a launch the GPU would refuse (round 460: the contract suite's
drawn RMSNorm config, at 256x65536).
Swept for add + RMSNorm float32 on an H200 (GPU round 378) they tied the served kernels (70.9
against 71.1 us at 256x65536), which stay.

`loop_full_from` > 0 sends rows at least that wide that fill at least 3/4 of their power-of-two
tile to the looped kernel even where they fit `single_pass_max`: torch.compile's RMSNorm at
16384x8192 on an H200 is that kernel (a sum-of-squares pass hinted to stay in L2, a normalize
pass; 16 warps, 32 registers a thread) and took 124.4 us where the one-pass kernel's best
config took 128.6 (GPU rounds 334, 337: bench/results/probe-inductor-norm-h200.json). Emptier
rows (4097 in an 8192-wide tile, which shares the bucket) keep the one-pass kernel.
`hint_affine` loads the looped kernel's weight (and bias) with an evict_last hint: the first pass
marks the row evict_last too, and without it the vectors shared by every row can leave L2 (GPU
round 341, bench/probe_norm_variants.py: such a loop took 16384x8192 bfloat16 in 124.4 us,
torch.compile's time, where the template's looped kernel without the hint took 134).
`loop_const_cols` passes the looped kernel a width that is a whole number of its blocks as a
compile-time constant (one compile per such width, as Inductor's kernels are per shape): its loops
unroll and their masks fold away, as in round 341's probe kernel, which took 124.4 us against the
hinted template loop's 126.6. Compiled for sm_90 at an 8192-wide bfloat16 row, the looped kernel
has 232 SASS instructions with the constant against 408 (RMSNorm), 368 against 536 (LayerNorm),
and 264 against 248 (residual add + RMSNorm, unrolled but no shorter;
bench/results/compile-norm-loop-sm90-bf16.json, bench/compile_norm_loop.py). On the H200 it
took RMSNorm 16384x8192 to torch.compile's time in bfloat16 and float16 (1.00x, rms_norm
1.28.0-1.31.0; GPU round 342, bench/results/memory-bound-h200-graphs-rms-norm-round342.json).
`loop_const_stride` (with `loop_const_cols`) makes the rows' distance that constant too where
every operand's rows are n_cols apart (contiguous): the looped kernel's row offset is then
`row * CONST_COLS`. In float32 at 16384x8192 on the H200 a two-pass kernel took 250.5 us with
both constant (torch.compile's 250.5), 254.4 with the stride a runtime argument, 255.2 with
the width runtime and masked (GPU round 455, bench/probe_norm_variants.py --served).
`epoch_slots` (with `row_split` and `row_ahead`; RMSNorm and add + RMSNorm, whose slices hand
over one statistic; elsewhere it changes nothing, and neither does `slot_tag` without it: a
sampled config is not refused for them, where refusing left 1 random config in 17 valid) tags the split kernel's slot words with the launch's epoch, from a ticket
counter kept before the slots (`_model.jinja`'s `epoch_slots()`), instead of zeroing them before
every call: the zeroing is a fill kernel the split kernel starts after, 1.2-2.3 us of add +
RMSNorm 256x65536 float32 (GPU round 456). Calls keep a buffer per device, stream and size;
a CUDA graph capture takes a spare zeroed at an earlier call. In GPU round 457's probe the
served file so tagged took 69.4-69.6 us against its 70.4-70.9 (words zeroed outside the timing:
68.7-69.0; bench/probe_split_workspace.py --epoch). The tag takes add + RMSNorm's kernel from
168 registers a thread to 184, four 2-warp programs an SM where six fit (72.4 us in that round's
sweep): `split_maxnreg` 168 keeps six. LayerNorm renders without it.
`slot_tag` says where the tag comes from: "ticket" (as above; every program of a launch adds to
one counter word as it starts, and branches on the ticket before its first loads) or
"own": a program reads the word of its own first slot, which the previous launch left with its
tag, and tags with the next value, with no counter and no atomics (kernel_zoo.slots keeps the
two schemes' buffers apart).
`align_edges` sends a row whose width breaks 16-byte alignment (4097 float32, say) that fits
`single_pass_max` to a kernel of its own (before `align_rows`, which it overrides there): each
row's aligned body is read and written under a bound that is a multiple of the vector width, so
its accesses stay 16 bytes wide, and the few elements before and after the body go apart; the
affine vectors are read at the row's shift. `align_rows`' tile masks its lanes by a per-row
shift that Triton cannot prove constant over a vector, so its accesses are as narrow as without
it. On an H200 (GPU round 355, bench/probe_norm_align.py) such a kernel took float32 residual
add + RMSNorm at 4096x4097 from the served 80.9 us (0.78 of the copy bandwidth) to 68.3 (0.92).
`body_tile` (with `align_edges`) sizes that kernel's tile by the aligned body, at most
n_cols // vec * vec elements (4096 for a 4097-wide float32 row), instead of by the row (8192),
whose upper half is then masked off, so a tile of `tile_elems` holds twice the rows. Compiled for
sm_90 (bench/compile_norm_align.py), an 8192-element tile of add + RMSNorm takes two such rows in
576 SASS instructions where it took one in 480. On an H200 it won every 4097-wide bucket of the
three dtypes (GPU rounds 388 and 391; 16-bit RMSNorm at 4096x4097 from 31 to 23 us).
That kernel reads the affine vectors at each row's shift, which breaks their alignment as much
as the row's, so a thread reads its weight (and bias) one element at a time: 64 scalar loads a
row for a 16-bit LayerNorm tile of 32 values a thread, beside 4 vector loads of x.
`edges_persist` (with `align_edges` and `programs_per_sm`) runs that kernel on a persistent grid
of a multiple of the vector width programs, each walking the rows pid, pid + grid, ...: those
rows start at the same offset modulo the vector, so they share one head, and the program reads
the affine vectors once, at that shift, for all of them. Compiled for sm_90 (bench/
compile_norm_align.py --dtype bfloat16), a bfloat16 LayerNorm tile of two 4097-wide rows keeps
its 4 vector loads of x a thread in the row loop; its 49 scalar loads (in the code, not per
row) are the affine vectors' before that loop and the edge lanes', where the body_tile kernel
issues 67 at every tile. It takes 154 registers a thread where that took 128 (181 with the row
loop pipelined 2 deep, x's loads then asynchronous copies into shared memory). On an H200 it
won 16-bit LayerNorm's and RMSNorm's and float32 LayerNorm's 4097-wide buckets by 2-6% (GPU
rounds 393-395) and lost add + RMSNorm's and float32 RMSNorm's.
`affine_table` (with `align_edges`, not `edges_persist`) keeps the body_tile kernel's grid and
reads the affine vectors 16 bytes at a time instead: a small kernel first writes, per vector,
a table of one row per head a row's body can have (row h, column c: element h + c; 8 rows of
the body tile for 16-bit rows, 4 for float32), and a row's body reads its head's row, aligned.
Compiled for sm_90 (bench/results/compile-norm-affine-table-sm90-{bf16,fp32}.json), a 16-bit
LayerNorm tile of two 4097-wide rows, 32 values a thread, issues 12 vector loads and 3 scalar
ones where it issued 4 and 67, in 848 SASS instructions where 928, and 116 registers where 128
(2 programs of 8 warps an SM either way); float32 LayerNorm's 143 registers (1 program an SM)
become 121 (2). `edges_maxnreg` > 0 caps that kernel's registers (Triton's `maxnreg`) so more of
its programs share an SM: 16-bit LayerNorm's at 80 fits 3 of 8 warps, spilling 200 bytes a
thread. On an H200 the two together (tables, cap 80) won both 16-bit LayerNorm buckets, 4096x4097
34.0 -> 27.8 us (0.47 -> 0.57 of copy; GPU round 400), and lost RMSNorm's and add + RMSNorm's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from templates.base import InvalidConfig, Param, Template, warps_for
from templates.pointwise import render_expression

MAX_REGS_ELEMS_PER_THREAD = 64  # fp32 values per thread per tile vector before the compiler spills


@dataclass(frozen=True)
class NormConfig:
    single_pass_max: int
    tile_elems: int
    elems_per_thread: int
    loop_block: int
    loop_warps: int
    num_stages: int
    programs_per_sm: int
    keep_in_l2: bool
    align_rows: bool
    persist_full_rows: bool
    one_pass_stats: bool
    reverse_last_pass: bool
    row_split: int
    row_prefetch: bool
    row_ahead: bool
    loop_full_from: int
    hint_affine: bool
    loop_const_cols: bool
    align_edges: bool
    ahead_depth: int
    row_lag: bool
    split_maxnreg: int
    body_tile: bool
    edges_persist: bool
    affine_table: bool
    edges_maxnreg: int
    loop_const_stride: bool
    epoch_slots: bool
    slot_tag: str


SPACE = (
    Param("single_pass_max", (4096, 8192, 16384, 32768)),
    Param("tile_elems", (1024, 2048, 4096, 8192, 16384)),
    Param("elems_per_thread", (4, 8, 16, 32)),
    Param("loop_block", (1024, 2048, 4096, 8192)),
    Param("loop_warps", (4, 8, 16)),
    Param("num_stages", (1, 2, 3, 4)),
    Param("programs_per_sm", (0, 1, 2, 4, 8)),
    Param("keep_in_l2", (False, True)),
    Param("align_rows", (False, True)),
    Param("persist_full_rows", (True, False), legacy=True),
    Param("one_pass_stats", (False, True), legacy=False),
    Param("reverse_last_pass", (False, True), legacy=False),
    Param("row_split", (0, 2, 4, 8, 16, 32, 64), legacy=0),
    Param("row_prefetch", (False, True), legacy=False),
    Param("row_ahead", (False, True), legacy=False),
    Param("loop_full_from", (0, 4096, 8192, 16384), legacy=0),
    Param("hint_affine", (False, True), legacy=False),
    Param("loop_const_cols", (False, True), legacy=False),
    Param("align_edges", (False, True), legacy=False),
    Param("ahead_depth", (1, 2), legacy=1),
    Param("row_lag", (False, True), legacy=False),
    Param("split_maxnreg", (0, 80, 128, 168), legacy=0),
    Param("body_tile", (False, True), legacy=False),
    Param("edges_persist", (False, True), legacy=False),
    Param("affine_table", (False, True), legacy=False),
    Param("edges_maxnreg", (0, 64, 80, 96), legacy=0),
    Param("loop_const_stride", (False, True), legacy=False),
    Param("epoch_slots", (False, True), legacy=False),
    Param("slot_tag", ("ticket", "own"), legacy="ticket"),
)

# 16 values per thread: 16 warps for an 8192-wide row, as Inductor's persistent reductions use.
# align_rows is off: on an H100 the aligned tiles' per-row gather of the weight made 4096x4097
# twice as slow (bench/results/runs/tune-h100-round2.json); the search may still pick it.
DEFAULT = NormConfig(
    single_pass_max=16384, tile_elems=4096, elems_per_thread=16, loop_block=4096, loop_warps=8,
    num_stages=2, programs_per_sm=0, keep_in_l2=True, align_rows=False, persist_full_rows=True,
    one_pass_stats=False, reverse_last_pass=False, row_split=0, row_prefetch=False,
    row_ahead=False, loop_full_from=0, hint_affine=False, loop_const_cols=False, align_edges=False,
    ahead_depth=1, row_lag=False, split_maxnreg=0, body_tile=False, edges_persist=False,
    affine_table=False, edges_maxnreg=0, loop_const_stride=False, epoch_slots=False,
    slot_tag="ticket",
)


def constraints(cfg: NormConfig) -> list[str]:
    problems = []
    if cfg.loop_block > cfg.single_pass_max:
        problems.append("loop_block exceeds single_pass_max: rows that need the loop are wider")
    # The one-pass kernel holds x (and, fused with a residual, the sum) in registers.
    for elems in (cfg.single_pass_max, cfg.tile_elems):
        per_thread = elems // (32 * warps_for(elems, cfg.elems_per_thread))
        if per_thread > MAX_REGS_ELEMS_PER_THREAD:
            problems.append(f"a {elems}-element tile holds {per_thread} values per thread (spills)")
    if cfg.ahead_depth > 1 and not (cfg.row_split and cfg.row_ahead):
        problems.append("ahead_depth > 1 needs row_split and row_ahead (it deepens their kernel)")
    if cfg.row_lag and not (cfg.row_split and cfg.row_ahead and cfg.ahead_depth == 1):
        problems.append("row_lag needs row_split and row_ahead at ahead_depth 1 (it replaces the "
                        "ahead kernel's loop)")
    if cfg.edges_persist and not (cfg.align_edges and cfg.programs_per_sm > 0):
        problems.append("edges_persist puts the align_edges kernel on a persistent grid: it needs "
                        "align_edges and programs_per_sm > 0")
    if cfg.affine_table and not (cfg.align_edges and not cfg.edges_persist):
        problems.append("affine_table feeds the align_edges kernel's affine loads at every row's "
                        "shift: it needs align_edges, and edges_persist reads them once already")
    if cfg.edges_maxnreg and not cfg.align_edges:
        problems.append("edges_maxnreg caps the align_edges kernel's registers: it needs "
                        "align_edges")
    if cfg.loop_const_stride and not cfg.loop_const_cols:
        problems.append("loop_const_stride makes the rows' distance the looped kernel's constant "
                        "width: it needs loop_const_cols")
    if cfg.split_maxnreg and not cfg.row_split:
        problems.append("split_maxnreg caps the split-row kernel's registers: it needs row_split")
    if cfg.loop_full_from > cfg.single_pass_max:
        problems.append("loop_full_from exceeds single_pass_max: rows that wide loop already")
    loop_per_thread = cfg.loop_block // (32 * cfg.loop_warps)
    if loop_per_thread < 1:
        problems.append("loop_block is smaller than one element per thread of loop_warps")
    if loop_per_thread > 32:
        problems.append(f"loop tile holds {loop_per_thread} values per thread in each vector")
    return problems


def bytes_moved(n_rows: int, n_cols: int, itemsize: int, residual: bool = False,
                has_weight: bool = True, has_bias: bool = False) -> int:
    """x read once, y written once (and the residual read and the sum written when fused);
    the affine vectors once."""
    row_bytes = (4 if residual else 2) * n_rows * n_cols * itemsize
    return row_bytes + (int(has_weight) + int(has_bias)) * n_cols * itemsize


@dataclass(frozen=True)
class NormTemplate(Template):
    """Renders an optional epilogue (a pointwise chain of the normalized value) into the store."""

    def render(self, cfg: Any, **context: Any) -> str:
        epilogue = context.get("epilogue")
        lines, result = [], "y"
        if epilogue is not None:
            if context.get("residual"):
                raise InvalidConfig("template norm: an epilogue with the residual form is not "
                                    "supported (its sum output would skip it)")
            rendered = render_expression(epilogue, 0, leaves={"acc": "y"})
            if "acc" not in rendered.used_leaves:
                raise InvalidConfig("the epilogue never reads ['acc'], the normalized value")
            lines, result = rendered.lines, rendered.result
        return super().render(cfg, **{**context, "epilogue_lines": lines,
                                      "epilogue_result": result})


TEMPLATE = NormTemplate(
    name="norm",
    family="norm_rows",
    jinja_file="norm.py.jinja",
    config_type=NormConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_{op}",
    doc=__doc__ or "",
)
