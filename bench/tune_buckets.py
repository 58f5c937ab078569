"""Tune the norms, plain reductions, softmaxes, gated units and cross-entropy per shape bucket on
the GPU; promote each bucket's winner.

For each op (a task, tasks/<name>.py; softmax_dim1 is softmax over a non-last dim) and dtype, the
task's GPU shapes are grouped by the zoo bucket of their first input
(`kernel_zoo.buckets.bucket_of`: the row width, or "inner_dim" for a reduction over a dim that more
elements follow). DEFAULT, hand-picked variants and `--samples` random valid configs of the plan's
template are rendered, screened against a float32 reference at every shape of the task (a config
wrong anywhere is dropped), and timed at every shape with the verifier's timer (L2 flushed before
each run, CUDA events, medians, variants interleaved) beside eager PyTorch and torch.compile, all
in this one process; with `--graphs` each callable is captured in a CUDA graph and its replay is
timed, the GPU's work without the host's, as `bench/memory_bound.py --graphs` (the table the
issue's bars are read from) times it. `--buckets` limits the run to the shapes of the buckets
named. The Triton kernels are compiled first by `--jobs` processes into Triton's disk cache, so the
timing process only loads them.

Per bucket, the candidate is the config with the best geometric-mean speedup over the faster
baseline at the bucket's shapes among those faster than eager PyTorch at every one of them (eager
is what `kernel_zoo.ops` runs where the zoo has no config, and what it would run instead of this
kernel). With `--zoo` a candidate that would replace the bucket's stored file is first timed
again beside that file, the two alone, each as `CONFIRM_COPIES` graphs, and keeps the bucket
only if still `MIN_GAIN` faster there with each of its graphs faster than each of the file's
(`confirm`; `--no-confirm` skips it): the best of hundreds of timings of kernels that run alike
at a shape is faster than any one of them by more than that margin (GPU round 449), and two
graphs of one call read apart by as much (round 450). The
candidate then goes through the verifier (every check, fresh baselines) on the
bucket's shapes, and with `--zoo` is promoted under that bucket when the verifier accepts it,
measures it faster than eager PyTorch at every shape, and measures it at no less than
`COMPILE_FLOOR` of torch.compile on the geometric mean (`promotable`). So a kernel that ties
torch.compile within timing noise serves its bucket rather than eager PyTorch, which is slower than
both there; one clearly behind torch.compile is not shipped (`kzoo sweep` would flag it as
`slower-than-baseline`). A bucket without a winner gets no config, and the op runs the entry's
`any` config there where it has one (argmax), else the PyTorch reference (the norms' and
reductions' buckets do not borrow a neighbour's; softmax's do, and a bucket of theirs is served,
and guarded, by the config dispatch picks for it; before a bucket others borrow from changes
hands, each of those gets the kernel it ran as its own config, in the same new version:
`pin_borrowers`). With `--zoo`, the configs the zoo's newest entry
serves (every bucket's, rendered by today's template) compete among the candidates, so a bucket
changes hands only to a config faster there than what serves it, and a bucket whose winner renders
the very code it is served with already is left as it is; so do the configs it serves in the other
dtypes, so that a dtype without configs starts from its neighbours' tuned ones (GPU rounds
189-191 tuned float32 without them); with `--siblings`, also those the zoo serves for the other
ops of the same template (LayerNorm from RMSNorm's, log-softmax from softmax's). Each bucket's
stored kernel file is timed too, as it is (and the served params with the knobs added since, `SERVED_VARIANTS`); a config more
than `SHAPE_SLACK` slower than that file at any one of the bucket's shapes, and slower there than
min(eager, torch.compile), does not take the bucket, whatever its geometric mean (the issue's bar
is per shape), nor does one less than
`MIN_GAIN` faster on it; one that meets more of the issue's per-shape bars (`bars_met`: at least
torch.compile at a shape, at least 90% of the copy bandwidth at a large one) wins over a geometric
mean at most `BAR_TIE` better, where it is more than `MIN_GAIN` faster at one of the shapes it
meets them at (`_bars_beyond_spread`). `--only-uncovered` leaves the buckets the target zoo's
newest entry holds a config for (for this GPU and dtype) as they are. `--knobs` times only the
variants that set the knobs named; `--local` derives the variants from the config serving each
swept bucket on this GPU only (not every bucket's) and leaves the other dtypes' configs out: a
search around what the bucket runs now, a few times fewer kernels.

    python bench/tune_buckets.py --ops rms_norm,sum --dtypes bfloat16 --samples 10 \
        --zoo kernel_zoo/entries --out bench/results/runs
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import datetime as dt
import hashlib
import json
import multiprocessing
import random
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.loop import _promote  # noqa: E402
from agent.sweep import SHAPE_SLACK  # noqa: E402
from agent.plan import plan  # noqa: E402
from kernel_zoo import buckets  # noqa: E402
from kernel_zoo.store import op_names  # noqa: E402
from templates import InvalidConfig, get_template, params_of  # noqa: E402
from bench.memory_bound import BANDWIDTH_BAR, LARGE_L2_MULTIPLE  # noqa: E402
from bench.tune_reduce import _close, _inputs  # noqa: E402  (the screening helpers)
from verifier.core import DTYPES, Verifier, load_candidate  # noqa: E402
from verifier.verdict import geomean  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import (  # noqa: E402
    L2Flusher, bench, copies_in_turn, copy_bandwidth, graphed_where_possible, merge_copies)

OPS = ("rms_norm", "layer_norm", "add_rms_norm", "sum", "mean", "amax", "amin", "argmax",
       "softmax", "log_softmax", "softmax_dim1", "log_softmax_dim1", "swiglu", "geglu",
       "cross_entropy")
# The tasks (tasks/<name>.py) whose op is named otherwise: softmax over a dim that is not the last
# has tasks of its own, and their calls all fall in the op's inner_dim bucket.
TASK_OPS = {"softmax_dim1": "softmax", "log_softmax_dim1": "log_softmax"}

# One idea each, applied to DEFAULT; the ones a template's constraints refuse are skipped.
VARIANTS = {
    "norm": [
        dict(num_stages=1), dict(num_stages=3), dict(keep_in_l2=False), dict(align_rows=True),
        dict(elems_per_thread=4), dict(elems_per_thread=8), dict(elems_per_thread=32),
        dict(tile_elems=1024), dict(tile_elems=2048), dict(tile_elems=8192),
        dict(programs_per_sm=1), dict(programs_per_sm=2), dict(programs_per_sm=4),
        dict(programs_per_sm=8), dict(single_pass_max=32768, elems_per_thread=32),
        dict(single_pass_max=8192, loop_block=4096, loop_warps=4),
        dict(programs_per_sm=2, persist_full_rows=False),
        dict(programs_per_sm=8, persist_full_rows=False, elems_per_thread=32),
    ],
    "reduce": [
        dict(num_stages=1), dict(num_stages=3), dict(evict_first=False), dict(align_rows=False),
        dict(row_block_max=4096), dict(row_block_max=16384, elems_per_thread=32),
        dict(tile_elems=1024), dict(tile_elems=8192), dict(elems_per_thread=4),
        dict(programs_per_sm=1), dict(programs_per_sm=4), dict(loop_block=8192, loop_warps=16),
        dict(split_per_sm=0), dict(split_per_sm=4), dict(col_block_inner=64, col_warps=2),
        dict(col_block_inner=512), dict(col_tile_elems=8192, col_warps=16, num_stages=1),
        # round 60's fastest column configs (runs/tune-reduce-h100-round60.json): narrow blocks,
        # a deeper pipeline, split or not
        dict(col_block_inner=64, col_tile_elems=2048, col_warps=2, split_per_sm=4, num_stages=3),
        dict(col_block_inner=64, col_tile_elems=4096, col_warps=8, split_per_sm=0, num_stages=4),
        # one integer max over packed keys per tile (amax, amin, argmax; sum and mean render the
        # same kernel either way): fewer shuffles and barriers (bench/compile_reduce.py)
        dict(packed_keys=True), dict(packed_keys=True, elems_per_thread=8),
        # rows filling under 3/4 of their one-pass tile (4097 wide) loop, full ones (8192) do
        # not: round 119's fastest loops at 4096x4097 beside the one pass at 8192x8192
        dict(one_pass_min_fill=75, loop_block=1024, loop_warps=2),
        dict(one_pass_min_fill=75, loop_block=1024, loop_warps=2, align_rows=False,
             evict_first=False),
        dict(one_pass_min_fill=75, loop_block=1024, loop_warps=4, num_stages=3,
             evict_first=False),
        dict(one_pass_min_fill=75, loop_block=2048, loop_warps=4),
        dict(one_pass_min_fill=75, row_block_max=16384, elems_per_thread=32, loop_block=1024,
             loop_warps=2),
        # torch.compile's kernel there (probe-inductor-rows-h200-round354.json): a 4097-wide row a
        # program of 16 warps, looped, elementwise partial sums, loads hinted evict_first; mean
        # float32 4096x4097 stayed 1.3% behind it with both writing one address (GPU round 451)
        *[dict(one_pass_min_fill=75, loop_block=block, loop_warps=16, align_rows=align,
               num_stages=stages)
          for block in (2048, 4096) for align in (True, False) for stages in (1, 2)],
        dict(one_pass_min_fill=75, loop_block=1024, loop_warps=8, num_stages=1),
        # and its width a constant (const_cols): compiled for sm_90, the served float32 mean's
        # one-pass tile of a 4097-wide row issues 9 loads a thread, 1 masked, where it took 16
        # masked ones (bench/compile_reduce.py --const-cols,
        # bench/results/compile-reduce-const-cols-sm90.json)
        dict(const_cols=True),
        # one warp per 1000-wide row (1024-element tiles, 32 elements a thread): the row's
        # reduction stays in its warp's shuffles, no shared memory or barrier (argmax there was
        # 0.92x torch.compile in round 132)
        dict(tile_elems=1024, elems_per_thread=32), dict(tile_elems=1024, elems_per_thread=32,
                                                         packed_keys=True),
        dict(tile_elems=2048, elems_per_thread=32, packed_keys=True),
        # round 133's column argmax winner (64-column blocks, 4096-element tiles of 8 warps, four
        # deep, no split: 98.3 against 120.4 us at 32x4096x1024) and its neighbours
        dict(col_block_inner=64, col_tile_elems=4096, col_warps=4, split_per_sm=0, num_stages=4),
        dict(col_block_inner=64, col_tile_elems=8192, col_warps=16, split_per_sm=0, num_stages=3),
        dict(col_block_inner=32, col_tile_elems=4096, col_warps=8, split_per_sm=0, num_stages=4),
        dict(col_block_inner=128, col_tile_elems=4096, col_warps=8, split_per_sm=0, num_stages=4),
        dict(col_block_inner=64, col_tile_elems=4096, col_warps=8, split_per_sm=1, num_stages=4),
        # the column argmax keeps a value and an index per lane (at 64x64 tiles of 8 warps its
        # registers fit fewer programs an SM than amax's same kernel): fewer lanes a thread, and
        # 128-column blocks (96.3 us at 32x4096x1024 in round 134, but 64 programs at 8192-wide
        # rows unsplit) split to fill the SMs
        dict(col_block_inner=64, col_tile_elems=2048, col_warps=8, split_per_sm=0, num_stages=4),
        dict(col_block_inner=64, col_tile_elems=2048, col_warps=4, split_per_sm=0, num_stages=4),
        dict(col_block_inner=128, col_tile_elems=4096, col_warps=8, split_per_sm=1, num_stages=4),
        dict(col_block_inner=128, col_tile_elems=2048, col_warps=8, split_per_sm=1, num_stages=4),
        dict(col_block_inner=128, col_tile_elems=8192, col_warps=16, split_per_sm=1, num_stages=3),
        # round 155: 2048-element tiles of 4 warps took 32x4096x1024 in 93.2 us against the
        # served 98.0, unsplit (69.8 against 54.7 at 8192x8192): split where programs are few
        dict(col_block_inner=64, col_tile_elems=2048, col_warps=4, split_per_sm=1, num_stages=4),
        dict(col_block_inner=64, col_tile_elems=2048, col_warps=4, split_per_sm=2, num_stages=4),
        dict(col_block_inner=64, col_tile_elems=2048, col_warps=4, split_per_sm=4, num_stages=4),
        dict(col_block_inner=64, col_tile_elems=2048, col_warps=4, split_per_sm=1, num_stages=3),
        dict(col_block_inner=64, col_tile_elems=1024, col_warps=2, split_per_sm=1, num_stages=4),
        # amax and amin in one NaN-keeping reduction a tile (round 202: their best config took
        # 4096x4097 float32 in 27.0 us and torch.compile's amax 25.9; sum's kernel takes 25.8 in
        # round 224's table)
        dict(nan_combine=True), dict(nan_combine=True, align_rows=False),
        dict(nan_combine=True, tile_elems=1024, elems_per_thread=32),
        dict(nan_combine=True, row_block_max=16384, elems_per_thread=32),
        dict(nan_combine=True, one_pass_min_fill=75, loop_block=1024, loop_warps=2),
        # argmax and argmin in one NaN-keeping max and a first-index min a tile, and the tiles
        # argmax's H200 winners took (rounds 381-382: one 1000-wide row a program of 4 warps)
        dict(max_then_index=True), dict(max_then_index=True, tile_elems=1024, elems_per_thread=8),
        dict(max_then_index=True, tile_elems=2048, elems_per_thread=32),
    ],
}


# Applied to each config the zoo serves (with --zoo): what serves now with a knob added since, which
# lets one config treat the bucket's emptier rows (4097 wide) apart from its full ones (8192).
SERVED_VARIANTS = {
    # LayerNorm's looped rows in one statistics pass (layer_norm float32 at 256x65536: the
    # three-pass kernel's best was 88 us against torch.compile's 75 in round 189)
    "norm": [dict(persist_full_rows=False), dict(one_pass_stats=True),
             dict(one_pass_stats=True, persist_full_rows=False),
             # the normalize pass from the row's end (add_rms_norm float32 at 256x65536 read
             # 0.83 of the copy bandwidth in round 192: the sum's re-read missing L2)
             dict(reverse_last_pass=True), dict(reverse_last_pass=True, one_pass_stats=True),
             # a 65536-wide row read once by 2 to 16 programs that share their slices' statistics
             dict(row_split=2, single_pass_max=32768), dict(row_split=4),
             dict(row_split=4, row_prefetch=True), dict(row_split=8),
             dict(row_split=8, row_prefetch=True), dict(row_split=16, row_prefetch=True),
             dict(row_split=2, single_pass_max=32768, row_prefetch=True),
             dict(row_split=4, single_pass_max=32768, elems_per_thread=32, row_prefetch=True),
             # each program a row ahead, as softmax's (slot words, no counter)
             *[dict(row_split=split, elems_per_thread=per_thread, row_ahead=True,
                    single_pass_max=32768)
               for split in (2, 4, 8, 16, 32) for per_thread in (8, 16, 32)],
             # two rows ahead, as softmax's (float32 add + RMSNorm at 256x65536 and 4096x4097
             # read 0.88-0.90 of copy on an H200 a row ahead, round 367; round 373: no faster)
             *[dict(row_split=split, elems_per_thread=per_thread, row_ahead=True,
                    ahead_depth=2, single_pass_max=32768)
               for split in (4, 8, 16, 32) for per_thread in (8, 16, 32)],
             # each row written a step after it is read, from a second read that L2 holds
             # (fused: of the sum stored at the first): one slice in registers, and with maxnreg
             # 80 or 128 more programs an SM (as softmax's, bench/probe_split_lag.py)
             *[dict(row_split=split, elems_per_thread=per_thread, row_ahead=True, row_lag=True,
                    split_maxnreg=regs, single_pass_max=32768)
               for split in (4, 8, 16, 32) for per_thread in (16, 32) for regs in (0, 80, 128)],
             # full rows of 8192 (4096) through the looped kernel, as torch.compile's RMSNorm
             # (two L2-hinted passes, 16 warps; 124.4 us at 16384x8192 bfloat16 on an H200 where
             # no one-pass config beat 128.6: probe-inductor-norm-h200.json)
             *[dict(loop_full_from=cols, loop_block=block, loop_warps=warps, keep_in_l2=True)
               for cols in (4096, 8192)
               for block, warps in ((2048, 16), (4096, 16), (1024, 8), (2048, 8), (1024, 4))],
             dict(loop_full_from=8192, loop_block=2048, loop_warps=16, keep_in_l2=True,
                  num_stages=1),
             # the same loops with the weight hinted to stay in L2 (probe_norm_variants.py:
             # 124.4 us at 16384x8192 bfloat16 with 4096-element blocks of 16 warps, 32.9 at
             # 8192x4096 with 8 warps)
             *[dict(loop_full_from=cols, loop_block=block, loop_warps=warps, keep_in_l2=True,
                    hint_affine=True, num_stages=stages)
               for cols, warps in ((8192, 16), (4096, 8)) for block in (2048, 4096)
               for stages in (1, 2)],
             # and with the width a constant where it is whole blocks (unrolled, unmasked: the
             # probe's 124.4 us against the hinted loop's 126.6 in round 341)
             *[dict(loop_full_from=cols, loop_block=block, loop_warps=warps, keep_in_l2=True,
                    hint_affine=True, loop_const_cols=True, num_stages=1)
               for cols, warps in ((8192, 16), (4096, 8)) for block in (2048, 4096)],
             # and the rows' distance a constant too where they are contiguous (float32 RMSNorm
             # 16384x8192 on an H200: 250.5 us with both constant, torch.compile's time, 254.4
             # with the stride runtime; round 455, probe_norm_variants.py --served)
             *[dict(loop_full_from=cols, loop_block=block, loop_warps=warps, keep_in_l2=True,
                    hint_affine=hint, loop_const_cols=True, loop_const_stride=True,
                    num_stages=1)
               for cols, warps in ((8192, 16), (4096, 8), (4096, 16)) for block in (2048, 4096)
               for hint in (False, True)],
             # a width that breaks 16-byte alignment (4097) through the body-and-edges kernel,
             # one row (or two) a program of 8 to 32 warps (probe_norm_align.py: float32 add +
             # RMSNorm at 4096x4097 68.3 us against the served 80.9, round 355)
             dict(align_edges=True),
             *[dict(align_edges=True, tile_elems=tile, elems_per_thread=per_thread)
               for tile in (8192, 16384) for per_thread in (8, 16, 32)],
             # and its tile as wide as the aligned body (4096 for 4097), not the row (8192;
             # won every 4097-wide bucket on an H200, rounds 388 and 391)
             *[dict(align_edges=True, body_tile=True, tile_elems=tile,
                    elems_per_thread=per_thread)
               for tile in (4096, 8192, 16384) for per_thread in (8, 16, 32)],
             # that kernel on a persistent grid whose programs' rows share one shift, the affine
             # vectors read once a program (16-bit LayerNorm at 4096x4097 read 0.46 of copy
             # with body_tile in round 391: a tile of 32 values a thread reads its weight and
             # bias at each row's shift, 64 scalar loads a row, bench/compile_norm_align.py)
             *[dict(align_edges=True, body_tile=True, edges_persist=True, programs_per_sm=per_sm,
                    tile_elems=tile, elems_per_thread=per_thread, num_stages=stages)
               for per_sm in (2, 4, 8) for tile in (4096, 8192) for per_thread in (16, 32)
               for stages in (1, 2)],
             # the body_tile kernel with the affine values from per-head tables, 16 bytes at a
             # time (edges_persist won 16-bit LayerNorm and RMSNorm at 4096x4097 by 3-6% in
             # round 393 at 2 programs an SM), and with its registers capped: 16-bit LayerNorm's
             # tile of 32 values a thread takes 116 registers with the tables, 2 programs of 8
             # warps an SM, 3 at 80 (200 bytes a thread spilled; compile-norm-affine-table-*)
             *[dict(align_edges=True, body_tile=True, edges_persist=False, affine_table=True,
                    tile_elems=tile, elems_per_thread=per_thread, edges_maxnreg=regs)
               for tile in (4096, 8192) for per_thread in (16, 32) for regs in (0, 64, 80)],
             *[dict(align_edges=True, body_tile=True, edges_persist=False, edges_maxnreg=regs,
                    tile_elems=tile, elems_per_thread=32)
               for tile in (4096, 8192) for regs in (64, 80)],
             # the split kernel's slot words tagged with the launch's epoch, not zeroed for each
             # call (add + RMSNorm float32 at 256x65536: 69.4-69.6 us against the served
             # 70.4-70.9 in GPU round 457, bench/probe_split_workspace.py --epoch), and with the
             # registers capped where the tag took a thread past a quadrant's share (184 against
             # the served 168 a thread: four 2-warp programs an SM where six fit; 72.4 us)
             *[dict(epoch_slots=True, split_maxnreg=regs) for regs in (0, 128, 168)],
             # the tag from each program's own first slot, with no ticket counter (`slot_tag`
             # "own": every program of a launch adding to one word, and branching on its ticket
             # before its first loads, cost the ticketed add + RMSNorm 0.4-0.9 us against words
             # zeroed outside the timing in round 457's probe)
             *[dict(epoch_slots=True, slot_tag="own", split_maxnreg=regs)
               for regs in (0, 128, 168)]],
    "reduce": [dict(one_pass_min_fill=75), dict(one_pass_min_fill=75, row_block_max=8192),
               # the row's width a constant (const_cols), alone and with torch.compile's 16-warp
               # loop for rows that fill little of their tile
               dict(const_cols=True), dict(const_cols=True, align_rows=False),
               dict(const_cols=True, body_tile=True, align_rows=True),
               *[dict(const_cols=True, one_pass_min_fill=75, loop_block=block, loop_warps=16,
                      num_stages=1) for block in (2048, 4096)],
               dict(nan_combine=True, packed_keys=False),
               dict(nan_combine=True, packed_keys=False, align_rows=False),
               # argmax and argmin in one NaN-keeping max and a first-index min a tile (float32
               # 4099x1000 read 0.94x torch.compile with packed_keys in round 367, where amax
               # over the same bytes took 9.1 us against argmax's 10.4), over the row tiles
               # an aligned row's one-pass tile as wide as its body (4096 for 4097), not the
               # row (8192): float32 sum and mean at 4096x4097 read 0.99x torch.compile
               *[dict(body_tile=True, align_rows=True, tile_elems=tile,
                      elems_per_thread=per_thread)
                 for tile in (4096, 8192, 16384) for per_thread in (8, 16, 32)],
               dict(max_then_index=True, packed_keys=False),
               *[dict(max_then_index=True, packed_keys=False, tile_elems=tile,
                      elems_per_thread=per_thread)
                 for tile in (1024, 2048, 4096, 8192) for per_thread in (8, 16, 32)]],
    "softmax": [
        # over a non-last dim (GPU round 127): one-pass tiles of 16384 elements read 1000
        # channels once (77 -> 60 us at 32x1000x1024) but, as 128 columns of 128 channels, lose
        # to 64 columns (90 against 55 us); more programs per SM on the looped path (narrower
        # column blocks, then chunks of the reduced dim) take 8x4097x257 from 51-54 to 41-43 us
        dict(tile_elems=16384, one_pass_block_inner=64, col_split_per_sm=8),
        dict(tile_elems=16384, one_pass_block_inner=64, col_split_per_sm=8, elems_per_thread=32),
        dict(tile_elems=16384, one_pass_block_inner=64, col_split_per_sm=8, num_stages=2),
        dict(tile_elems=16384, one_pass_block_inner=64, col_split_per_sm=4),
        dict(tile_elems=16384, one_pass_block_inner=32, col_split_per_sm=8),
        dict(tile_elems=16384, one_pass_block_inner=64),
        dict(tile_elems=8192, col_split_per_sm=8), dict(col_split_per_sm=8),
        # 128256-wide rows, few of them: the online loop's tile and the cache hint
        dict(keep_in_l2=True), dict(loop_block=8192, loop_warps=16),
        dict(loop_block=2048, loop_warps=8), dict(num_stages=4),
        dict(loop_block=8192, loop_warps=16, keep_in_l2=True),
        # the looped paths on a smaller grid, their second pass backward: float32 rows of 128256
        # and 32x1000x1024 over dim 1 read 0.62-0.68 of the copy bandwidth in round 196, their
        # second pass missing L2
        dict(reverse_last_pass=True), dict(loop_programs_per_sm=1),
        dict(loop_programs_per_sm=1, reverse_last_pass=True),
        dict(loop_programs_per_sm=2, reverse_last_pass=True),
        dict(loop_programs_per_sm=1, reverse_last_pass=True, keep_in_l2=True),
        dict(loop_programs_per_sm=2, reverse_last_pass=True, keep_in_l2=True),
        dict(loop_programs_per_sm=1, reverse_last_pass=True, loop_block=8192, loop_warps=16),
        # a 128256-wide row read once by 4, 8 or 16 programs that share their slices' max and sum
        # (the second pass above misses L2 either way: 0.68 of copy in float32, 0.60 in float16)
        dict(row_split=4), dict(row_split=8), dict(row_split=16),
        dict(row_split=8, elems_per_thread=16), dict(row_split=8, elems_per_thread=32),
        dict(row_split=16, elems_per_thread=16), dict(row_split=16, elems_per_thread=8),
        # the same with each program's next row loaded while it waits for this row's partials
        dict(row_split=4, row_prefetch=True), dict(row_split=16, row_prefetch=True),
        dict(row_split=16, elems_per_thread=16, row_prefetch=True),
        dict(row_split=16, elems_per_thread=32, row_prefetch=True),
        dict(row_split=8, elems_per_thread=32, row_prefetch=True),
        # smaller slices, more programs per SM to overlap one's wait with another's loads
        dict(row_split=32, row_prefetch=True), dict(row_split=32, elems_per_thread=16),
        dict(row_split=32, elems_per_thread=16, row_prefetch=True),
        dict(row_split=32, elems_per_thread=8, row_prefetch=True),
        dict(row_split=8, elems_per_thread=16, row_prefetch=True),
        # each program a row ahead: its next row's partials published before it writes this one,
        # as slot words, no counter (float32 256x128256 at 0.82-0.86 of copy in round 216-219)
        *[dict(row_split=split, elems_per_thread=per_thread, row_ahead=True)
          for split in (4, 8, 16, 32) for per_thread in (8, 16, 32)],
        # the one-pass column kernel at 64 (two 512-thread programs per SM) or 128 registers a
        # thread (32x1000x1024 float32 at 0.86 of copy with 72-77 registers, round 227)
        dict(one_pass_maxnreg_inner=64), dict(one_pass_maxnreg_inner=128),
        # a width that breaks 16-byte alignment (4097) through the body-and-edges kernel, as the
        # norms' (compiled for sm_90 its body moves 16 bytes at a time; softmax 1.21.0-1.23.0)
        dict(align_edges=True),
        *[dict(align_edges=True, tile_elems=tile, elems_per_thread=per_thread)
          for tile in (8192, 16384) for per_thread in (8, 16, 32)],
        # and its tile as wide as the aligned body (4096 for 4097), not the row (8192; softmax
        # 1.27.0-1.29.0, rounds 388 and 391)
        *[dict(align_edges=True, body_tile=True, tile_elems=tile, elems_per_thread=per_thread)
          for tile in (4096, 8192, 16384) for per_thread in (8, 16, 32)],
        # a 32768-wide row (1024x32768) split too, each program a row ahead, so one row's loads
        # are in flight while the last is written: float32 read 0.89 of copy on an H200 in one
        # 1024-thread program a row, one program an SM (round 351)
        *[dict(single_pass_max=max_pass, row_split=split, elems_per_thread=per_thread,
               row_ahead=True)
          for max_pass, split in ((16384, 2), (16384, 4), (8192, 4), (8192, 8))
          for per_thread in (16, 32)],
        # two rows ahead (three slices in registers): float32 256x128256 read 0.75 of copy and
        # 1024x32768 0.88 on an H200 a row ahead (round 367), where an H100 read 0.91 (round
        # 229): the H200's bandwidth needs more bytes in flight on each SM (round 373: lost,
        # 93.3 against 81.7 us at 256x128256; a third slice halves the programs an SM holds)
        *[dict(row_split=split, elems_per_thread=per_thread, row_ahead=True, ahead_depth=2)
          for split in (8, 16, 32) for per_thread in (8, 16, 32)],
        *[dict(single_pass_max=max_pass, row_split=split, elems_per_thread=per_thread,
               row_ahead=True, ahead_depth=2)
          for max_pass, split in ((16384, 2), (16384, 4), (8192, 4))
          for per_thread in (16, 32)],
        # a row written a step after it is read, from a second read that L2 holds: one slice in
        # registers, and with maxnreg 80 three 8-warp programs an SM (bench/probe_split_lag.py,
        # rounds 376-377: 78.0 against the served 82.7 us at 256x128256 float32)
        *[dict(row_split=split, elems_per_thread=per_thread, row_ahead=True, row_lag=True,
               split_maxnreg=regs)
          for split in (8, 16, 32) for per_thread in (16, 32) for regs in (0, 80)],
        *[dict(single_pass_max=max_pass, row_split=split, elems_per_thread=per_thread,
               row_ahead=True, row_lag=True, split_maxnreg=regs)
          for max_pass, split in ((16384, 2), (16384, 4), (8192, 4), (8192, 8))
          for per_thread in (16, 32) for regs in (0, 80)],
        # row_lag with 1-4 quarters of each slice kept in registers across the step, so that
        # less of it is read a second time through L2, and with lag_hold_exp (softmax) kept as
        # exponentials, so that they are not taken twice (bench/probe_split_reread.py, round
        # 459: the lag walk as a plain copy 70.5 us at 256x128256 float32, with half held 69.1)
        *[dict(lag_hold=hold, lag_hold_exp=hold_exp) for hold in (1, 2, 3, 4)
          for hold_exp in (False, True)],
        *[dict(row_split=split, elems_per_thread=per_thread, row_ahead=True, row_lag=True,
               lag_hold=hold, lag_hold_exp=hold_exp, split_maxnreg=regs)
          for split in (16, 32) for per_thread in (8, 16, 32) for hold in (2, 3, 4)
          for hold_exp in (False, True) for regs in (0, 80)],
        # ... and at 32 programs a row of 8 warps capped at 48 or 40 registers, so that held
        # quarters keep five programs an SM (six at 40; compiled for sm_90, round 459)
        *[dict(row_split=32, elems_per_thread=16, row_ahead=True, row_lag=True, lag_hold=hold,
               lag_hold_exp=hold_exp, split_maxnreg=regs)
          for hold in range(5) for hold_exp in (False, True) for regs in (40, 48)],
        # the one-pass kernel's first wave started in 2-8 phases, so that its SMs do not all
        # exponentiate at once while the memory idles (bench/probe_softmax_phase.py, round 454:
        # float32 1024x32768 from 70.6 to 66.5-67.0 us at 4 phases 2000 clocks apart)
        *[dict(stagger_phases=phases, stagger_step=step)
          for phases, step in ((2, 2000), (4, 1000), (4, 2000), (8, 1000))],
    ],
    "pointwise": [
        # GeGLU's served config (8 warps over 4096-element blocks) read 0.97-0.98x torch.compile
        # at 4096x10240 and 8192x16384 in round 123's table, where SwiGLU's (16 warps) tied it
        dict(num_warps=16), dict(block=8192, num_warps=16), dict(block=8192, num_warps=8),
        dict(stream_hint=True), dict(num_warps=16, stream_hint=True), dict(col_block=2048),
        dict(block=8192, num_warps=16, col_block=4096), dict(tiling="flat"),
        dict(block=2048, num_warps=4), dict(num_stages=2), dict(programs_per_sm=4, num_warps=16),
        # torch.compile's GeGLU and SwiGLU kernels at 8192x16384 (GPU round 146,
        # runs/probe-inductor-glu-h100-round146.json): 1024-element blocks of 4 warps, a
        # program each
        dict(block=1024, num_warps=4), dict(block=1024, num_warps=2),
        # fewer elements a thread (min_per_thread): torch.compile's float32 GLU kernels are
        # 512-element blocks of 8 warps, 451 us at 8192x14336 against 459 at 8 a thread and 456
        # at 4 (GPU round 236, bench/probe_glu.py); at 16 bfloat16 rows 4 a thread led (5.44 us
        # against 5.66)
        *[dict(min_per_thread=per_thread, block=block, num_warps=warps,
               col_block=min(block, 1024))
          for per_thread, block, warps in ((2, 512, 8), (2, 512, 4), (4, 512, 4), (4, 1024, 8),
                                           (2, 1024, 16), (4, 2048, 16))],
        # GeGLU's erf-GELU from erfc's fit (12% fewer SASS instructions in bfloat16): 16-bit
        # GeGLU read 0.82-0.88 of the copy bandwidth at its large shapes on an H200 in round 332,
        # as torch.compile's did, an instruction-issue bound (SwiGLU renders the same kernel)
        dict(gelu_erf_fit=True), dict(gelu_erf_fit=True, block=1024, num_warps=4),
        dict(gelu_erf_fit=True, min_per_thread=4, block=1024, num_warps=8, col_block=1024),
        # a decode step's calls (16x16384) spread over more threads than the large calls'
        # tiles give (GeGLU 16x16384 at 0.92-0.97x torch.compile on an H200 in round 332, where
        # the bucket's config serves 8192x16384 too)
        dict(small_per_thread=4), dict(small_per_thread=2),
        dict(small_per_thread=4, gelu_erf_fit=True), dict(small_per_thread=2, gelu_erf_fit=True),
    ],
    "cross_entropy": [
        # 64 rows of 128256 read at 0.27 of the copy bandwidth and 1024x32000 at 0.62 in round
        # 123's table (the served config came from a search timed with the verifier's timer):
        # more or fewer vocabulary parts per row, wider tiles, the pipeline and the final kernel
        dict(split_per_sm=8), dict(split_per_sm=2), dict(split_per_sm=8, block=2048, warps=4),
        dict(block=2048, warps=4), dict(block=4096, warps=8, num_stages=2), dict(num_stages=3),
        dict(evict_first=True), dict(final_warps=8), dict(final_block=256, final_warps=1),
        dict(split_per_sm=8, num_stages=2),
        # thousands of rows (rows_gt_1024): round 132's 2048-wide tiles of 4 warps, four deep,
        # took 4096x128256 and 4099x50257 in 343 and 155 us against the served config's 352 and
        # 162 (0.81 of copy there); their neighbours
        dict(block=2048, warps=4, num_stages=3), dict(block=2048, warps=2, num_stages=4),
        dict(block=2048, warps=4, num_stages=4, evict_first=True),
        dict(block=4096, warps=4, num_stages=2), dict(block=4096, warps=8, num_stages=3),
        dict(block=1024, warps=4, num_stages=4), dict(block=2048, warps=8, num_stages=4),
        # round 135: 2048-wide tiles of 8 warps won (337.7/149.4 us), 4096 of 8 warps three deep
        # next (339.5/151.5): more warps a tile still
        dict(block=2048, warps=16, num_stages=4), dict(block=4096, warps=16, num_stages=3),
        dict(block=4096, warps=16, num_stages=4), dict(block=1024, warps=8, num_stages=4),
        # flat spans (GPU rounds 142-145): each program streams an equal span of the logits
        # across row ends, as many programs an SM as their registers let run at once (4 of 8
        # warps ran in two waves); their kernel took 1024x201028 (1024 rows for 1056 places) in
        # 143.7-146.7 us against the row kernel's 181.9-182.7 and lost at the task's shapes
        # (runs/probe-ce-rows-h100-round143.json, -round144.json)
        dict(flat_per_sm=3), dict(flat_per_sm=4, warps=4), dict(flat_per_sm=4, block=2048, warps=4),
        dict(flat_per_sm=8, block=1024, warps=4), dict(flat_per_sm=6, block=1024, warps=4),
        # the mean over 4096 rows in one step
        dict(final_block=4096),
        # misaligned rows from 128-byte line starts (GPU round 150,
        # runs/probe-ce-rows-h100-round150.json: 4099x50257's row kernel 150.7 -> 147.6 us)
        dict(row_align=128), dict(row_align=128, num_stages=3),
        dict(row_align=128, final_block=4096),
        # the mean kernel launched while the row kernel's last programs run (programmatic
        # dependent launch, sm_90; GPU round 153)
        dict(pdl=True), dict(pdl=True, final_block=4096),
        # lanes of one 16-byte vector each: the vector's max first, then one exp2 and one add an
        # element (the row kernel's loop from 12 or more instructions an element to about 5, by
        # an offline sm_90 compile)
        dict(vector_max=True), dict(vector_max=True, pdl=True), dict(vector_max=True, warps=4),
        dict(vector_max=True, block=4096),
    ],
}


def _sets(idea: dict, knobs: frozenset) -> bool:
    """Whether a variant is timed under `--knobs` (every variant without it)."""
    return not knobs or bool(knobs & set(idea))


def candidate_configs(template, samples: int, seed: int, knobs: frozenset = frozenset()) -> list:
    """DEFAULT, its variants, then `samples` random valid configs; no two alike. With `knobs`,
    only the variants that set one of them (and the random configs)."""
    configs = [] if knobs else [template.default]
    for idea in VARIANTS.get(template.name, []):
        if not _sets(idea, knobs):
            continue
        try:
            cfg = dataclasses.replace(template.default, **idea)
        except TypeError:  # a knob this template does not have
            continue
        if not template.violations(cfg) and cfg not in configs:
            configs.append(cfg)
    rng = random.Random(seed)
    wanted = len(configs) + samples
    for _ in range(200 * samples):
        if len(configs) >= wanted:
            break
        cfg = template.config({p.name: rng.choice(p.choices) for p in template.space})
        if not template.violations(cfg) and cfg not in configs:
            configs.append(cfg)
    return configs


def _bucket_of_call(op: str, task, inputs: list, dim: int | None = None) -> str:
    """`dim`: the dim the task's Model reduces over when its init inputs do not name one (the
    reductions' tasks pass it as their first init input; softmax's fix it in forward)."""
    if op in buckets.DIM_OPS:
        init = task.module.get_init_inputs()
        dim = int(init[0]) if init else dim
    return buckets.bucket_of(op, tuple(inputs[0].shape), dim)


def shape_bucket(op: str, task, shape: dict, dim: int | None = None) -> str:
    """The bucket of one task shape, from its inputs made on the meta device (no memory, no GPU);
    leaves `shape` applied to `task`."""
    task.apply_shape(shape)
    with torch.device("meta"):
        inputs = task.module.get_inputs()
    return _bucket_of_call(op, task, inputs, dim)


def _warm(job: tuple) -> str | None:
    """Compile one (source, shape) in a worker process into Triton's disk cache; errors are
    reported here and met again, as data, by the timing process."""
    task_path, shape, dtype_name, source, cache = job
    try:
        task = tasks.load(task_path)
        task.apply_shape(shape)
        dtype = DTYPES[dtype_name]
        inputs = _inputs(task, dtype)
        module = load_candidate(source, Path(cache))
        init = task.module.get_init_inputs()
        reference = task.module.Model(*init).cuda().to(dtype)
        candidate = module.ModelNew(*init).cuda()
        candidate.load_state_dict(reference.state_dict(), strict=False, assign=True)
        with torch.no_grad():
            candidate.to(dtype)(*inputs)
        torch.cuda.synchronize()
        return None
    except Exception as exc:  # noqa: BLE001 - the timing process records the failure
        return f"{type(exc).__name__}: {str(exc)[:200]}"


def warm_cache(jobs: list[tuple], workers: int) -> int:
    if workers <= 1 or not jobs:
        return 0
    context = multiprocessing.get_context("spawn")
    errors = []
    with concurrent.futures.ProcessPoolExecutor(workers, mp_context=context) as pool:
        errors = [e for e in pool.map(_warm, jobs, chunksize=4) if e is not None]
    if errors:
        print(f"  {len(errors)} of {len(jobs)} warm-up compiles failed, e.g. {errors[0]}",
              flush=True)
    return len(errors)


def _code_of(source: str) -> str:
    """A render without the lines that only record its params."""
    return "\n".join(line for line in source.splitlines()
                     if not line.startswith(("Params: ", "PARAMS = ")))


def _as_configs(params: list[dict], template) -> list:
    """`params` as distinct valid configs of today's template (a knob added since takes its
    legacy choice); params of an older space that no longer name a config are left out."""
    found = []
    for p in params:
        try:
            cfg = template.config(p)
        except InvalidConfig:
            continue
        if not template.violations(cfg) and cfg not in found:
            found.append(cfg)
    return found


def served_configs(zoo: Path, op: str, arch: str, dtype_name: str, template) -> list:
    """The configs `zoo`'s newest entry of `op` serves for this arch and dtype (every bucket's),
    as configs of today's template (`_as_configs`); those of another template are left out."""
    from kernel_zoo.store import newest_entries

    return _as_configs([c["params"] for entry in newest_entries(op, [zoo])
                        for c in entry.manifest["configs"]
                        if (c["arch"], c["dtype"], c["template"])
                        == (arch, dtype_name, template.name)], template)


def serving_configs(stored: dict[str, tuple[dict, str] | None], template) -> list:
    """The configs of the stored files that serve some buckets (bucket -> `served_file`'s pick,
    or None), as configs of today's template (`_as_configs`)."""
    return _as_configs([picked[0] for picked in stored.values() if picked is not None], template)


def served_file(zoo: Path, op: str, arch: str, dtype_name: str, bucket: str,
                device: str | None = None) -> tuple[dict, str] | None:
    """The params and source of the kernel file `zoo`'s newest entry serves `bucket` with on the
    GPU model `device`: the config dispatch picks for it (the bucket's own; else "any"; else, for
    an op whose buckets borrow, the nearest one's; that GPU model's where it has one); None where
    none serves it."""
    from kernel_zoo.store import newest_entries, read_entry_file, select_config

    for entry in newest_entries(op, [zoo]):
        c = select_config(entry.manifest, arch, dtype_name, bucket, device)
        if c is not None:
            return c["params"], read_entry_file(entry.path, entry.manifest, c["file"]).decode()
    return None


def served_code(zoo: Path, op: str, arch: str, dtype_name: str, bucket: str,
                device: str | None = None) -> str | None:
    """The code of the kernel file `zoo`'s newest entry serves `bucket` with (on the GPU model
    `device`), without its params lines; None where it has none."""
    found = served_file(zoo, op, arch, dtype_name, bucket, device)
    return None if found is None else _code_of(found[1])


def candidate_sources(op: str, dtype_name: str, args, task, found, arch: str | None,
                      device: str | None = None) -> tuple[list, list, list, dict]:
    """What one op's run times: the task shapes in `args.buckets` (every shape without), the
    configs and their sources (one per distinct code; with `args.zoo` the served configs too,
    and each bucket's stored file as it is where today's template renders it differently), and
    per bucket the index of the source the zoo serves it with on the GPU model `device`."""
    template = get_template(found.template)
    configs, sources, index_of = [], [], {}  # index_of: code -> its place in configs, sources
    knobs = frozenset(getattr(args, "knobs", ()) or ())
    local = getattr(args, "local", False)
    candidates = candidate_configs(template, args.samples, args.seed, knobs)
    dim = found.context.get("dim")
    in_bucket = [(shape, shape_bucket(op, task, shape, dim)) for shape in task.shapes]
    in_bucket = [(s, b) for s, b in in_bucket if not args.buckets or b in args.buckets]
    # bucket -> the params and stored file the zoo serves it with on `device` (None: none)
    stored = ({bucket: served_file(Path(args.zoo), op, arch, dtype_name, bucket, device)
               for bucket in sorted({b for _, b in in_bucket})} if args.zoo else {})
    if args.zoo:  # what serves now competes too: a bucket changes hands only to a faster config
        served_now = served_configs(Path(args.zoo), op, arch, dtype_name, template)
        # the configs the variants start from: every served one, or with `local` only those
        # serving the swept buckets on this GPU model
        roots = serving_configs(stored, template) if local else served_now
        derived = []
        for cfg in roots:
            for idea in SERVED_VARIANTS.get(template.name, []):
                if not _sets(idea, knobs):
                    continue
                new = dataclasses.replace(cfg, **idea)
                if not template.violations(new):
                    derived.append(new)
        # and what it serves in the other dtypes: a dtype's first configs start from its
        # neighbours' tuned ones (float16 from bfloat16's, whose elements are as wide)
        elsewhere = [] if knobs or local else [
            cfg for other in DTYPES if other != dtype_name
            for cfg in served_configs(Path(args.zoo), op, arch, other, template)]
        if getattr(args, "siblings", False):  # and for the other ops of this template
            elsewhere += [cfg for sibling in op_names([Path(args.zoo)]) if sibling != op
                          for other in DTYPES
                          for cfg in served_configs(Path(args.zoo), sibling, arch, other,
                                                    template)]
        candidates += [cfg for cfg in served_now + derived + elsewhere if cfg not in candidates]
    for cfg in candidates:
        source = template.render(cfg, **found.context)
        code = _code_of(source)
        if code not in index_of:  # a knob this op ignores (packed_keys for sum) renders the same
            index_of[code] = len(sources)
            configs.append(cfg)
            sources.append(source)
    served = {}  # bucket -> index of the source the zoo serves it with, its stored file itself
    for bucket, picked in stored.items():
        if picked is None:
            continue
        params, source = picked
        code = _code_of(source)
        if code not in index_of:  # rendered before today's template: timed as it is stored
            try:
                cfg = template.config(params)
            except InvalidConfig:  # an older space: nothing to name it by, so not timed
                continue
            index_of[code] = len(sources)
            configs.append(cfg)
            sources.append(source)
        served[bucket] = index_of[code]
    return [s for s, _ in in_bucket], configs, sources, served


def screening_case(task, shape: dict, dtype: torch.dtype) -> tuple[list, list, object, object]:
    """The task at `shape` as candidates are screened and timed there: its init inputs, its inputs
    in `dtype` on the GPU, its Model (seed 0) in `dtype`, and the float32 reference output."""
    task.apply_shape(shape)
    init = task.module.get_init_inputs()
    inputs = _inputs(task, dtype)
    torch.manual_seed(0)
    model = task.module.Model(*init).cuda().eval()
    with torch.no_grad():
        ref = model.float()(*[v.float() if v.is_floating_point() else v for v in inputs])
    return init, inputs, model.to(dtype), ref


def screened(module, init: list, model, inputs: list, ref, dtype_name: str) -> tuple[object, bool]:
    """A candidate module's ModelNew with `model`'s weights, in the dtype, and whether its output
    at `inputs` is within the screening tolerance of `ref` (`_close`)."""
    candidate = module.ModelNew(*init).cuda().to(DTYPES[dtype_name])
    candidate.load_state_dict(model.state_dict(), strict=False, assign=True)
    with torch.no_grad():
        return candidate, _close(candidate(*inputs), ref, dtype_name)


def sweep(name: str, dtype_name: str, args, cache: Path, only: frozenset | None = None,
          copies: int = 1) -> dict:
    """Time every candidate of task `name` (tasks/<name>.py) at its shapes; the zoo op is the
    plan's. `only`: time just the candidates of these indices (`confirm`'s re-timing), the rest
    left untimed (no times, as a config that failed). `copies`: time each candidate as that
    many callables (graphs, with `--graphs`), captured in turn (`copies_in_turn`); its time at
    a shape is the mean of theirs, and each one's is kept in its row's `copies_ms`."""
    task = tasks.load(ROOT / "tasks" / f"{name}.py")
    found = plan(task)
    op = found.op
    template = get_template(found.template)
    dtype = DTYPES[dtype_name]
    itemsize = torch.empty((), dtype=dtype).element_size()
    env = environment() if args.zoo else {}
    arch, gpu = env.get("arch"), env.get("gpu")
    task_shapes, configs, sources, served = candidate_sources(op, dtype_name, args, task, found,
                                                              arch, gpu)
    keep = range(len(sources)) if only is None else sorted(only)
    modules = {c: load_candidate(sources[c], cache) for c in keep}  # files written once, here
    jobs = [(str(task.path), shape, dtype_name, sources[c], str(cache))
            for c in keep for shape in task_shapes]
    warm_failures = warm_cache(jobs, args.jobs)
    flusher = L2Flusher(torch.device("cuda"))
    shapes, times = [], [[None] * len(task_shapes) for _ in configs]
    copies_ms = [[None] * len(task_shapes) for _ in configs]
    for s, shape in enumerate(task_shapes):
        init, inputs, model, ref = screening_case(task, shape, dtype)
        bucket = _bucket_of_call(op, task, inputs, found.context.get("dim"))
        with torch.no_grad():
            torch._dynamo.reset()
            compiled = torch.compile(model, dynamic=False)
            fns = {"eager": lambda: model(*inputs), "compile": lambda: compiled(*inputs)}
            for c, module in modules.items():
                try:
                    candidate, ok = screened(module, init, model, inputs, ref, dtype_name)
                except Exception as exc:  # noqa: BLE001 - a failing config is dropped, as data
                    times[c][s] = f"error: {type(exc).__name__}: {str(exc)[:160]}"
                    continue
                if not ok:
                    times[c][s] = "wrong"
                    continue
                fns[c] = (lambda m: lambda: m(*inputs))(candidate)
            if copies > 1:  # (c, k) for each copy; graphs of one call read apart (round 450)
                fns = {**{k: fns[k] for k in ("eager", "compile")},
                       **{pair: fns[pair[0]] for pair in copies_in_turn(
                           [c for c in modules if c in fns], copies)}}
            capture_failed = []
            if args.graphs:  # a callable that cannot be captured is timed without, and said
                fns, capture_failed = graphed_where_possible(fns, getattr(args, "paired", False))
            timed = bench(fns, flusher=flusher, budget_ms=args.budget_ms, max_reps=100)
            if copies > 1:
                copied = [c for c in modules if (c, 0) in timed]
                merged, each = merge_copies(timed, copied, copies)
                timed.update(merged)
                for c in copied:
                    copies_ms[c][s] = each[c]
        for c in range(len(configs)):
            if c in timed:
                times[c][s] = timed[c].median_ms
        nbytes = task.formula_value("bytes", itemsize)
        shapes.append({"shape": shape, "bucket": bucket, "bytes": nbytes,
                       "eager_ms": timed["eager"].median_ms,
                       "compile_ms": timed["compile"].median_ms})
        if args.graphs:
            shapes[-1]["graph_capture_failed"] = capture_failed
        best = min((t for t in (row[s] for row in times) if isinstance(t, float)), default=None)
        print(f"  {op} {dtype_name} {shape} [{bucket}]: eager {shapes[-1]['eager_ms'] * 1e3:.1f} "
              f"us, compile {shapes[-1]['compile_ms'] * 1e3:.1f} us, best config "
              + (f"{best * 1e3:.1f} us" if best else "none"), flush=True)
    rows = [{"params": params_of(cfg), "default": cfg == template.default,
             "serves": sorted(b for b, i in served.items() if i == c),
             "source_sha256": hashlib.sha256(source.encode()).hexdigest(),
             "ms": [t if isinstance(t, float) else None for t in per_shape],
             "problems": [t for t in per_shape if isinstance(t, str)][:2],
             **({"copies_ms": copies_ms[c]} if copies > 1 else {})}
            for c, (cfg, source, per_shape) in enumerate(zip(configs, sources, times))]
    return {"op": op, "task_name": name, "dtype": dtype_name, "template": template.name,
            "task": task, "plan": found, "configs": configs, "sources": sources, "shapes": shapes,
            "rows": rows, "warm_failures": warm_failures, "served": served}


# Promotion floor against torch.compile, on the verifier's geometric mean over a bucket's shapes:
# below the run-to-run spread of these timings (2-5% in the memory-bound runs) a kernel ties
# torch.compile; it stays above `kzoo sweep`'s default regression threshold (0.9).
COMPILE_FLOOR = 0.95
# A bucket changes hands only to a config this much faster than the served one on the geometric
# mean over its shapes (GPU round 120: today's render of rms_norm's served params, 35.9 / 188.3 us
# against the stored file's 36.0 / 188.3, was promoted as a new version).
MIN_GAIN = 1.01
# The per-shape bars (bench/memory_bound.py): at least torch.compile at every shape, and
# at least BANDWIDTH_BAR of the copy bandwidth at a large shape. A config meeting more of them at
# a bucket's shapes wins over one whose geometric mean is at most this much better: the timings'
# run-to-run spread, as for COMPILE_FLOOR and SHAPE_SLACK (GPU round 204: argmax float16 over
# dim 1, 93.0 / 54.3 / 23.8 us, 0.95 of copy at 32x4096x1024, lost on the geometric mean, 1.90x
# against 1.96x min(eager, compile), to 105.0 / 53.8 / 19.3 us, 0.84 of copy there).
BAR_TIE = 1.05
# A config within this much of torch.compile's time at a shape counts as meeting the bar there
# when bars are counted: at the bandwidth limit both kernels tie, and a 0.1% difference is the
# timer's. GPU round 237: GeGLU bfloat16's served config took 259.7 / 81.6 / 5.4 us at 8192x16384,
# 4096x10240 and 16x16384 against torch.compile's 259.5 / 81.4 / 4.6, and so "missed" both large
# shapes' bars; a config at 261.6 / 83.4 / 4.6 met more of them and took the bucket, and in the
# whole table the large shapes went from 1.00x to 0.98-0.99x torch.compile (geglu 1.17.0 put the
# served config back).
COMPILE_TIE = 1.005
# `confirm` times the winner and the served file as this many graphs each, captured in turn: two
# graphs of one call read up to 5% apart at some shapes, the same way in every pass and whatever
# the calls' order (GPU round 450: bench/retime_promotions.py, bench/probe_graph_twins.py).
CONFIRM_COPIES = 3


def _bars_at(result: dict, c: int, s: int) -> int:
    """How many of the issue's bars config `c` meets at shape `s` (0, 1 or 2): at least
    torch.compile (within COMPILE_TIE), and at a large shape (where `result` knows the copy
    bandwidth and the L2's size) at least BANDWIDTH_BAR of the copy bandwidth."""
    ms, shape = result["rows"][c]["ms"][s], result["shapes"][s]
    met = int(ms <= shape["compile_ms"] * COMPILE_TIE)
    copy_gbps, l2_bytes = result.get("copy_gbps"), result.get("l2_bytes")
    if copy_gbps and l2_bytes and shape["bytes"] >= LARGE_L2_MULTIPLE * l2_bytes:
        met += int(shape["bytes"] / (ms * 1e6) >= BANDWIDTH_BAR * copy_gbps)
    return met


def bars_met(result: dict, c: int, idx: list[int]) -> int:
    """How many of the issue's per-shape bars config `c` meets at shapes `idx` (`_bars_at`)."""
    return sum(_bars_at(result, c, s) for s in idx)


def _bars_beyond_spread(result: dict, c: int, other: int, idx: list[int]) -> bool:
    """Whether config `c` is faster than `other` by more than MIN_GAIN at one or more of the
    shapes of `idx` where it meets more of the bars: more bars met by a timer's difference alone
    are not more bars met. GPU round 401: float32 LayerNorm's served config and another took
    254.6 and 252.2 us at 16384x8192, where both run the same kernel (they differ in knobs of the
    4097-wide rows' kernel alone), against torch.compile's 252.9; the other "met" that bar, took
    the bucket on it, and was 3% slower at 4096x4097 (40.7 against 39.5 us; layer_norm 1.32.0)."""
    ms, theirs = result["rows"][c]["ms"], result["rows"][other]["ms"]
    return any(ms[s] * MIN_GAIN < theirs[s] for s in idx
               if _bars_at(result, c, s) > _bars_at(result, other, s))


def choose(result: dict) -> dict[str, dict]:
    """Per bucket: the winning config's index and its speedups, or why there is none. The best
    geometric mean over min(eager, compile) wins, unless a config meets more of the issue's
    per-shape bars (`bars_met`) within BAR_TIE of it, by more than the timer's spread at the
    shapes where it meets them (`_bars_beyond_spread`)."""
    correct = [i for i, row in enumerate(result["rows"]) if all(t for t in row["ms"])]
    by_bucket: dict[str, list[int]] = {}
    for s, info in enumerate(result["shapes"]):
        by_bucket.setdefault(info["bucket"], []).append(s)
    choices = {}
    for bucket, idx in by_bucket.items():
        scored, slower = [], []
        served = (result.get("served") or {}).get(bucket)
        if served not in correct:
            served = None
        baseline = {s: min(result["shapes"][s]["eager_ms"], result["shapes"][s]["compile_ms"])
                    for s in idx}
        for c in correct:
            ms = result["rows"][c]["ms"]
            # The bar is per shape: no trading a shape below the best baseline for the
            # others. Losing ground at a shape while staying at or above the baseline there is
            # allowed (round 195: the dim-1 softmax's served config, 1.37x torch.compile at
            # 32x1000x1024 and 0.51x at 8x4097x257, against one at 1.06x and 1.01x).
            if served is not None and any(
                    ms[s] > result["rows"][served]["ms"][s] * SHAPE_SLACK and ms[s] > baseline[s]
                    for s in idx):
                slower.append(c)
                continue
            vs_best = [baseline[s] / ms[s] for s in idx]
            vs_eager = [result["shapes"][s]["eager_ms"] / ms[s] for s in idx]
            vs_compile = [result["shapes"][s]["compile_ms"] / ms[s] for s in idx]
            scored.append((geomean(vs_best), c, min(vs_eager), geomean(vs_compile)))
        if not scored:
            choices[bucket] = {"shapes": idx, "config": None, "why": "no config was correct"}
            continue
        beat_eager = [row for row in scored if row[2] > 1.0]
        pool = beat_eager or scored
        best = max(pool)
        kept = next((row for row in pool if row[1] == served), None)
        if kept is not None and best[0] < kept[0] * MIN_GAIN:
            best = kept  # a gain inside the timer's spread does not move the bucket
        met = {row[1]: bars_met(result, row[1], idx)
               for row in pool if row[0] * BAR_TIE >= best[0]}  # best itself among them
        more = [row for row in pool if met.get(row[1], -1) > met[best[1]]
                and _bars_beyond_spread(result, row[1], best[1], idx)]
        if more:
            most = max(met[row[1]] for row in more)
            best = max(row for row in more if met[row[1]] == most)
        geo, c, worst_vs_eager, vs_compile = best
        choice = {"shapes": idx, "config": c, "speedup_vs_best_baseline": geo,
                  "min_speedup_vs_eager": worst_vs_eager, "speedup_vs_compile": vs_compile,
                  "bars_met": met[c],
                  "served_config": served, "slower_than_served_at_a_shape": slower}
        if not beat_eager or vs_compile < COMPILE_FLOOR:
            choice["why"] = ("slower than eager PyTorch at one of the bucket's shapes"
                             if not beat_eager else
                             f"below {COMPILE_FLOOR}x torch.compile on the geometric mean")
            choice["config"] = None
            choice["best_rejected"] = c
        choices[bucket] = choice
    return choices


def promotable(summary: dict) -> tuple[bool, str]:
    """Whether a verifier summary earns its bucket a config, and why not when it does not."""
    if not summary.get("accepted"):
        return False, "rejected by the verifier"
    shapes = summary.get("shapes") or []
    vs_eager = [s["eager_ms"] / s["ms"] if s.get("ms") and s.get("eager_ms") else None
                for s in shapes]
    if not shapes or any(v is None for v in vs_eager):
        return False, "not timed at every shape"
    if min(vs_eager) <= 1.0:
        return False, f"slower than eager PyTorch at a shape ({min(vs_eager):.2f}x)"
    vs_compile = summary.get("speedup_vs_compile")
    if vs_compile is None or vs_compile < COMPILE_FLOOR:
        return False, f"below {COMPILE_FLOOR}x torch.compile on the geometric mean"
    return True, ""


def confirmed(result: dict, idx: list[int], c: int, served: int) -> tuple[bool, str]:
    """Whether config `c`, timed again beside the file serving the bucket (`served`) at the
    bucket's shapes `idx` (`result`: that run), is still MIN_GAIN faster on the geometric mean, or
    meets more of the issue's bars there beyond the timer's spread (`_bars_beyond_spread`); and a
    line that says so. Where each was timed as several graphs (`copies_ms`), every graph of `c`
    must also be faster than every graph of the served file on the geometric mean (`apart`): two
    graphs of one call read up to 5% apart at some shapes (GPU round 450,
    `bench/probe_graph_twins.py`)."""
    ms, theirs = result["rows"][c]["ms"], result["rows"][served]["ms"]
    if any(not ms[s] or not theirs[s] for s in idx):
        return False, "not timed at every shape of the bucket when re-timed beside the served file"
    gain = geomean([theirs[s] / ms[s] for s in idx])
    more = (bars_met(result, c, idx) > bars_met(result, served, idx)
            and _bars_beyond_spread(result, c, served, idx))
    line = f"re-timed beside the served file, {gain:.3f}x its speed"
    mine, others = (result["rows"][i].get("copies_ms") for i in (c, served))
    apart = None
    if mine and others and all(mine[s] and others[s] for s in idx):
        apart = geomean([min(others[s]) / max(mine[s]) for s in idx])
        line += f" ({len(mine[idx[0]])} graphs each; its slowest {apart:.3f}x the other's fastest)"
    if (gain >= MIN_GAIN and (apart is None or apart > 1)) or more:
        return True, line + (" (and more of the bars met)" if more and gain < MIN_GAIN else "")
    if gain >= MIN_GAIN:
        return False, line + ": their graphs overlap"
    return False, line + f": under {MIN_GAIN}x"


def confirm(result: dict, choices: dict, name: str, dtype_name: str, args, cache: Path,
            resweep=None) -> None:
    """Time each bucket's winner again beside the stored file that serves the bucket, the two
    alone (`sweep` with `only`; `resweep` stands in for it in tests), and take the bucket from a
    winner that is no longer MIN_GAIN faster there (`confirmed`). GPU round 449: at a bucket of
    one shape, float32 softmax's cols_le_65536 (1024x32768), the sweep's winner was the fastest
    of 431 configs that run the one-pass kernel there, one 32-warp program a row (70.0 us; their
    median 71.4, the
    stored file 71.7), and the table run after its promotion read it at 71.4: the best of
    hundreds of timings of one kernel clears a margin over any single one of them. Each choice
    re-timed keeps what was measured under "confirm"."""
    pending = {bucket: (choice["config"], choice["served_config"])
               for bucket, choice in choices.items()
               if choice.get("config") is not None and choice.get("served_config") is not None
               and choice["config"] != choice["served_config"]}
    if not pending:
        return
    only = frozenset(i for pair in pending.values() for i in pair)
    again = (resweep or sweep)(name, dtype_name, args, cache, only=only, copies=CONFIRM_COPIES)
    again["copy_gbps"], again["l2_bytes"] = result.get("copy_gbps"), result.get("l2_bytes")
    same = len(again["sources"]) == len(result["sources"])
    for bucket, (c, served) in pending.items():
        choice = choices[bucket]
        if not same or any(again["sources"][i] != result["sources"][i] for i in (c, served)):
            ok, line = False, "the re-timing's candidates were not the sweep's (not promoted)"
        else:
            ok, line = confirmed(again, choice["shapes"], c, served)
        choice["confirm"] = {"config": c, "served_config": served, "confirmed": ok, "why": line,
                             "ms": again["rows"][c]["ms"] if same else None,
                             "served_ms": again["rows"][served]["ms"] if same else None,
                             "copies_ms": again["rows"][c].get("copies_ms") if same else None,
                             "served_copies_ms": (again["rows"][served].get("copies_ms")
                                                  if same else None)}
        print(f"{result['op']} {dtype_name} [{bucket}]: config #{c} {line}", flush=True)
        if not ok:
            choice.update(config=None, best_rejected=c, why=line)


def covered_buckets(zoo: Path, op: str, arch: str, dtype_name: str) -> set[str]:
    """The buckets `zoo`'s newest entry of `op` serves for this arch and dtype."""
    from kernel_zoo.store import newest_entries

    return {c["shape_bucket"] for entry in newest_entries(op, [zoo])
            for c in entry.manifest["configs"] if c["arch"] == arch and c["dtype"] == dtype_name}


def borrowers(op: str, task, found, bucket: str, present: set[str]) -> dict[str, list]:
    """The buckets of the task's shapes (every shape, whatever `--buckets` chose) that have no
    config of their own and that dispatch would serve with `bucket`'s config once `bucket` has
    one: a promotion there changes the kernel they run. Each with its shapes."""
    dim = found.context.get("dim")
    after = present | {bucket}
    out: dict[str, list] = {}
    for shape in task.shapes:
        other = shape_bucket(op, task, shape, dim)
        if other != bucket and other not in present and buckets.pick(op, other, after) == bucket:
            out.setdefault(other, []).append(shape)
    return out


def pin_borrowers(result: dict, bucket: str, cfg, source: str, verifier, args, env: dict,
                  present: set[str]) -> tuple[list, str]:
    """Before `bucket` of a borrowing op (the softmaxes, the gated units) takes `source`, a config
    of its own for each bucket that would borrow it (`borrowers`), so that a promotion for one
    bucket never changes, untimed, the kernel another runs: the kernel the zoo serves it now, its
    stored file verified at the bucket's shapes; or, where none serves it (the reference runs),
    `source` itself, verified and promotable there. Returns (pins, ""), each pin a (bucket,
    "served" or "new", what `_promote`'s `also` takes), to land in the same version as
    `bucket`'s config; or (None, why `bucket` may not be promoted)."""
    task, found, op = result["task"], result["plan"], result["op"]
    template = get_template(result["template"])
    pins = []
    for other, shapes in sorted(borrowers(op, task, found, bucket, present).items()):
        stored = served_file(Path(args.zoo), op, env["arch"], result["dtype"], other, env["gpu"])
        kept, kept_cfg = source, cfg
        if stored is not None:
            params, kept = stored
            try:
                kept_cfg = template.config(params)
            except InvalidConfig:
                return None, (f"`{other}` borrows this bucket, and the params of the kernel it "
                              "runs no longer name a config to keep it by")
        verdict = verifier.verify(dataclasses.replace(task, shapes=tuple(shapes)), kept,
                                  result["dtype"], refresh_baselines=True)
        summary = verdict.summary()
        ok = bool(summary.get("accepted")) if stored is not None else promotable(summary)[0]
        if not ok:
            return None, (f"`{other}` would borrow it, and at its shapes "
                          + ("the verifier rejects the kernel it runs now" if stored is not None
                             else "it is not promotable"))
        pins.append((other, "served" if stored is not None else "new",
                     (dataclasses.replace(found, shape_bucket=other), kept_cfg, kept, summary)))
    return pins, ""


def verify_and_promote(result: dict, choices: dict, args, env: dict, cache: Path) -> None:
    verifier = Verifier("gpu", cache)
    task, found = result["task"], result["plan"]
    template = get_template(result["template"])
    present = (covered_buckets(Path(args.zoo), result["op"], env["arch"], result["dtype"])
               if args.zoo else set())
    covered = set(present) if args.only_uncovered else set()
    # buckets others would borrow from go last, so the others' own winners land first and need
    # no pinning (`pin_borrowers`)
    order = sorted(choices, key=lambda b: (bool(borrowers(result["op"], task, found, b, present)),
                                           b))
    for bucket in order:
        choice = choices[bucket]
        c = choice["config"]
        if c is None:
            serving = buckets.pick(result["op"], bucket, present)
            print(f"{result['op']} {result['dtype']} [{bucket}]: no config ({choice['why']}); "
                  + (f"the zoo's `{serving}` config serves it" if serving
                     else "the reference serves it"), flush=True)
            continue
        if bucket in covered:
            choice["skipped"] = "the zoo already serves this bucket (--only-uncovered)"
            print(f"{result['op']} {result['dtype']} [{bucket}]: config #{c}, sweep "
                  f"{choice['speedup_vs_best_baseline']:.2f}x best baseline; the zoo already "
                  "serves it, left as it is", flush=True)
            continue
        if args.zoo and served_code(Path(args.zoo), result["op"], env["arch"], result["dtype"],
                                    bucket, env["gpu"]) == _code_of(result["sources"][c]):
            choice["skipped"] = "the zoo serves this bucket with the winner's code already"
            print(f"{result['op']} {result['dtype']} [{bucket}]: config #{c} is what the zoo "
                  "serves already; left as it is", flush=True)
            continue
        shapes = tuple(result["shapes"][s]["shape"] for s in choice["shapes"])
        bucket_task = dataclasses.replace(task, shapes=shapes)
        verdict = verifier.verify(bucket_task, result["sources"][c], result["dtype"],
                                  refresh_baselines=True)
        summary = verdict.summary()
        choice["verdict"] = summary
        passed, why = promotable(summary)
        line = (f"{result['op']} {result['dtype']} [{bucket}]: config #{c}, sweep "
                f"{choice['speedup_vs_best_baseline']:.2f}x best baseline; verifier "
                + (f"{summary['speedup_vs_eager']:.2f}x eager, "
                   f"{summary['speedup_vs_compile']:.2f}x compile" if verdict.accepted and
                   verdict.timed else f"rejected: {verdict.reasons[:1]}"))
        pins = []
        if passed and args.zoo:
            pins, why = pin_borrowers(result, bucket, result["configs"][c], result["sources"][c],
                                      verifier, args, env, present)
            passed = pins is not None
        if passed and args.zoo:
            plan_for_bucket = dataclasses.replace(found, shape_bucket=bucket)
            choice["promoted"] = _promote(
                task, plan_for_bucket, template, result["configs"][c], result["sources"][c],
                result["dtype"], summary, env, Path(args.zoo),
                also=tuple(pin for _, _, pin in pins))
            present.update([bucket, *(other for other, _, _ in pins)])
            line += f"; promoted {choice['promoted']['version']}"
            if pins:
                choice["pinned"] = [{"bucket": other, "kept": kept, "verdict": pin[3]}
                                    for other, kept, pin in pins]
                line += (", with " + ", ".join(f"[{other}]" for other, _, _ in pins)
                         + " given the kernel each ran as its own")
        elif not passed:
            choice["not_promoted"] = why
            line += f"; not promoted: {why}"
        print(line, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default=",".join(OPS),
                        help="comma-separated tasks (tasks/<name>.py), from " + ",".join(OPS))
    parser.add_argument("--dtypes", default="bfloat16", help="comma-separated dtypes")
    parser.add_argument("--samples", type=int, default=10, help="random configs beyond the variants")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=12, help="processes compiling kernels first")
    parser.add_argument("--budget-ms", type=float, default=600.0,
                        help="GPU time spent timing each shape's variants together")
    parser.add_argument("--zoo", help="promote winners into this zoo folder")
    parser.add_argument("--siblings", action="store_true",
                        help="with --zoo: the configs the zoo serves the other ops of the same "
                             "template with (any dtype) compete too")
    parser.add_argument("--only-uncovered", action="store_true",
                        help="with --zoo: verify and promote only the buckets the zoo's newest "
                             "entry does not serve yet for this GPU and dtype")
    parser.add_argument("--graphs", action="store_true",
                        help="time CUDA-graph replays of every callable (GPU time without host "
                             "time, as bench/memory_bound.py --graphs does)")
    parser.add_argument("--paired", action="store_true",
                        help="with --graphs: capture each copy's graphs (every callable of a "
                             "shape, and each of confirm's copies) into one shared memory pool, "
                             "outputs released in between, so they write the same addresses (an "
                             "output's address alone moved a 10 us kernel by up to 4.6%%, GPU "
                             "round 451)")
    parser.add_argument("--buckets", type=lambda text: [b for b in text.split(",") if b],
                        default=[], help="comma-separated: tune only these buckets' shapes "
                                         "(e.g. cols_le_16384,inner_dim)")
    parser.add_argument("--knobs", type=lambda text: [k for k in text.split(",") if k],
                        default=[], help="comma-separated: of the hand-picked variants, time only "
                                         "those that set one of these knobs (e.g. row_ahead), "
                                         "beside what the zoo serves; no DEFAULT, no other "
                                         "dtype's configs")
    parser.add_argument("--local", action="store_true",
                        help="with --zoo: derive the served configs' variants only from the "
                             "configs serving the swept buckets on this GPU (not from every "
                             "bucket's), and leave the other dtypes' configs out: a search "
                             "around what each bucket runs, a few times fewer kernels")
    parser.add_argument("--no-confirm", action="store_true",
                        help="with --zoo: promote a bucket's winner without first timing it "
                             "again beside the file serving the bucket, the two alone")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args(argv)
    ops = [o for o in args.ops.split(",") if o]
    dtypes = [d for d in args.dtypes.split(",") if d]
    unknown = [o for o in ops if o not in OPS] + [d for d in dtypes if d not in DTYPES]
    if unknown:
        parser.error(f"unknown op or dtype: {', '.join(unknown)}")
    known = {name for op in ops for name in buckets.bucket_names(TASK_OPS.get(op, op))}
    if set(args.buckets) - known:
        parser.error(f"unknown bucket: {', '.join(sorted(set(args.buckets) - known))} (these ops "
                     f"have {', '.join(sorted(known))})")
    spaces = {p.name for op in ops
              for p in get_template(plan(tasks.load(ROOT / "tasks" / f"{op}.py")).template).space}
    if set(args.knobs) - spaces:
        parser.error(f"unknown knob: {', '.join(sorted(set(args.knobs) - spaces))} (not in the "
                     f"spaces of these ops' templates)")
    if args.paired and not args.graphs:
        parser.error("--paired needs --graphs (it pairs the callables' graphs)")
    if args.siblings and not args.zoo:
        parser.error("--siblings needs --zoo: the zoo whose configs for the other ops compete")
    if args.local and not args.zoo:
        parser.error("--local needs --zoo: the zoo whose served configs the search starts from")
    if args.only_uncovered and not args.zoo:
        parser.error("--only-uncovered needs --zoo: the zoo whose buckets it leaves as they are")
    if not torch.cuda.is_available():
        print("bench/tune_buckets.py needs a CUDA GPU: it measures time, which the interpreter "
              "never does", file=sys.stderr)
        return 2
    torch._dynamo.config.cache_size_limit = 64
    env = environment()
    copy_gbps = copy_bandwidth(torch.device("cuda"), L2Flusher(torch.device("cuda"))) / 1e9
    l2_bytes = torch.cuda.get_device_properties(torch.device("cuda")).L2_cache_size
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"tune-buckets-{device_label()}-{stamp}.json"
    record = {
        "benchmark": "tune-buckets", "environment": env, "copy_gbps": copy_gbps,
        "cuda_graphs": args.graphs, "paired": args.paired, "buckets": args.buckets or "all",
        # what was searched: a sweep of a few knobs or around the served configs is not a full one
        "search": {"samples": args.samples, "seed": args.seed, "knobs": args.knobs,
                   "local": args.local, "siblings": args.siblings},
        "method": ("CUDA-graph replays of each callable under " if args.graphs else "")
                  + ("(paired: each copy's graphs in one shared memory pool, writing the same "
                     "addresses) " if args.paired else "")
                  + "verifier timer (L2 flushed before each run, CUDA events, median), candidates, "
                  "eager and torch.compile(dynamic=False) interleaved in one process; configs "
                  "screened against a float32 reference at every shape; per bucket the best "
                  "geometric-mean speedup over min(eager, compile) among configs faster than "
                  "eager at each shape; the winner re-checked and re-timed by the verifier and "
                  f"promoted when faster than eager at each shape and at least {COMPILE_FLOOR}x "
                  "torch.compile on the geometric mean; with --zoo, no config more than "
                  f"{SHAPE_SLACK}x slower than the served one at a shape of the bucket, and "
                  "slower than min(eager, compile) there, wins it"
                  + ("" if args.no_confirm or not args.zoo else
                     f", and a winner re-timed beside the served file, the two alone, "
                     f"{CONFIRM_COPIES} graphs each, keeps the bucket only if still {MIN_GAIN}x "
                     "faster there, each of its graphs faster than each of the file's"),
        "results": [],
    }
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        for op in ops:
            for dtype_name in dtypes:
                result = sweep(op, dtype_name, args, cache)
                result["copy_gbps"], result["l2_bytes"] = copy_gbps, l2_bytes
                choices = choose(result)
                for bucket, choice in sorted(choices.items()):
                    pick = choice.get("config", None)
                    pick = choice.get("best_rejected") if pick is None else pick
                    for label, c in (("served", choice.get("served_config")), ("best", pick)):
                        if c is not None:
                            ms = result["rows"][c]["ms"]
                            print(f"  {result['op']} {dtype_name} [{bucket}] {label} #{c}: "
                                  + ", ".join(
                                f"{ms[s] * 1e3:.1f} us" for s in choice["shapes"]), flush=True)
                if args.zoo and not args.no_confirm:
                    confirm(result, choices, op, dtype_name, args, cache)
                verify_and_promote(result, choices, args, env, cache)
                record["results"].append({
                    "op": result["op"], "task": op, "dtype": dtype_name,
                    "template": result["template"],
                    "warm_failures": result["warm_failures"], "shapes": result["shapes"],
                    "configs": result["rows"], "buckets": choices,
                })
                # written after every op: a run cut off by its time limit keeps what it finished
                path.write_text(json.dumps(record, indent=1, sort_keys=True, default=str) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
