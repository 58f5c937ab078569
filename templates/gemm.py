"""Tiled GEMM with a fused pointwise epilogue: C = epilogue(A @ B), batched or not.

Render context (from the planner, agent.plan_gemm):
- `op`: the zoo op; the launcher is `launch_<op>(a, b, in0, in1, ...)`: the two matmul operands
  as the Model holds them, then one argument per entry of `inputs`, in that order.
- `a`, `b`: where ModelNew finds each operand and whether the Model transposes it first:
  {"source": "arg", "index": k} or {"source": "param", "path": "fc.weight"}, plus
  "transposed": bool. A transposed operand is read through its strides (a view, no copy): F.linear's
  weight is `b` with transposed=True, `x.t() @ y` has `a` transposed.
- `epilogue`: an expression tree in templates/pointwise.py's format whose leaf ["acc"] is the fp32
  matmul result of the tile; ["input", i] leaves read `inputs[i]`: "row" (1-D over N, a bias),
  "full" (the output's shape, a residual) or "scalar". ["acc"] alone is a plain matmul. Math is
  fp32; only the final value is rounded to the output dtype (A's dtype).
- `inputs`: the epilogue's operands, in pointwise's format (kind + source); `params`: the Model
  parameters ModelNew mirrors (see _model.jinja).
- `row_norm` (optional): a LayerNorm or RMSNorm of each output row after the epilogue, as
  `F.layer_norm(y, (N,), w, b, eps)` / `F.rms_norm(y, (N,), w, eps)` of the epilogue's result y
  rounded to the output dtype (what the Model's norm reads): {"kind": "layer" | "rms", "eps":
  float (None for RMSNorm: the dtype's epsilon), "weight": i | None, "bias": i | None}, i naming
  a "row" entry of `inputs` (agent.plan_gemm puts the norm's weight and bias after the chain's).
  A call runs the GEMM kernel this config picks (writing y), then `_row_norm_kernel` (a program
  per row, Chan's update over chunks of at most 4096 columns, normalizing y in place; on Hopper
  a programmatic dependent launch whose programs wait for the GEMM's end, and a repeated call's
  launch from a recipe by its signature); or, with fuse_norm, where its
  tiles fit one wave (at most one per SM, `norm_plan`), one cooperative launch of
  `_gemm_norm_kernel` (pointer loads, this config's tiles): each tile stores its rows' partial
  mean and squared deviations, the tiles of a row block meet in a barrier (an arrival counter
  per row block, zeroed per call), and each combines the partials and normalizes its own
  accumulator, so y is never written. Triton's interpreter runs that kernel in two launches
  (partials, then the tiles again). On an H100 at linear + LayerNorm 1000x1024->3000 (96 tiles)
  the fused kernel took 27.3 us against the two kernels' 24.3 (graph replays; eager 24.6; GPU
  round 178, bench/results/probe-gemm-norm-h100.json): its tile's statistics and
  normalization run in 8 warps per SM, where the row-norm kernel spreads them over the GPU. So
  fuse_norm is off in every start, a knob a search may still pick.

A is (..., M, K), B is (..., K, N) after the transposes. Batch dims are flattened to one; a 2-D B
with a batched A folds A's batch dims into M (a Linear over (batch, seq, K)); equal batch dims
run batched (bmm); a 2-D A against a batched B is broadcast by a zero batch stride.

Knobs:
- BLOCK_M/N/K tile the output and the reduction; GROUP_M orders tiles in groups of GROUP_M rows
  of tiles so neighbouring programs share A and B tiles in L2.
- SPLIT_K > 1 splits K over SPLIT_K programs per tile (for small outputs with a long K, M <= 128):
  each writes its fp32 partial tile to a workspace and counts itself in the tile's arrival
  counter (an atomic add); the program that arrives last sums the partials in split order and
  applies the epilogue. One launch, and deterministic: the same sum in the same order whichever
  program is last. The launcher caps SPLIT_K at the number of K tiles and zeroes the counters.
- persistent > 0: a grid of min(tiles, SMs * persistent) programs, each looping over tiles;
  flatten: that loop flattened with the K loop (`tl.range(..., flatten=True)`), so the next
  tile's loads are issued while this tile's epilogue runs.
- EPILOGUE_SPLIT 2 or 4: the epilogue over column slices of the tile (`tl.split` of the
  accumulator), one after another, so its temporaries and its store's layout change are a slice's.
- gelu_erf_fit: an erf-GELU epilogue computes Phi from erfc's Chebyshev fit (Numerical Recipes'
  erfcc: relative error under 1.2e-7 in erfc; one division and one exponential, no cancellation
  for negative x) instead of libdevice's erf (about 30 instructions per element). Other epilogues
  render the same either way.
  At gelu(linear) 8192 x 8192 x 4096 bf16 on an H100, a persistent descriptor kernel with all
  three was the fastest of the variants timed in four runs (0.81-0.89 ms against 0.85-0.95 for
  the default tiles; bench/results/runs/gemm-epilogue-h100-round33.json to -round36.json).
- use_tma: Hopper tensor descriptors (host-side `TensorDescriptor`, TMA loads) for A and B. Taken
  only where it is valid: a CUDA device of compute capability >= 9, the installed Triton having
  descriptors, 2-D operands (no batch), one unit stride per operand, 16-byte aligned base and
  strides. Anywhere else (Triton's interpreter included) the launcher runs the pointer kernel,
  which computes the same values; `tma_plan(a, b)` in the rendered module says which path a call
  takes and why, so a benchmark records it. use_tma needs SPLIT_K == 1 (a constraint). With
  use_tma off the descriptor kernel is still rendered: a call whose rows the pointer kernel would
  have to copy into 16-element-aligned rows (K = 1000, N = 3073) takes it where it is valid.
- skinny_rows 128: a call whose output has at most 128 rows (M, A's batch dims folded in where B
  is one matrix) runs SKINNY_DEFAULT's kernels instead, rendered into the same module under a
  `_skinny_` prefix (SKINNY_WIDE's or SKINNY_LARGE's, `_skinny_wide_` and `_skinny_large_`, where
  SKINNY_DEFAULT's tiles would take more than one wave: the smallest tile that fits one;
  SKINNY_NARROW's, `_skinny_narrow_`, for 17-32 rows where its 32x64 tiles fit one wave, else
  SKINNY_NARROW_WIDE's 32x128, `_skinny_narrow_wide_`, where those do (both swap_ab);
  SKINNY_NARROW_PAIR's, `_skinny_narrow_pair_` (SKINNY_NARROW's shifted), for 33-64 rows where
  two of its tile rows fit one wave;
  SKINNY_WIDER's, `_skinny_wider_`, between SKINNY_WIDE's and SKINNY_LARGE's;
  SKINNY_POINTER's, `_skinny_pointer_`, for the other calls of 33-63 rows, under SKINNY_DEFAULT's
  one tile row),
  and one of at most DECODE_ROWS (16) rows DECODE_DEFAULT's (`_decode_`), DECODE_WIDE's
  (`_decode_wide_`) where DECODE_DEFAULT's tiles would take more than one wave, DECODE_WIDER's
  (`_decode_wider_`) where DECODE_WIDE's would too and its own would not;
  larger calls run this config's. One config cannot serve a task whose shapes
  include both a decode batch (16 rows, where 128x256 tiles leave most SMs idle) and a large M.
- odd_tiled: a call whose K or N is not a multiple of 16 elements (rows the descriptor kernel
  reads in place, 1000 and 3073 say) runs TILED's kernels instead (`_tiled_` prefix), unless the
  skinny companion takes it first. At 4099 x 1000 -> 3073 TILED took 0.098 ms and DEFAULT
  0.146, each of DEFAULT's knobs costing there (runs/gemm-odd-h100-round41.json), while DEFAULT
  is the faster at aligned large shapes.
- single_wave_tiled (with a persistent grid): a call with no more tiles than the grid has
  programs, so that no program loops, runs TILED's kernels too (one program per tile, pointer
  loads), after the skinny and odd routes. At 1000 x 1024 -> 3000 (96 tiles for 132 SMs) DEFAULT's
  kernel took 19.9 us and TILED's 16.4 in linear + LayerNorm's profiles
  (runs/compose-h100-round60.json, -round67.json); bias + GELU there 38.5 against 25.3 us
  (runs/gemm-configs-h100-small-round66.json).
- ws_pingpong: a Linear call (x @ W^T, W as nn.Linear holds it) whose epilogue is an optional
  bias row and at most one activation (relu, sigmoid, silu, tanh, GELU erf or tanh: ws_epilogue)
  runs, on an sm_90 GPU, a warp-specialized kernel written in Gluon (templates/_gemm_ws.jinja): a
  TMA producer warp, and two consumer warp groups on every other 128x128 tile of a persistent
  program, one's epilogue overlapping the other's wgmmas. `ws_plan(a, w, extras)` in the
  rendered module says which calls take it (16-bit, contiguous, 16-byte aligned rows); the rest,
  the interpreter and every other op run this config's kernels, and the companions still take
  their calls first. Fixed launch (128x128x64 tiles, 4 stages, groups of 8), the fastest of GPU
  rounds 243-245's variants. At gelu(linear) 8192x4096->8192 and 4096x4096->14336 on an H100 it
  took 1.044x and 1.034x eager as graph replays where DEFAULT took 0.979x and 0.978x, and 1.010x
  and 1.021x by the verifier's timer (DEFAULT 0.992x, 1.003x), in one run (GPU round 253,
  bench/results/probe-gluon-gemm-timers-h100.json). A call's launch is recorded by its signature
  (`ws_call`); a repeat skips ws_plan, Triton's binding and the descriptors' checks: 38.7-38.9 us
  of host time a call there, DEFAULT's 37.4-38.7.
- ws_coop (with ws_pingpong): the warp-specialized kernel's cooperative form instead: both
  consumer warp groups on each 128x256 tile (3 stages), the bias added to the fp32 accumulator
  and the sum rounded once into shared memory (as eager's GEMM writes it before the activation),
  and the previous tile's activation run in 32x64 slices between the wgmmas, each 128x64 column
  block stored with TMA when done (bench/probe_gluon_coop.py, GPU rounds 313-319: its bare GEMM
  took 0.70-0.77 ms at 8192x4096->8192 against cuBLAS F.linear's 0.75-0.79). gelu(linear) at
  8192x4096->8192 and 4096x4096->14336 took 1.039x and 1.023x eager by the verifier's timer
  (bfloat16; float16 1.040x, 1.054x), where ws_pingpong took 1.008x and 0.989x (GPU rounds 320
  and 301, bench/results/runs/optimize-linear-bias-gelu-*-h100-round320.json). On an H200 the
  pingpong form was the faster (the H200 is served it since linear_bias_gelu 1.10.0, round 343):
  1.050x and 1.055x eager at 8192x4096->8192 by the default timer and graph replays with the
  calls interleaved (round 350, bench/results/gemm-h200{,-graphs}.json). The H100 numbers here
  were timed in blocks, the kernel's first, which read compute-bound kernels a few percent high
  on the H200 (bench/RESULTS.md, "The order of the timed calls").
- swap_ab (tiles under 64 rows): the pointer and descriptor kernels compute C^T = B^T A^T, the
  accumulator transposed back before the epilogue, so a tile's BLOCK_N columns are the MMA's
  rows and a 16-row tile still runs Hopper's warp-group MMA (64 rows at least; unswapped it runs
  `mma.sync`). DECODE_WIDE's 16x64 tiles at 16x8192x8192 bf16 on an H200: 34.8-35.0 us swapped
  against 35.6-35.7 unswapped and cuBLAS's 35.5-35.7, the unswapped tiles timed twice in the same
  runs to show the spread (0.1%) (GPU round 430, bench/results/runs/probe-decode-splitk-h200-
  round430-run1.json, -run2.json; a read of the 128 MiB of B alone took 33.8-34.1 us).
- shift_tail: where M is not a multiple of BLOCK_M (and at least BLOCK_M), the last tile row
  starts at row M - BLOCK_M instead of past it, overlapping the row tile before it: every row its
  loads read lies in bounds (no rows zero-filled by the TMA unit or masked off) and the pointer
  kernel drops its row masks. The rows two tiles share are computed by the same instructions in
  the same order and stored twice, the same values. Not with split-K or the warp-specialized
  kernel (constraints); a fused row norm's kernel (fuse_norm) never shifts, as its tiles' partial
  statistics must not share rows, while its calls that take two kernels do.

fp32 operands are multiplied in IEEE fp32 (`input_precision="ieee"`, never TF32); bf16/fp16
accumulate in fp32. Shared memory is budgeted for 2-byte operands (the dtype is not known when a
config is built): num_stages * (BM*BK + BK*BN) * 2 bytes must fit. An fp32 launch needs twice
that, so the launcher lowers num_stages for fp32 until the stages fit (at least one stage must:
a constraint), and records the stages it used in `fp32_stages()`. On a GPU the launcher then
compiles the kernel before its first launch and lowers the stages further while the compiled
kernel's shared memory exceeds the device's (a flattened loop or a sliced epilogue adds buffers
this budget does not count: float32 under DEFAULT asked for 256-288 KB); a recipe keeps the
stages that ran.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from templates.base import InvalidConfig, Param, Template
from templates.pointwise import render_expression, validate_inputs
from templates.prefix import append_companion

# An H100/H200 thread block may use 227 KB of shared memory; the epilogue's layout conversion
# reuses the pipeline's buffers, so the pipeline alone is budgeted.
MAX_SHARED_BYTES = 227 * 1024
BUDGET_ITEMSIZE = 2  # bf16/fp16; fp32 launches lower their stages (see the docstring)
MAX_ACC_PER_THREAD = 256  # fp32 accumulator values per thread before the compiler spills
MIN_ACC_PER_THREAD = 4  # a tile too small for its warps leaves threads idle
TMA_MIN_BLOCK_BYTES = 16  # a TMA box's inner dim must span at least 16 bytes


@dataclass(frozen=True)
class GemmConfig:
    BLOCK_M: int
    BLOCK_N: int
    BLOCK_K: int
    GROUP_M: int
    num_warps: int
    num_stages: int
    SPLIT_K: int
    persistent: int  # programs per SM of a persistent grid; 0: one program per tile
    use_tma: bool
    # Knobs added after entries and configs were first written; a params dict without them
    # means these values (GemmTemplate.config fills them in).
    EPILOGUE_SPLIT: int = 1  # the epilogue over 1, 2 or 4 column slices of the tile, in turn
    flatten: bool = False  # a persistent tile loop flattened with the K loop
    gelu_erf_fit: bool = False  # erf-GELU from erfc's Chebyshev fit instead of libdevice's erf
    # calls with at most this many output rows run SKINNY_DEFAULT's kernels, rendered beside this
    # config's (0: every call runs this config)
    skinny_rows: int = 0
    # calls with K or N not a multiple of 16 elements run TILED's kernels, rendered beside these
    odd_tiled: bool = False
    # calls whose tiles a persistent grid covers in one wave (no program loops) run TILED's too
    single_wave_tiled: bool = False
    # with a row norm (context `row_norm`): a call whose tiles fit one wave runs the GEMM and the
    # norm in one kernel (off: the GEMM, then a row-norm kernel)
    fuse_norm: bool = False
    # Linear calls (x @ W^T) whose epilogue is a bias row and at most one activation run, on an
    # sm_90 GPU, the warp-specialized Gluon kernel (ws_plan says which calls); elsewhere, and for
    # every other epilogue, this config's kernels
    ws_pingpong: bool = False
    # with ws_pingpong: the warp-specialized kernel's cooperative form (two warp groups on each
    # 128x256 tile, the previous tile's activation between the wgmmas) instead of the pingpong
    ws_coop: bool = False
    # CTAs a program's tile is split over along M, launched as one cluster (Hopper; Triton 3.6's
    # PTX has no multicast load: each CTA loads its rows of A and all of B): the descriptor
    # kernel's calls only, one program per tile, no split-K (constraints); every other kernel of
    # the module launches single CTAs
    num_ctas: int = 1
    # the kernels compute C^T = B^T A^T, so a tile's BLOCK_N columns are the MMA's rows: a tile
    # of 16 rows still runs Hopper's warp-group MMA, whose tiles have at least 64 rows
    swap_ab: bool = False
    # the last tile row ends at row M (overlapping the one before) instead of running past it
    shift_tail: bool = False


SPACE = (
    Param("BLOCK_M", (16, 32, 64, 128, 256)),
    Param("BLOCK_N", (32, 64, 128, 256)),
    Param("BLOCK_K", (32, 64, 128, 256)),
    Param("GROUP_M", (1, 4, 8, 16)),
    Param("num_warps", (4, 8)),
    # deep pipelines for skinny outputs, where few programs stream B (cuBLAS's kernel at
    # 128x4096x4096 on an H100 keeps 64x64 tiles about 13 deep; 12 did not help ours, round 138)
    Param("num_stages", (2, 3, 4, 5, 6, 8, 9, 12)),
    Param("SPLIT_K", (1, 2, 4, 8, 16)),
    Param("persistent", (0, 1, 2)),
    Param("use_tma", (False, True)),
    Param("EPILOGUE_SPLIT", (1, 2, 4)),
    Param("flatten", (False, True)),
    Param("gelu_erf_fit", (False, True)),
    Param("skinny_rows", (0, 128)),
    Param("odd_tiled", (False, True)),
    Param("single_wave_tiled", (False, True)),
    Param("fuse_norm", (False, True)),
    Param("ws_pingpong", (False, True)),
    Param("num_ctas", (1, 2)),
    Param("ws_coop", (False, True)),
    Param("swap_ab", (False, True)),
    Param("shift_tail", (False, True)),
)
# the knobs a params dict written before them may lack, and the value each then takes
LATER_KNOBS = {"EPILOGUE_SPLIT": 1, "flatten": False, "gelu_erf_fit": False, "skinny_rows": 0,
               "odd_tiled": False, "single_wave_tiled": False, "fuse_norm": False,
               "ws_pingpong": False, "num_ctas": 1, "ws_coop": False, "swap_ab": False,
               "shift_tail": False}

# Triton's matmul tutorial and Inductor's H100 mm configs: a 128x256x64 tile, 8 warps, 3 stages
# (3 * (128*64 + 64*256) * 2 B = 144 KB of shared memory), grouped by 8; one program per tile,
# pointer loads. The default until the persistent descriptor kernel below measured faster.
TILED = GemmConfig(
    BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3, SPLIT_K=1,
    persistent=0, use_tma=False,
)
# The same tiles in a persistent descriptor kernel: one program per SM, its tile loop flattened
# with the K loop, the epilogue in two column slices, erf-GELU from erfc's fit. In one H100 sweep
# (bench/results/runs/gemm-configs-h100-round37.json) it was the fastest or within 2.5% of the
# fastest at every large case: 0.979x cuBLAS at 4096^3 (TILED 0.895x), 1.006x at 8192^3
# (0.898x), 0.990x at 8192x4096x14336 (0.888x; a persistent kernel without flattening 1.014x),
# and gelu(linear) 8192x8192x4096 0.941x of the bare cuBLAS GEMM (TILED 0.840x). Where descriptor
# loads are not available (Triton's interpreter, GPUs before Hopper, float32, batched operands:
# tma_plan) the launcher runs the pointer kernel with the same knobs. At odd row lengths (4099 x
# 1000 -> 3073) it is slower than TILED (0.146 ms against 0.097; each knob alone costs there,
# runs/gemm-odd-h100-round40.json, -round41.json): a search tries TILED second (`seeds`).
DEFAULT = GemmConfig(
    BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, GROUP_M=8, num_warps=8, num_stages=3, SPLIT_K=1,
    persistent=1, use_tma=True, EPILOGUE_SPLIT=2, flatten=True, gelu_erf_fit=True,
)
# Where a search for skinny outputs (M <= 128 rows: decode batches against a weight, the zoo
# bucket rows_le_128) starts, and what a skinny companion runs: 64x64 tiles in K steps of 128, six
# deep, through tensor descriptors where they are valid (the pointer kernel elsewhere), grouped by
# 4 so that a column's two row tiles run side by side over the same B tile. By graph replays on an
# H100 (GPU round 281, bench/gemm.py --configs --graphs with bench/gemm-skinny-linear-candidates
# .json, bench/results/runs/gemm-configs-h100-skinny-linear-graphs-round281.json):
#   128x4096x4096 matmul          17.0 us  (CTA pair 17.2, 128x32 18.0, cuBLAS 17.9)
#   silu(linear) 128x4096->4096   18.3     (128x32 19.5, cuBLAS 18.2, eager 21.1)
#   silu(linear) 64x4096->4096    18.5     (128x32 29.9, cuBLAS 17.6, eager 20.6)
#   gelu(linear) 100x1000->3000   12.0     (128x32 13.2, cuBLAS 9.5, eager 12.5)
#   gelu(linear) 128x4096->14336  61.5     (128x32 64.4, 128x64 single CTAs 55.1, eager 51.1)
# Round 280 had them at 17.2 us against the pair's 17.4 at 128x4096x4096. Unlike the pair they
# build under Triton 3.6 for a transposed B (Linear's x @ W^T) as well, so one tile serves both
# layouts. Calls of at most 16 rows run DECODE_DEFAULT (below). With shift_tail the last tile
# row of a call whose rows are not a multiple of 64 ends at its last row, so every descriptor box
# lies in bounds: on an H200 (GPU round 437, bench/gemm.py --configs --graphs with
# bench/gemm-shift-tail-candidates.json, bench/results/runs/gemm-configs-h200-graphs-round437-
# shift-tail.json), in us:
#   rows x 4096 -> 4096     64x64 descriptors   shifted   pointers (shifted)   cuBLAS
#   matmul 80                     21.9            14.6         16.5 (16.1)        18.4
#   matmul 96                     19.3            15.0         16.2 (16.2)        18.8
#   matmul 100                    19.0            14.7         17.5 (16.0)        15.6
#   matmul 112                    15.3            14.8         15.3 (16.1)        18.3
#   matmul 128                    14.8            14.7         15.3 (16.0)        16.7
#   silu(linear) 100              20.3            16.3         18.1 (16.8)        15.7 (eager 18.6)
SKINNY_DEFAULT = GemmConfig(
    BLOCK_M=64, BLOCK_N=64, BLOCK_K=128, GROUP_M=4, num_warps=4, num_stages=6, SPLIT_K=1,
    persistent=0, use_tma=True, shift_tail=True,
)
# The skinny bucket's second start: 128x64 tiles in CTA pairs (Triton's num_ctas=2), each CTA 64
# of the rows and all of the B tile (no multicast in its PTX), 16.9 us against cuBLAS's 17.9 at
# 128x4096x4096 (GPU round 266, bench/results/probe-skinny-splitk-h100.json; SKINNY_DEFAULT from
# rounds 264 to 280). Triton 3.6 builds no transposed B tile in a cluster ("Failed to find a valid
# layout"; 3.9 does), so a call of a cluster config whose B is transposed runs single CTAs: at
# 128x4096->14336 those 128x64 tiles were round 281's fastest (55.1 us), still behind eager.
SKINNY_PAIR = GemmConfig(
    BLOCK_M=128, BLOCK_N=64, BLOCK_K=128, GROUP_M=1, num_warps=4, num_stages=6, SPLIT_K=1,
    persistent=0, use_tma=True, num_ctas=2,
)
# A skinny call (at most 128 rows) whose SKINNY_DEFAULT tiles would take more than one wave of the
# SMs runs the smallest of these tiles that fits one wave, else the largest: a wide weight, read
# once at its bandwidth, wants every SM streaming a slab of it and no second wave. By graph
# replays of silu(linear) on an H100 (GPU rounds 284-285, bench/gemm.py --configs --graphs,
# bench/results/runs/gemm-configs-h100-skinny-wide-graphs-round284.json and -round285.json), in us:
#   x @ W^T        64x64    64x128   128x128   eager   the rule's pick
#   128x4096->8192   33.7     30.7     35.1     32.4   64x128 (128 programs)
#   100x4096->8192   40.7     29.9     34.9     31.9   64x128
#   128x4096->5120   27.3     23.6     31.7     23.4   64x128 (80)
#   32x4096->14336   52.1     46.8     61.7     48.8   64x128 (112)
#   128x4096->11008  46.2     46.2     42.0     43.1   128x128 (86)
#   80x4096->14336   82.9     65.0     49.1     49.7   128x128 (112)
#   128x4096->14336  59.7     53.0     49.3     51.2   128x128 (112)
# and at 128x4096->4096 SKINNY_DEFAULT's 128 programs fit (18.9 us, eager 21.1).
# SKINNY_WIDE shifts its last tile row as SKINNY_DEFAULT does: at 100 x 4096 -> 8192 on an H200
# 22.0 us against 24.4 unshifted (cuBLAS 23.0; GPU round 438, bench/gemm.py --configs --graphs
# with bench/gemm-skinny-wider-candidates.json, bench/results/runs/gemm-configs-h200-graphs-
# round438-skinny-wider.json). Where 64x128 tiles pass one wave too, 64x256 tiles (eight warps,
# K steps of 64, five deep, shifted) before 128x128: at 100 and 128 x 4096 -> 14336 33.2 and
# 33.1 us against 128x128's 39.5 and 36.3 (cuBLAS 34.0 and 34.0; four deep 36.1 and 36.3),
# silu(linear) at 100 rows 37.2 against 41.5 (eager 39.1).
SKINNY_WIDE = GemmConfig(
    BLOCK_M=64, BLOCK_N=128, BLOCK_K=128, GROUP_M=4, num_warps=4, num_stages=4, SPLIT_K=1,
    persistent=0, use_tma=True, shift_tail=True,
)
SKINNY_WIDER = GemmConfig(
    BLOCK_M=64, BLOCK_N=256, BLOCK_K=64, GROUP_M=4, num_warps=8, num_stages=5, SPLIT_K=1,
    persistent=0, use_tma=True, shift_tail=True,
)
SKINNY_LARGE = GemmConfig(
    BLOCK_M=128, BLOCK_N=128, BLOCK_K=128, GROUP_M=1, num_warps=8, num_stages=3, SPLIT_K=1,
    persistent=0, use_tma=True,
)
# A call of 17-32 rows (DECODE_DEFAULT serves 16 and fewer) whose 32x32 tiles fit one wave of the
# SMs runs these: one tile row covers every row, so the weight is read once, and twice the
# programs of SKINNY_DEFAULT's 64x64 tiles stream it. By graph replays of linear + bias +
# activation on an H100 (GPU round 292, bench/gemm.py --configs --graphs,
# bench/results/runs/gemm-configs-h100-skinny-small-graphs-round292.json), in us:
#   x @ W^T              32x32   64x64   eager
#   gelu 32x4096->4096    19.0    21.9    20.1   (128 programs against 64)
#   silu 32x4096->4096    19.0    20.5    20.4
#   gelu 32x1000->3000    11.0    11.4    11.6   (94 against 47)
# Where there are more rows, more tile rows read the weight again and more programs pass one
# wave: at 64 and 100 rows 32x32 tiles lost to 64x64 (13.0 against 11.9 at 64x1000->3000, 43.0
# against 21.4 at 100x4096->4096), so they serve only the calls one tile row covers.
# On an H200 the same calls run 32x64 tiles with swap_ab (64 rows of B^T the warp-group MMA's),
# and where those pass one wave, SKINNY_NARROW_WIDE's 32x128 (GPU round 435, bench/gemm.py
# --configs --graphs, bench/results/runs/gemm-configs-h200-graphs-round435-skinny.json), in us:
#   matmul               32x32   32x64 swapped   32x128 swapped   64x128   cuBLAS
#   24x4096->4096         16.8       13.8            18.6           20.4     16.1
#   24x4096->14336        39.0       34.2            31.7           37.8     32.3
#   32x4096->14336        39.8       33.8            31.4           35.9     32.4
# (before, 24 rows of 4096->14336 ran 64x128 tiles: ops.matmul 38.8 us against cuBLAS's 32.7,
# round 434, bench/results/runs/matmul-skinny-h200-round434.json).
SKINNY_NARROW = GemmConfig(
    BLOCK_M=32, BLOCK_N=64, BLOCK_K=128, GROUP_M=4, num_warps=4, num_stages=6, SPLIT_K=1,
    persistent=0, use_tma=True, swap_ab=True,
)
SKINNY_NARROW_WIDE = GemmConfig(
    BLOCK_M=32, BLOCK_N=128, BLOCK_K=128, GROUP_M=4, num_warps=4, num_stages=4, SPLIT_K=1,
    persistent=0, use_tma=True, swap_ab=True,
)
# SKINNY_NARROW's tiles with the last tile row shifted back in bounds (shift_tail), for the calls
# of 33-64 rows, more than one 32-row tile row and at most two, where two tile rows fit one wave.
# By graph replays on an H200 (GPU round 442, bench/gemm.py --configs --graphs with
# bench/gemm-skinny-33-63-candidates.json, bench/results/runs/gemm-configs-h200-graphs-round442-
# skinny-33-63.json), in us:
#   matmul                 32x64 swapped, shifted   64x64 pointers (served)   cuBLAS
#   40x4096->4096                  14.1                     16.6               16.6
#   48x4096->4096                  14.3                     15.0               16.9
# and at 48 x 4096 -> 14336 (two tile rows are 3.4 waves) 44.0 against SKINNY_WIDE's 32.6. At 64
# rows, two whole tile rows, they beat SKINNY_DEFAULT's one (GPU rounds 444-445,
# bench/gemm-skinny-64-pair-candidates.json and gemm-skinny-40-candidates.json,
# bench/results/runs/gemm-configs-h200-graphs-round444-skinny-64-pair.json and
# -round445-skinny-40.json), in us:
#   64 rows of             32x64 swapped, shifted   64x64 (served)   64x64 pointers   cuBLAS
#   matmul 4096->4096              14.0                 14.2                            14.3
#   matmul 1000->3000               9.2                  9.3                             8.4
#   silu(linear) 4096->4096        15.5                 15.9                            15.2
#   gelu(linear) 4096->4096        16.3                                   17.4          15.6
#   silu(linear) 1000->3000        10.4                                   10.9           9.2
#   gelu(linear) 1000->3000        10.6                 11.3                             8.8
# (cuBLAS: the bare GEMM). At 40 rows of 1000 -> 3000 they trailed SKINNY_POINTER's tiles, which
# served those calls before round 443: matmul 10.0 against 9.5 us, silu(linear) 11.1 against 10.9
# (gelu(linear) 11.3 against 11.4; round 445); the rule does not tell those calls apart.
SKINNY_NARROW_PAIR = dataclasses.replace(SKINNY_NARROW, shift_tail=True)
# SKINNY_DEFAULT's tiles through pointer loads, for the calls whose last tile row is partly past
# the rows: there SKINNY_DEFAULT's descriptor loads were slow, and these level with cuBLAS. Since
# SKINNY_DEFAULT shifts its last tile row (round 437, above) they serve only calls of 33-63 rows,
# under one tile row, which no shift brings in bounds, and of those only the ones
# SKINNY_NARROW_PAIR's tiles (above) would take more than one wave for. By
# graph replays on an H100 (GPU rounds 299-300, bench/gemm.py --configs --graphs,
# bench/results/runs/gemm-configs-h100-skinny-tail-graphs-round299.json, -pointer-round300.json),
# in us:
#   rows x 4096 -> 4096      descriptors   pointers   cuBLAS (bare GEMM)   eager
#   matmul 96                   20.5         17.5        17.5
#   matmul 100                  19.9         17.5        17.5
#   silu(linear) 100            20.8         19.2        17.9             20.8
#   gelu(linear) 100            21.0         19.8        17.8             20.5
#   matmul 112 (48 of 64)       17.4         17.6        17.5
#   silu(linear) 48             18.6         18.7        17.5             20.1
#   silu(linear) 64             18.2         18.8        17.9             20.4
#   matmul 128                  17.2         17.5        17.5
# so calls whose rows fill whole tile rows keep the descriptors. The wider tiles showed no such
# loss (64x128 at 100 x 4096->8192: 30.0 against pointers' 30.5; 128x128 at 80 x 4096->14336:
# 49.0 either way). Rows of K or N not 16-element aligned (K = 1000) still take descriptors
# (tma_plan).
SKINNY_POINTER = dataclasses.replace(SKINNY_DEFAULT, use_tma=False)
# (route, config, the calls it may serve: "one" those whose rows one of its tile rows covers,
# "pair" those with more rows than one tile row and at most two (shift_tail brings the second
# in bounds), "tile" those with a tile row's rows at least (shift_tail brings the last tile row in
# bounds), "any"), smallest tile first: the companions of skinny calls, in the order _route tries
# them
SKINNY_TILES = (("skinny_narrow", SKINNY_NARROW, "one"),
                ("skinny_narrow_wide", SKINNY_NARROW_WIDE, "one"),
                ("skinny_narrow_pair", SKINNY_NARROW_PAIR, "pair"),
                ("skinny", SKINNY_DEFAULT, "tile"),
                ("skinny_pointer", SKINNY_POINTER, "any"), ("skinny_wide", SKINNY_WIDE, "any"),
                ("skinny_wider", SKINNY_WIDER, "any"), ("skinny_large", SKINNY_LARGE, "any"))
# What a skinny companion's calls of at most DECODE_ROWS (16) output rows run: a decode step. At
# 16 x 4096 -> 4096 the skinny start of round 108 (128x64 tiles) made 64 programs for 132 SMs;
# 16x32 tiles in K steps of 128, six deep, make 128. With bias + SiLU on an H100 they took 18.1 us
# against that start's 24.9, eager's 22.6 and the bare cuBLAS GEMM's 18.7; split-K 2 and 4 took
# 20.7-27.7 (GPU round 108, bench/results/runs/gemm-configs-h100-decode-round108.json). At 128
# rows 16-row tiles lost (50.8 us against 25.1, round 16), so larger skinny calls keep
# SKINNY_DEFAULT.
DECODE_ROWS = 16
DECODE_DEFAULT = GemmConfig(
    BLOCK_M=16, BLOCK_N=32, BLOCK_K=128, GROUP_M=1, num_warps=4, num_stages=6, SPLIT_K=1,
    persistent=0, use_tma=False,
)
# What a decode call runs instead where DECODE_DEFAULT's tiles would take more than one wave of
# the SMs (16x8192x8192: 256 programs for 132 SMs took 53.9 us against cuBLAS's 48.9): 16x64
# tiles in K steps of 256, three deep, through tensor descriptors, half the programs (48.1 us;
# at 16x4096->4096, one wave either way, they lost, 19.8 us against DECODE_DEFAULT's 17.5; GPU
# round 269, bench/results/runs/gemm-configs-h100-decode-tma-graphs-round269.json). On an H200,
# swap_ab and four stages (GPU round 431, bench/results/runs/gemm-configs-h200-graphs-round431-
# swap-ab.json, us against the three unswapped stages before): 34.8 against 35.5 at 16x8192x8192
# bf16 (cuBLAS 35.0), 34.4 against 35.1 in fp16 (cuBLAS 40.8), 35.0 against 36.7 at one row,
# 36.4 against 38.0 for silu(linear) at 16x8192->8192; 1.7 waves of tiles lost a little, 32.9
# against 32.4 at 16x14336x4096 and 33.8 against 33.5 for silu(linear) there (three stages
# swapped: 34.1 and 34.9). Splitting K over 2 or 4 programs a tile lost, 0.74-0.97x cuBLAS
# (round 429, bench/results/runs/probe-decode-splitk-h200-round429.json).
DECODE_WIDE = GemmConfig(
    BLOCK_M=16, BLOCK_N=64, BLOCK_K=256, GROUP_M=1, num_warps=4, num_stages=4, SPLIT_K=1,
    persistent=0, use_tma=True, swap_ab=True,
)
# Where DECODE_WIDE's tiles pass one wave too and 16x128 tiles (swapped, K steps of 128, four
# deep) fit one: on an H200 at 4096 -> 14336, 31.6 us at one row and at 16 (DECODE_WIDE 34.9 and
# 33.6, cuBLAS 34.5 and 32.8); at 16x8192x8192, half a wave of them, 37.5 against DECODE_WIDE's
# 35.2 (GPU round 437, bench/results/runs/gemm-configs-h200-graphs-round437-shift-tail.json).
# Where they pass one wave as well, DECODE_WIDE's run.
DECODE_WIDER = GemmConfig(
    BLOCK_M=16, BLOCK_N=128, BLOCK_K=128, GROUP_M=1, num_warps=4, num_stages=4, SPLIT_K=1,
    persistent=0, use_tma=True, swap_ab=True,
)


def stage_bytes(cfg: GemmConfig, itemsize: int) -> int:
    """Shared memory of one pipeline stage in one CTA: an A tile and a B tile; in a cluster each
    CTA holds its share of the tile's rows of A and all of B (Triton splits a dot's tile along M:
    SKINNY_PAIR's six stages build to 196656 bytes a CTA, tests/test_gemm.py's sm_90a build)."""
    return (cfg.BLOCK_M // cfg.num_ctas * cfg.BLOCK_K + cfg.BLOCK_K * cfg.BLOCK_N) * itemsize


def constraints(cfg: GemmConfig) -> list[str]:
    problems = []
    shared = cfg.num_stages * stage_bytes(cfg, BUDGET_ITEMSIZE)
    if shared > MAX_SHARED_BYTES:
        problems.append(f"{cfg.num_stages} stages of {cfg.BLOCK_M}x{cfg.BLOCK_N}x{cfg.BLOCK_K} "
                        f"take {shared} bytes of shared memory at 2 bytes per element "
                        f"(> {MAX_SHARED_BYTES})")
    if stage_bytes(cfg, 4) > MAX_SHARED_BYTES:
        problems.append(f"one fp32 stage of {cfg.BLOCK_M}x{cfg.BLOCK_N}x{cfg.BLOCK_K} takes "
                        f"{stage_bytes(cfg, 4)} bytes (> {MAX_SHARED_BYTES}): fp32 could not run")
    per_thread = cfg.BLOCK_M * cfg.BLOCK_N // (32 * cfg.num_warps * cfg.num_ctas)
    warps = f"{cfg.num_warps}" if cfg.num_ctas == 1 else f"{cfg.num_warps} x {cfg.num_ctas} CTAs'"
    if per_thread > MAX_ACC_PER_THREAD:
        problems.append(f"a {cfg.BLOCK_M}x{cfg.BLOCK_N} fp32 accumulator over {warps} warps is "
                        f"{per_thread} registers per thread (> {MAX_ACC_PER_THREAD})")
    if per_thread < MIN_ACC_PER_THREAD:
        problems.append(f"a {cfg.BLOCK_M}x{cfg.BLOCK_N} tile over {warps} warps gives "
                        f"{per_thread} accumulator values per thread (< {MIN_ACC_PER_THREAD})")
    if cfg.SPLIT_K > 1 and cfg.persistent:
        problems.append("SPLIT_K > 1 with a persistent grid: split-K is for outputs too small to "
                        "fill the GPU, where a persistent loop has nothing to loop over")
    if cfg.use_tma and cfg.SPLIT_K > 1:
        problems.append("use_tma with SPLIT_K > 1: the TMA kernel covers whole-K tiles only")
    if cfg.SPLIT_K > 1 and cfg.BLOCK_M * cfg.BLOCK_N > 128 * 128:
        problems.append("SPLIT_K > 1 with a tile over 128x128: split-K serves small outputs")
    if cfg.BLOCK_N // cfg.EPILOGUE_SPLIT < 32:
        problems.append(f"EPILOGUE_SPLIT {cfg.EPILOGUE_SPLIT} of a {cfg.BLOCK_N}-column tile "
                        "leaves slices under 32 columns")
    if cfg.flatten and not cfg.persistent:
        problems.append("flatten without a persistent grid: there is no tile loop to flatten")
    if cfg.single_wave_tiled and not cfg.persistent:
        problems.append("single_wave_tiled without a persistent grid: there is no wave to count")
    if cfg.num_ctas > 1 and not (cfg.use_tma and cfg.persistent == 0):
        problems.append(f"num_ctas {cfg.num_ctas} without use_tma or with a persistent grid: "
                        "clusters serve the descriptor kernel's one program per tile")
    if cfg.num_ctas > 1 and cfg.EPILOGUE_SPLIT > 1:
        # Triton 3.6 (LLVM: "Invalid bases passed to LinearLayout", GPU round 271); 3.9 builds it
        problems.append(f"num_ctas {cfg.num_ctas} with EPILOGUE_SPLIT {cfg.EPILOGUE_SPLIT}: the "
                        "sliced epilogue does not build in a cluster")
    if cfg.num_ctas > 1 and cfg.BLOCK_M // cfg.num_ctas < 64:
        problems.append(f"num_ctas {cfg.num_ctas} of {cfg.BLOCK_M}-row tiles leaves CTAs under "
                        "64 rows, a warp group's MMA")
    if cfg.swap_ab and cfg.BLOCK_M >= 64:
        problems.append(f"swap_ab with {cfg.BLOCK_M}-row tiles: the tile's rows already fill a "
                        "warp group's MMA (64 rows)")
    if cfg.swap_ab and cfg.num_ctas > 1:
        problems.append(f"swap_ab with num_ctas {cfg.num_ctas}: a cluster splits the tile's rows, "
                        "which swap_ab makes the MMA's columns")
    if cfg.shift_tail and cfg.SPLIT_K > 1:
        problems.append(f"shift_tail with SPLIT_K {cfg.SPLIT_K}: overlapping tiles would share "
                        "split-K's partial rows")
    if cfg.shift_tail and cfg.ws_pingpong:
        problems.append("shift_tail with ws_pingpong: the warp-specialized kernel tiles the "
                        "output its own way")
    if cfg.ws_coop and not cfg.ws_pingpong:
        problems.append("ws_coop without ws_pingpong: it picks the warp-specialized kernel's "
                        "form, and ws_pingpong turns that kernel on")
    if cfg.GROUP_M > 1 and cfg.BLOCK_M * cfg.GROUP_M > 4096:
        problems.append(f"GROUP_M {cfg.GROUP_M} of {cfg.BLOCK_M}-row tiles spans more than "
                        "4096 rows: the group no longer fits L2 alongside its B tiles")
    return problems


def bytes_moved(m: int, n: int, k: int, itemsize: int, batch: int = 1, n_row_inputs: int = 0,
                n_full_inputs: int = 0) -> int:
    """A and B read once, C written once (per batch), plus the epilogue's operands."""
    per_batch = (m * k + k * n + (1 + n_full_inputs) * m * n) * itemsize
    return batch * per_batch + n_row_inputs * n * itemsize


def flops(m: int, n: int, k: int, batch: int = 1) -> int:
    """Multiply-adds of the matmul, two FLOPs each; the epilogue's few per element are left out."""
    return 2 * batch * m * n * k


_OPERAND_KEYS = {"source", "index", "path", "transposed"}


def _check_operand(name: str, spec: Any, params: Any) -> dict:
    if not isinstance(spec, dict) or not isinstance(spec.get("transposed"), bool):
        raise InvalidConfig(f"{name} must be a dict with a bool 'transposed', got {spec!r:.80}")
    extra = set(spec) - _OPERAND_KEYS
    if extra:
        raise InvalidConfig(f"{name}: unknown keys {sorted(extra)}")
    # an operand's source is validated as a pointwise input of kind "full"
    validate_inputs([{"kind": "full", **{k: v for k, v in spec.items() if k != "transposed"}}],
                    params)
    return dict(spec)


_ROW_NORM_KEYS = {"kind", "eps", "weight", "bias"}


def _check_row_norm(spec: Any, inputs: list[dict]) -> dict | None:
    """The `row_norm` context checked: None, or {"kind": "layer" | "rms", "eps": float or None
    (RMSNorm only: the dtype's machine epsilon), "weight": i or None, "bias": i or None (LayerNorm
    only)}, where i names one of `inputs` of kind "row"."""
    if spec is None:
        return None
    if not isinstance(spec, dict) or set(spec) != _ROW_NORM_KEYS:
        raise InvalidConfig(f"row_norm must be a dict with keys {sorted(_ROW_NORM_KEYS)}, "
                            f"got {spec!r:.80}")
    kind, eps = spec["kind"], spec["eps"]
    if kind not in ("layer", "rms"):
        raise InvalidConfig(f"row_norm kind must be 'layer' or 'rms', got {kind!r}")
    if eps is None and kind == "layer":
        raise InvalidConfig("row_norm: a LayerNorm needs its eps")
    if eps is not None and (isinstance(eps, bool) or not isinstance(eps, (int, float))
                            or not eps >= 0):
        raise InvalidConfig(f"row_norm eps must be a number >= 0 or None, got {eps!r}")
    if spec["bias"] is not None and kind == "rms":
        raise InvalidConfig("row_norm: an RMSNorm has no bias")
    for key in ("weight", "bias"):
        index = spec[key]
        if index is None:
            continue
        if (isinstance(index, bool) or not isinstance(index, int)
                or not 0 <= index < len(inputs) or inputs[index]["kind"] != "row"):
            raise InvalidConfig(f"row_norm {key} must index an input of kind 'row', got "
                                f"{index!r}")
    return {**spec, "eps": None if eps is None else float(eps)}


# The activations the warp-specialized kernel renders (templates/_gemm_ws.jinja), by the epilogue
# op that names them; GELU by its approximation
WS_ACTIVATIONS = {"relu": "relu", "sigmoid": "sigmoid", "silu": "silu", "tanh": "tanh"}


def ws_epilogue(epilogue: Any, inputs: list[dict]) -> dict | None:
    """{"bias": i or None, "act": name or None} when the epilogue is what the warp-specialized
    kernel renders: an optional activation of the accumulator plus an optional bias row (input i,
    of kind "row"); None for any other epilogue."""
    act = None
    if isinstance(epilogue, list) and epilogue and epilogue[0] in WS_ACTIVATIONS \
            and len(epilogue) == 2:
        act, epilogue = WS_ACTIVATIONS[epilogue[0]], epilogue[1]
    elif isinstance(epilogue, list) and len(epilogue) == 3 and epilogue[0] == "gelu" \
            and epilogue[2] in ("none", "tanh"):
        act, epilogue = ("gelu" if epilogue[2] == "none" else "gelu_tanh"), epilogue[1]
    if epilogue == ["acc"]:
        return {"bias": None, "act": act}
    if isinstance(epilogue, list) and len(epilogue) == 3 and epilogue[0] == "add":
        for acc, row in ((epilogue[1], epilogue[2]), (epilogue[2], epilogue[1])):
            if acc == ["acc"] and isinstance(row, list) and len(row) == 2 \
                    and row[0] == "input" and isinstance(row[1], int) \
                    and 0 <= row[1] < len(inputs) and inputs[row[1]]["kind"] == "row":
                return {"bias": row[1], "act": act}
    return None


@dataclass(frozen=True)
class GemmTemplate(Template):
    """Renders with the epilogue compiled to Triton statements over `acc`."""

    def config(self, params: dict[str, Any]) -> Any:
        """As Template.config; a params dict from before LATER_KNOBS existed gets their values."""
        return super().config({**LATER_KNOBS, **params})

    def starts_for(self, bucket: str) -> list[Any]:
        """As Template.starts_for; a skinny companion only where some calls may be skinny (not in
        the rows_gt_128 bucket); the skinny bucket tries SKINNY_PAIR second."""
        starts = super().starts_for(bucket)
        if bucket == "rows_le_128":  # the single-CTA tile, then the CTA pair
            starts = [*starts, SKINNY_PAIR]
        if bucket == "rows_gt_128":
            starts = [dataclasses.replace(cfg, skinny_rows=0) for cfg in starts]
        return list(dict.fromkeys(starts))

    def render(self, cfg: Any, **context: Any) -> str:
        context = {"decode_rows": DECODE_ROWS,
                   "decode_block_n": (DECODE_DEFAULT.BLOCK_N, DECODE_WIDE.BLOCK_N,
                                      DECODE_WIDER.BLOCK_N),
                   "skinny_tiles": repr(tuple((c.BLOCK_M, c.BLOCK_N, route, rows)
                                              for route, c, rows in SKINNY_TILES)),
                   "skinny_routes": [route for route, _, _ in SKINNY_TILES],
                   "row_norm": None, "ws_epilogue": None, **context}
        if "a" in context and "b" in context:
            op = context.get("op", "missing")
            if not isinstance(op, str) or not op.isidentifier():
                raise InvalidConfig(f"template {self.name}: op must be an identifier (it names "
                                    f"launch_<op>), got {op!r}")
            params = context.get("params", [])
            a = _check_operand("a", context["a"], params)
            b = _check_operand("b", context["b"], params)
            raw_inputs = context.get("inputs", [])
            inputs = validate_inputs(raw_inputs, params) if raw_inputs else []
            epilogue = context.get("epilogue", ["acc"])
            rendered = render_expression(epilogue, len(inputs), leaves={"acc": "acc"})
            if "acc" not in rendered.used_leaves:
                raise InvalidConfig("the epilogue never reads ['acc'], the matmul result")
            row_norm = _check_row_norm(context.get("row_norm"), inputs)
            # ws_pingpong serves Linear calls (x @ W^T with W as nn.Linear holds it), a row norm's
            # too where it runs as a second kernel (fuse_norm off: the warp-specialized kernel
            # writes y, _row_norm_kernel normalizes it); for any other op the knob changes nothing
            linear = not a["transposed"] and b["transposed"] \
                and (row_norm is None or not cfg.fuse_norm)
            context = {**context, "a": a, "b": b, "inputs": inputs, "epilogue": epilogue,
                       "row_norm": row_norm,
                       "ws_epilogue": ws_epilogue(epilogue, inputs) if linear else None,
                       "epilogue_lines": rendered.lines, "epilogue_result": rendered.result,
                       "used_inputs": rendered.used_inputs,
                       "epilogue_json": json.dumps(epilogue)}
        source = super().render(cfg, **context)
        if "a" not in context:
            return source
        # companions: another config's module, its names prefixed, after this one's
        parts = [source.rstrip()]
        lines = set(source.splitlines())
        # each skinny tile's companion is named by its route (_route returns it)
        skinny = tuple((("skinny_rows",), f"_{route}_", c) for route, c, _ in SKINNY_TILES)
        for knobs, prefix, base in (*skinny,
                                    (("skinny_rows",), "_decode_", DECODE_DEFAULT),
                                    (("skinny_rows",), "_decode_wide_", DECODE_WIDE),
                                    (("skinny_rows",), "_decode_wider_", DECODE_WIDER),
                                    (("odd_tiled", "single_wave_tiled"), "_tiled_", TILED)):
            knob = next((k for k in knobs if getattr(cfg, k)), None)
            if knob is None:
                continue
            # a companion fuses a row norm as this config says (companions serve the calls)
            companion = super().render(dataclasses.replace(base, skinny_rows=0, odd_tiled=False,
                                                           single_wave_tiled=False,
                                                           fuse_norm=cfg.fuse_norm), **context)
            note = f"# {knob}: the kernels and launcher of the calls it routes ({prefix})"
            append_companion(parts, lines, companion, prefix, note)
        return "\n\n".join(parts) + "\n"


# DEFAULT with every companion and the warp-specialized kernel: the template's second start
_WS_START = dataclasses.replace(DEFAULT, skinny_rows=128, odd_tiled=True, single_wave_tiled=True,
                                ws_pingpong=True)

TEMPLATE = GemmTemplate(
    name="gemm",
    family="gemm",
    jinja_file="gemm.py.jinja",
    config_type=GemmConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_{op}",
    bucket_defaults=(("rows_le_128", SKINNY_DEFAULT),),
    # DEFAULT with its companions before TILED: a composed search's first picks (agent.compose
    # seeds every group's first alternative) get the companions, not TILED at every shape; and
    # the warp-specialized kernel for the Linear calls it serves (GPU rounds 243-245: 1.05-1.09x
    # eager at gelu(linear)'s large shapes, where DEFAULT's fused kernel was level); then its
    # cooperative form (rounds 319-320: 2-5% ahead of eager there, pingpong level)
    seeds=(_WS_START, TILED, dataclasses.replace(_WS_START, ws_coop=True)),
    doc=__doc__ or "",
)
