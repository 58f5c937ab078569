"""Cross-entropy forward (mean over non-ignored rows): the space, constraints and byte count.

Render context: `op` ("cross_entropy"), `ignore_index` (the Model's value; ModelNew passes it to the
launcher) and `params` (none). The launcher is `launch_cross_entropy(logits, target,
ignore_index=-100)`: (N, C) logits of float32, float16 or bfloat16, int64 (or int32) targets; a 0-d
result of the logits' dtype, F.cross_entropy's reduction="mean" (all rows ignored: NaN).

Each row's log-sum-exp is computed online in ONE read of the row: every lane keeps a running max m
and a sum s of exp(x - m), and one exp per element suffices, exp(-|x - m|), which is either the new
term (x <= m) or the factor that rescales the old sum (x > m). With `vector_max` (the default) a
lane is instead one thread's 16-byte vector: its max over the vector first, then one exp2
(flushing results below 2^-126 to 0) and one add per element against it, and one rescale per
vector, about 5 instructions an element where the exp(-|x - m|) step takes 12 or more. Full
`block`-wide tiles load unmasked with `warps` warps, `num_stages` deep; one masked tile ends the
row; `align_rows` reads rows whose stride breaks 16-byte alignment (a vocabulary of 50257, say)
from the next `row_align`-byte line (16 or 128 bytes), the few elements around the aligned body
apart. Ignored rows are never read.
When there are fewer rows than `split_per_sm` programs per SM (64 rows of a 128256 vocabulary,
say) the vocabulary is split across programs that write a partial (max, sum) each. A second,
single-program kernel combines the parts, gathers the target logits, and takes the mean over
`final_block`-row steps with `final_warps` warps: deterministic, no atomics. `flat_per_sm` (0: off)
instead gives each of that many programs an SM an equal span of contiguous logits, read as one
stream of full tiles across row ends (rows at least one tile wide, a span at least a row long, so
a row lies in at most two spans): a row that ends inside a tile is finished there, and the mean
kernel combines each row split between two spans from their partials. Where those conditions fail
the row kernel runs. Targets outside [0, C) other than ignore_index are undefined
(PyTorch raises); the kernels never read outside the logits.
"""

from __future__ import annotations

from dataclasses import dataclass

from templates.base import Param, Template

MAX_VALUES_PER_THREAD = 32  # fp32 values per thread in each of the running max, sum and load
SHARED_MEMORY_BUDGET = 96 * 1024  # bytes of pipelined stages; leaves room for two programs per SM


@dataclass(frozen=True)
class CrossEntropyConfig:
    block: int
    warps: int
    num_stages: int
    split_per_sm: int
    align_rows: bool
    evict_first: bool
    final_block: int
    final_warps: int
    flat_per_sm: int
    row_align: int
    pdl: bool
    vector_max: bool


SPACE = (
    Param("block", (1024, 2048, 4096, 8192, 16384)),
    Param("warps", (2, 4, 8, 16)),
    Param("num_stages", (1, 2, 3, 4)),
    Param("split_per_sm", (0, 1, 2, 4, 8)),
    Param("align_rows", (False, True)),
    Param("evict_first", (False, True)),
    Param("final_block", (256, 1024, 4096)),
    Param("final_warps", (1, 4, 8)),
    Param("flat_per_sm", (0, 1, 2, 3, 4, 6, 8), legacy=0),
    Param("row_align", (16, 128), legacy=16),
    Param("pdl", (False, True), legacy=False),
    Param("vector_max", (False, True), legacy=False),
)

# vector_max on since GPU round 155, where it took both row buckets' served configs from 143.4 to
# 136.4 us at 4099x50257 and from 31.2/15.7 to 27.9/13.3 us at 1024x32000 and 64x128256
# (bench/results/runs/tune-buckets-h100-round155-cross-entropy.json)
DEFAULT = CrossEntropyConfig(
    block=4096, warps=8, num_stages=2, split_per_sm=2, align_rows=True, evict_first=True,
    final_block=1024, final_warps=4, flat_per_sm=0, row_align=16,
    pdl=False, vector_max=True,
)


def constraints(cfg: CrossEntropyConfig) -> list[str]:
    problems = []
    per_thread = cfg.block // (32 * cfg.warps)
    if per_thread < 1:
        problems.append("block is smaller than one element per thread of its warps")
    if per_thread > MAX_VALUES_PER_THREAD:
        problems.append(f"a {cfg.block}-wide tile holds {per_thread} values per thread in each of "
                        "the running max, the running sum and the load (spills)")
    if cfg.num_stages * cfg.block * 4 > SHARED_MEMORY_BUDGET:
        problems.append(f"{cfg.num_stages} stages of a {cfg.block}-wide tile exceed "
                        f"{SHARED_MEMORY_BUDGET // 1024} KiB of shared memory")
    if cfg.vector_max and cfg.block < 32 * cfg.warps * 8:
        problems.append("vector_max needs a 16-byte vector (8 16-bit elements) for every thread "
                        f"of the tile: block >= {32 * cfg.warps * 8} at {cfg.warps} warps")
    final_per_thread = cfg.final_block // (32 * cfg.final_warps)
    if final_per_thread > MAX_VALUES_PER_THREAD:
        problems.append(f"the final kernel's {cfg.final_block}-row step holds {final_per_thread} "
                        "values per thread (spills)")
    if final_per_thread < 1:
        problems.append("the final kernel's step is smaller than one row per thread")
    return problems


def bytes_moved(n_rows: int, n_cols: int, n_ignored: int, itemsize: int,
                target_itemsize: int = 8) -> int:
    """Logits of the rows that count read once, every target read once, one scalar written.
    Ignored rows' logits are never needed, so they are not in the floor."""
    return (n_rows - n_ignored) * n_cols * itemsize + n_rows * target_itemsize + itemsize


TEMPLATE = Template(
    name="cross_entropy",
    family="cross_entropy",
    jinja_file="cross_entropy.py.jinja",
    config_type=CrossEntropyConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_cross_entropy",
    doc=__doc__ or "",
)
