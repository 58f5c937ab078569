"""Softmax and log-softmax in CUDA C++ (template `softmax_cuda`): the space, constraints, bytes.

Render context: `op` ("softmax" or "log_softmax"), `dim` (normalized int), `dim_is_last` (the
launcher takes any dim, so it only documents the plan), `params` (none: the op has no parameters).

Knobs: `block_threads` threads per block; `vec_bytes` the width of each load and store (4, 8 or 16
bytes: rows whose start breaks that alignment are read from the aligned address below them, lanes
outside the row masked); `cache_vecs` the packs each thread keeps in registers (rows of at most
block_threads * cache_vecs packs are read once; longer rows take an online pass and a second read,
and cache_vecs packs are then loaded per step); rows up to `narrow_row_max` wide get a group of
`narrow_row_threads` threads each (a warp, or a few), block_threads / narrow_row_threads rows per
block, held in registers (0: every row gets the whole block); `min_blocks_per_sm` the
`__launch_bounds__` occupancy hint (it caps registers); `persistent` a grid of sm_count * min_blocks_per_sm blocks walking the rows; `cache_hint` "stream"
marks single-use loads and the stores evict-first (`__ldcs`/`__stcs`).
"""

from __future__ import annotations

from dataclasses import dataclass

from templates.base import Param, Template

REGISTERS_PER_SM = 65536
MAX_REGISTERS_PER_THREAD = 255
REGISTERS_BESIDE_CACHE = 24  # indices, pointers, max and sum; at a 64 cap ptxas spills tens of bytes
MIN_ITEMSIZE = 2  # bfloat16/float16: the most elements a pack of vec_bytes holds


@dataclass(frozen=True)
class SoftmaxCudaConfig:
    block_threads: int
    vec_bytes: int
    cache_vecs: int
    narrow_row_max: int
    narrow_row_threads: int
    min_blocks_per_sm: int
    persistent: bool
    cache_hint: str


SPACE = (
    Param("block_threads", (128, 256, 512, 1024)),
    Param("vec_bytes", (4, 8, 16)),
    Param("cache_vecs", (1, 2, 4, 8, 16)),
    Param("narrow_row_max", (0, 1024, 2048, 4096, 8192)),
    Param("narrow_row_threads", (32, 64, 128, 256)),
    Param("min_blocks_per_sm", (1, 2, 4)),
    Param("persistent", (False, True)),
    Param("cache_hint", ("none", "stream")),
)

DEFAULT = SoftmaxCudaConfig(
    block_threads=256, vec_bytes=16, cache_vecs=4, narrow_row_max=4096, narrow_row_threads=128,
    min_blocks_per_sm=4, persistent=False, cache_hint="stream",
)


def register_cap(cfg: SoftmaxCudaConfig) -> int:
    """Registers per thread that __launch_bounds__(block_threads, min_blocks_per_sm) leaves."""
    return min(MAX_REGISTERS_PER_THREAD,
               REGISTERS_PER_SM // (cfg.block_threads * cfg.min_blocks_per_sm))


def constraints(cfg: SoftmaxCudaConfig) -> list[str]:
    problems = []
    if cfg.block_threads * cfg.min_blocks_per_sm > 2048:
        problems.append(f"{cfg.min_blocks_per_sm} blocks of {cfg.block_threads} threads exceed an "
                        "SM's 2048 threads")
    cap = register_cap(cfg)
    cached = cfg.cache_vecs * cfg.vec_bytes // MIN_ITEMSIZE
    if cached + REGISTERS_BESIDE_CACHE > cap:
        problems.append(f"{cached} cached values per thread do not fit {cap} registers (spills)")
    narrow_cached = cfg.narrow_row_max // cfg.narrow_row_threads + cfg.vec_bytes // MIN_ITEMSIZE
    if cfg.narrow_row_max and narrow_cached + REGISTERS_BESIDE_CACHE > cap:
        problems.append(f"a {cfg.narrow_row_max}-wide row per {cfg.narrow_row_threads} threads "
                        f"holds {narrow_cached} values per thread, over {cap} registers (spills)")
    if cfg.narrow_row_max and cfg.narrow_row_threads > cfg.block_threads:
        problems.append("narrow_row_threads exceeds block_threads")
    if cfg.persistent and cfg.block_threads * cfg.min_blocks_per_sm < 512:
        problems.append("a persistent grid of under 512 threads per SM cannot hide memory latency")
    return problems


def bytes_moved(n_rows: int, n_cols: int, itemsize: int) -> int:
    """Each element read once and written once: the floor any softmax must move."""
    return 2 * n_rows * n_cols * itemsize


TEMPLATE = Template(
    name="softmax_cuda",
    family="softmax_rows",
    jinja_file="softmax_cuda.py.jinja",
    config_type=SoftmaxCudaConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_softmax",
    doc=__doc__ or "",
    needs_gpu=True,
)
