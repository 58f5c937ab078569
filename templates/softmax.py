"""Row-wise softmax template: the space, its constraints and its byte count.

The knobs are scale-free so that one config serves every shape of a task: rows whose width rounds up to
at most `single_pass_max` are read once (one tile per row group), wider rows take the online loop.
`tile_elems` sets rows per program (rows = tile_elems / width, so narrow rows are batched);
`elems_per_thread` sets num_warps for the one-pass kernel (warps = tile / (32 * elems_per_thread));
`loop_block`, `loop_warps` and `num_stages` shape the looped kernel; `programs_per_sm` > 0 makes the
one-pass grid persistent; `keep_in_l2` hints the cache to keep a long row for the second pass;
`align_rows` starts rows whose stride breaks 16-byte alignment (width 4097, say) at the aligned
address below them, masking the extra lanes, so loads stay vectorized.

Over a dim that is not the last (tensor viewed as (outer, R, inner)): a reduced dim that fits
`tile_elems` with 16 or more inner columns is one tile per program; a longer one loops over R in
tiles of `loop_block` elements, each program holding at most `col_block_inner` adjacent inner
columns. `col_split_per_sm` is how many programs per SM the looped path aims for: it narrows the
column blocks (to 16) and then splits R into chunks, whose partial max and sum a second kernel
combines before it writes (a few columns over a long R, (4, 32768, 16) say, or (8, 4097, 257)
whose 136 programs of 16 columns each walk 4097 rows). 0 is the rule before the knob: narrow to
2 programs per SM, split only below one per SM, at most 64 chunks. With the knob set, chunks stop
where each finish program's read of every chunk's partials would cost half of what its chunk
reads (128 chunks at (4, 32768, 16) took 20 us against 64 chunks' 14-15). `one_pass_block_inner`
caps the columns of a one-pass tile (0: as many as `tile_elems` holds): a tile of 16384 elements
reads 1000 channels in one pass, but as 128 columns of 128 channels it is slower than 64 columns
(GPU round 127). `one_pass_maxnreg_inner` > 0 caps the one-pass column kernel's registers a
thread (Triton's `maxnreg`), so that more of its programs share an SM: at 64, two 512-thread
programs instead of one (72-77 registers without it), one's loads overlapping the other's math
and stores (32x1000x1024 float32 from 100 to 94 us, bench/probe_log_softmax_dim1.py, round 227).

Both looped paths (a last-dim row wider than `single_pass_max`, and the unsplit column loop) read
their data twice: the second pass finds it in L2 only if what every program in flight reads fits
there (256 float32 rows of 128256 are 131 MB against an H100's 50 MB). `loop_programs_per_sm` > 0
puts them on a grid of that many programs per SM, each walking rows (or column tiles) with the
grid's stride, so fewer are in flight; `reverse_last_pass` walks the second pass from the end,
where the blocks the first pass read last are the likeliest still in L2. With either knob set
and `keep_in_l2`, the second pass also stores its output as streaming (`.cs`), so the output
does not push the input out of L2.

`row_split` > 0 reads such a row once instead: that many programs share it, each holding its
slice in registers (a slice of at most `single_pass_max`, `elems_per_thread` per thread). They
exchange their slices' max and sum through a float32 workspace and wait for each other at a
per-row counter before they write, so the grid must be resident at once: it is a cooperative
launch (the driver refuses a grid that is not) of as many groups as fit the GPU, each walking
rows with the groups' stride. Triton's interpreter runs programs one after another, so there
the kernel runs in two launches: one stores the partials, the other reloads its slice and writes.
Rows whose slices would exceed `single_pass_max` take the looped kernels. `row_prefetch` loads
a program's slice of its next row before it waits for this row's partials (twice the registers).
`row_ahead` (with `row_split`) goes further: a program publishes its next row's partials as soon
as that row is loaded, before it writes this row, each as one int64 word in a slot of its own
that is also its readiness mark, so there is no counter to arrive at: the words of a row's other
programs are usually there when it comes to the row (it holds two slices, as with prefetch;
`row_prefetch` changes nothing with it). `ahead_depth` 2 keeps it two rows ahead: the load of the
row after next is issued before this row's work, and the next row's partials come from a load
issued a row earlier (three slices in registers), meant to put more bytes in flight on each SM.
On an H200 it lost (GPU round 373: 93.3 against 81.7 us at 256x128256 float32): the third slice
takes a thread from 127 registers to 169, so one program holds an SM where two did
(bench/compile_split_ahead.py). `row_lag` (with `row_ahead`, at `ahead_depth` 1) instead holds
one slice at a time: a program reads its next row, publishes that row's pair, then re-reads the
slice of the row before (which its first read left in L2) and writes it, so the pairs it needs
were published a step earlier and its registers hold one slice, not two. `split_maxnreg` caps
the split kernel's registers (Triton's `maxnreg`, 40, 48, 80 or 128): at 80, three programs of 8
warps fit an SM where two did; a cap above a thread's share of its block's 65536 registers (80
at 32 warps) is lowered to that share, which the GPU would otherwise refuse to launch (round
460). bench/probe_split_lag.py timed the pair on an H200 (GPU rounds
376-377): 78.0 us against the served kernel's 82.7 at 256x128256 float32, with 64 or 72
registers slower (spills). Swept on the served configs (round 378), `row_lag` serves float32 rows
over 65536 wide: softmax 1.26.0 (32 programs a row, no cap) 75.7 us against 82.0, log_softmax
1.29.0 71.0 against 77.6. `lag_hold` (with `row_lag`; without it the knob changes nothing, so
that a sampled config is not refused for it) keeps the first 1-4 quarters of a program's slice
in registers from the step that reads them to the step that writes them, so only the rest is
read again from L2 (4: none is). `lag_hold_exp` (with `lag_hold`, softmax's; log-softmax renders
without it) keeps those quarters as exp(x - the slice's max), which the slice's sum took anyway,
and scales them by exp(slice max - row max) / row sum when it writes: one exponential an element
where `row_lag` takes two. The quarters are combined lane by lane before each reduction (a
reduction a quarter took 16 barriers a step against 4 and lost by 20-25 us, round 459). On an
H200 (round 459, bench/probe_split_reread.py) the walk itself as a plain copy took 70.5 us at
256x128256 float32 against a copy's 64.5 (69.1 with half of each slice held), and softmax 1.42.0
(3 quarters held as exponentials) 73.3 against 75.0-75.3; held quarters cost log-softmax a
program an SM (72.4 against 70.9). `split_maxnreg` 48 gives such a kernel its fifth program an SM
back (8 warps: 48 registers, at most a few spilled; 40, six).

`align_edges` sends a last-dim row whose width breaks 16-byte alignment (4097 float32, say) that
fits `single_pass_max` to a kernel of its own, as the norm template's knob does: each row's
aligned body is read and written under a bound that is a multiple of the vector width, so its
accesses stay 16 bytes wide, and the few elements before and after it go apart. `align_rows`'
tile masks its lanes by a per-row shift, which Triton cannot prove constant over a vector:
compiled for sm_90 at 4097 float32 it moves every element alone, as without it. On an H200 it
serves `cols_le_16384` in each dtype (softmax 1.21.0-1.23.0, GPU round 362: 4096x4097 float32
37.0 -> 35.6 us). `body_tile` (with `align_edges`), as the norm template's: that kernel's tile
spans the aligned body (4096 elements for a 4097-wide float32 row), not the row (8192, half of it
masked). On an H200 it won `cols_le_16384` in each dtype (softmax 1.27.0-1.29.0, GPU rounds 388
and 391: 4096x4097 from 0.89 to 0.94 of the copy bandwidth in float32, 0.49-0.51 to 0.80 in
16-bit), and log-softmax's (log_softmax 1.30.0-1.32.0, round 395: 16-bit 0.49 to 0.79-0.80).
`stagger_phases` > 0 staggers the one-pass kernel's first wave: of the programs the GPU starts at
once (SMs times the programs an SM holds, from the compiled kernel), program p spins
(p % stagger_phases) * `stagger_step` clocks before its first load. Every program of that kernel
reads its whole tile before it stores any of it, and without the stagger every SM of the first
wave reduces and exponentiates at the same time while the memory idles; the later waves do not
start in step. On an H200 (GPU round 454, bench/probe_softmax_phase.py) 4 phases 2000 clocks apart
took the float32 softmax of 1024x32768 from 70.6 to 66.5-67.0 us (0.92 to 0.97 of a copy of its
bytes), log-softmax from 71.0 to 67.0; 2 phases gained half as much, and the exponentials moved in
part onto the FMA pipes (a polynomial) gained nothing. The one-pass column kernel (over a non-last
dim) staggers its first wave the same way, and the split-row kernel a row ahead its groups (all
resident). Swept (round 454) it won float32 1024x32768 (softmax 1.40.0, log_softmax 1.38.0: 8
phases 1000 clocks apart) and bfloat16 softmax's (1.41.0), and lost or tied at the split rows
(256x128256), over dim 1 and at 8192x4096. Not in Triton's interpreter (the spin is PTX).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from templates.base import Param, Template, warps_for

MAX_REGS_ELEMS_PER_THREAD = 128  # fp32 values a thread can hold before the compiler spills


@dataclass(frozen=True)
class SoftmaxConfig:
    single_pass_max: int
    tile_elems: int
    elems_per_thread: int
    loop_block: int
    loop_warps: int
    num_stages: int
    programs_per_sm: int
    keep_in_l2: bool
    align_rows: bool
    col_block_inner: int
    col_split_per_sm: int
    one_pass_block_inner: int
    loop_programs_per_sm: int
    reverse_last_pass: bool
    row_split: int
    row_prefetch: bool
    row_ahead: bool
    one_pass_maxnreg_inner: int
    align_edges: bool
    ahead_depth: int
    row_lag: bool
    split_maxnreg: int
    body_tile: bool
    stagger_phases: int
    stagger_step: int
    lag_hold: int
    lag_hold_exp: bool


SPACE = (
    Param("single_pass_max", (2048, 4096, 8192, 16384, 32768, 65536)),
    Param("tile_elems", (1024, 2048, 4096, 8192, 16384)),
    Param("elems_per_thread", (4, 8, 16, 32)),
    Param("loop_block", (1024, 2048, 4096, 8192)),
    Param("loop_warps", (4, 8, 16)),
    Param("num_stages", (1, 2, 3, 4)),
    Param("programs_per_sm", (0, 1, 2, 4, 8)),
    Param("keep_in_l2", (False, True)),
    Param("align_rows", (False, True)),
    Param("col_block_inner", (16, 32, 64, 128, 256), legacy=128),
    Param("col_split_per_sm", (0, 4, 8, 16), legacy=0),
    Param("one_pass_block_inner", (0, 32, 64, 128), legacy=0),
    Param("loop_programs_per_sm", (0, 1, 2, 4), legacy=0),
    Param("reverse_last_pass", (False, True), legacy=False),
    Param("row_split", (0, 2, 4, 8, 16, 32), legacy=0),
    Param("row_prefetch", (False, True), legacy=False),
    Param("row_ahead", (False, True), legacy=False),
    Param("one_pass_maxnreg_inner", (0, 64, 128), legacy=0),
    Param("align_edges", (False, True), legacy=False),
    Param("ahead_depth", (1, 2), legacy=1),
    Param("row_lag", (False, True), legacy=False),
    Param("split_maxnreg", (0, 40, 48, 80, 128), legacy=0),
    Param("body_tile", (False, True), legacy=False),
    Param("stagger_phases", (0, 2, 4, 8), legacy=0),
    Param("stagger_step", (1000, 2000), legacy=2000),
    Param("lag_hold", (0, 1, 2, 3, 4), legacy=0),
    Param("lag_hold_exp", (False, True), legacy=False),
)

# The bfloat16 winner of 40 trials on an H200 (zoo entry softmax 1.1.0), a strong start anywhere.
DEFAULT = SoftmaxConfig(
    single_pass_max=32768, tile_elems=1024, elems_per_thread=32, loop_block=4096, loop_warps=16,
    num_stages=3, programs_per_sm=0, keep_in_l2=False, align_rows=False, col_block_inner=128,
    col_split_per_sm=0, one_pass_block_inner=0, loop_programs_per_sm=0, reverse_last_pass=False,
    row_split=0, row_prefetch=False, row_ahead=False, one_pass_maxnreg_inner=0, align_edges=False,
    ahead_depth=1, row_lag=False, split_maxnreg=0, body_tile=False, stagger_phases=0,
    stagger_step=2000, lag_hold=0, lag_hold_exp=False,
)

# Over a dim that is not the last, the tile holds the whole reduced dim when it is at most
# tile_elems / 16 long (one read, one write): 4096 elements cover 256 channels.
INNER_DIM_DEFAULT = dataclasses.replace(DEFAULT, tile_elems=4096, elems_per_thread=16)


def constraints(cfg: SoftmaxConfig) -> list[str]:
    problems = []
    if cfg.loop_block > cfg.single_pass_max:
        problems.append("loop_block exceeds single_pass_max: rows that need the loop are wider")
    # The widest single-pass tile (one row of single_pass_max) and the batched narrow tile must both
    # fit in registers at the warp count the launcher will pick.
    for elems in (cfg.single_pass_max, cfg.tile_elems):
        per_thread = elems // (32 * warps_for(elems, cfg.elems_per_thread))
        if per_thread > MAX_REGS_ELEMS_PER_THREAD:
            problems.append(f"a {elems}-element tile holds {per_thread} values per thread (spills)")
    if cfg.ahead_depth > 1 and not (cfg.row_split and cfg.row_ahead):
        problems.append("ahead_depth > 1 needs row_split and row_ahead (it deepens their kernel)")
    if cfg.row_lag and not (cfg.row_split and cfg.row_ahead and cfg.ahead_depth == 1):
        problems.append("row_lag needs row_split and row_ahead at ahead_depth 1 (it replaces the "
                        "ahead kernel's loop)")
    if cfg.split_maxnreg and not cfg.row_split:
        problems.append("split_maxnreg caps the split-row kernel's registers: it needs row_split")
    if cfg.stagger_step != 2000 and not cfg.stagger_phases:
        problems.append("stagger_step spaces the first wave's start times: it needs "
                        "stagger_phases")
    loop_per_thread = cfg.loop_block // (32 * cfg.loop_warps)
    if loop_per_thread < 1:
        problems.append("loop_block is smaller than one element per thread of loop_warps")
    if loop_per_thread > 64:
        problems.append(f"loop tile holds {loop_per_thread} values per thread in each of 3 vectors")
    return problems


def bytes_moved(n_rows: int, n_cols: int, itemsize: int) -> int:
    """Each element read once and written once: the floor any softmax must move."""
    return 2 * n_rows * n_cols * itemsize


TEMPLATE = Template(
    name="softmax",
    family="softmax_rows",
    jinja_file="softmax.py.jinja",
    config_type=SoftmaxConfig,
    space=SPACE,
    default=DEFAULT,
    bucket_defaults=(("inner_dim", INNER_DIM_DEFAULT),),
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_softmax",
    doc=__doc__ or "",
)
