"""Flash-attention forward: the space, its constraints and its cost model.

Render context (from the planner, agent.plan_attention):
- `op`: the zoo op; the launcher is `launch_<op>(q, k, v, is_causal=False, scale=None)`
- `is_causal`, `scale` (None: 1/sqrt(head dim), read from q at call time): what ModelNew passes
- `score_mod`: None | "relative_position" | "alibi" | "softcap" | "sliding_window", applied to the
  scaled score s = (q . k) * scale, as FlexAttention applies its score_mod:
    relative_position  s + (q_idx - kv_idx)
    alibi              s + slope_h * (kv_idx - q_idx), slope_h = 2 ** (-8 * (h + 1) / H) over the
                       H query heads (the ALiBi paper's slopes for H a power of two)
    softcap            cap * tanh(s / cap), cap = `softcap`
    sliding_window     s where q_idx - window < kv_idx <= q_idx, else masked (implies causal)
- `softcap`, `window`: the modifier's constant (None when unused); `params`: [] (no weights)

Inputs are (B, H, L, D) as F.scaled_dot_product_attention takes them, any strides; k and v may
have fewer heads (grouped-query attention: q head h reads kv head h // (Hq // Hkv)). The head dim
is a power of two in 16..256. Causal masking is top-left aligned (kv_idx <= q_idx), as SDPA's.

The knobs are scale-free, so one config serves every shape of a task. `block_m` query rows per
program, `block_n` keys per step of the online softmax, `num_warps`, `num_stages` (software
pipelining of the K/V loads). `causal_split` walks the keys strictly below the diagonal block
without a mask and masks only the diagonal blocks; off, every causal step is masked. (Scaling q
once in its own dtype was tried and left out: rounding q * scale to bfloat16 failed the verifier
where scores are large.)
`split_tail` peels a last partial key block so the other steps carry no bounds mask.
`reverse_m` launches the query blocks last-first: under a causal mask the long rows start first,
so the short ones fill the tail of the grid. `tma` loads q, k and v and stores o through Hopper
tensor descriptors (TMA), where the installed Triton, the device (sm_90+) and the strides allow
(head dim contiguous, 16-byte aligned), the inputs are 16-bit and the work is large enough to hide
the descriptors' host time; elsewhere, and in Triton's interpreter, the pointer loads. (Triton 3.6's warp
specialization of the key loop, tried on an H100 over descriptor loads, gained nothing at 128 x 128
tiles, failed to compile one 64 x 64 causal kernel and returned NaNs from another: left out,
bench/results/runs/attention-configs-h100-round2.log.)
Computing one softmax exponential in n (n = 2, 4, 8) by a degree-5 polynomial on the FMA pipe
instead of the MUFU unit's ex2 (inline PTX), to shorten a step whose exponentials take half as
long as its matmuls, was tried on an H100 and left out: slower or level in every case (n = 2 cost
12-15%; bench/results/runs/attention-variants-h100-poly-exp2.json). The unmasked step issues about
six instructions per score besides the two matmuls, so moving work off the MUFU unit only moves
the bottleneck to instruction issue. Adding only relative position's -kv_idx term (q_idx's part is
a row constant, which softmax does not see) was correct and no faster on an H100 (0.89x of the
same run's SDPA kernel against 0.93x; runs/attention-h100-round22-relpos-row-constant.json).
Computing the next key block's scores before this block's softmax (the loop carrying them), so
that matmul could run while the softmax does, was correct in the interpreter and gained nothing
on an H100 (Triton 3.6): at 128 x 64 tiles level or slower (SDPA case 466 against 467 TFLOP/s,
causal 360 against 383); at 128 x 128 it needs two stages to fit shared memory (262 KB at three),
and there it ran 460 against the same tiles' 468 without it and the default's 514
(runs/attention-variants-h100-round62-qk-ahead.json, -round63-qk-ahead.json).
`ws` (score modifier none, relative_position or alibi): on an sm_90 GPU, calls with 16-bit,
contiguous q, k and v, a head dim of 64 or 128 and at least WS_MIN_FLOPS of work run a
warp-specialized kernel written in Gluon (templates/_attention_ws.jinja; `ws_plan` in the rendered
module says which calls): two consumer warp groups of 64 query rows share a TMA producer warp's
K and V stages, and each issues the next block's q.K^T before this block's softmax, so the
softmax overlaps the tensor cores' P.V. `ws_pingpong`: the two consumers take turns issuing their
matmuls. Elsewhere (other calls, modifiers, devices, Triton's interpreter) the config's `tl`
kernel. On an H100 at 8x16x4096x128 bf16 (GPU rounds 255-262: round 255's probe, then
bench/attention.py): 1.02-1.11x SDPA, 1.02-1.10x causal, 1.28-1.39x compiled FlexAttention with
relative position, where the `tl` kernel read 0.90-0.94x, 0.90-0.99x and 1.09-1.10x in the same
runs. Those runs timed each callable's calls in blocks, the kernel's first; on an H200 with the
calls interleaved (GPU round 350, bench/results/attention-h200.json) the kernel read 0.99x SDPA,
causal too, and 1.33x FlexAttention with relative position, where blocks had read 1.06x, 1.11x
and 1.33x (round 337).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from templates.base import Param, Template

SMEM_BYTES = 227 * 1024  # an H100's shared memory per block (opt-in maximum)
SMEM_SLACK = 8 * 1024  # what Triton adds for layout conversions and barriers
MAX_ACC_REGS = 160  # fp32 values per thread in acc + the score tile before the compiler spills
TUNED_HEAD_DIM = 128  # constraints are checked here (16-bit); the launcher shrinks past it
SCORE_MODS = (None, "relative_position", "alibi", "softcap", "sliding_window")


@dataclass(frozen=True)
class AttentionConfig:
    block_m: int
    block_n: int
    num_warps: int
    num_stages: int
    causal_split: bool
    split_tail: bool
    reverse_m: bool
    tma: bool = False
    ws: bool = False
    ws_pingpong: bool = False


SPACE = (
    Param("block_m", (32, 64, 128, 256)),
    Param("block_n", (16, 32, 64, 128)),
    Param("num_warps", (4, 8)),
    Param("num_stages", (1, 2, 3, 4, 5)),
    Param("causal_split", (True, False)),
    Param("split_tail", (True, False)),
    Param("reverse_m", (True, False)),
    Param("tma", (False, True), legacy=False),  # entries before it loaded through pointers
    Param("ws", (False, True), legacy=False),  # entries before it ran the tl kernel everywhere
    Param("ws_pingpong", (False, True), legacy=False),
)

# The Triton fused-attention tutorial's Hopper choice for head dim 128 (128 x 128 tiles, 8 warps,
# 3 stages), loading through descriptors: 4-6% faster than pointer loads on an H100
# (bench/results/runs/attention-configs-h100-round1.json); and the warp-specialized kernel where
# it serves the call (GPU rounds 255-262, above), consumers taking turns (relative position
# 1.28-1.31x FlexAttention with the turns, 1.26-1.27x without, timed side by side; SDPA's cases
# level or within 1%).
DEFAULT = AttentionConfig(
    block_m=128, block_n=128, num_warps=8, num_stages=3, causal_split=True, split_tail=True,
    reverse_m=True, tma=True, ws=True, ws_pingpong=True,
)


def smem_bytes(cfg: AttentionConfig, head_dim: int = TUNED_HEAD_DIM, itemsize: int = 2) -> int:
    """Shared memory of one program: the q tile, and (num_stages - 1) K and V tiles in flight."""
    q_tile = cfg.block_m * head_dim * itemsize
    kv_tiles = max(cfg.num_stages - 1, 1) * 2 * cfg.block_n * head_dim * itemsize
    return q_tile + kv_tiles + SMEM_SLACK


def constraints(cfg: AttentionConfig) -> list[str]:
    problems = []
    if cfg.block_n > cfg.block_m:
        problems.append("block_n exceeds block_m: the diagonal walk needs block_m % block_n == 0")
    if smem_bytes(cfg) > SMEM_BYTES:
        problems.append(f"{smem_bytes(cfg) // 1024} KB of shared memory at head dim "
                        f"{TUNED_HEAD_DIM} (the H100 has {SMEM_BYTES // 1024} KB)")
    threads = 32 * cfg.num_warps
    per_thread = (cfg.block_m * TUNED_HEAD_DIM + cfg.block_m * cfg.block_n) // threads
    if per_thread > MAX_ACC_REGS:
        problems.append(f"acc and score tiles hold {per_thread} fp32 values per thread (spills)")
    if cfg.block_m // 16 < cfg.num_warps // 4:
        problems.append("block_m is too small to give every warp group rows of its own")
    return problems


def launch_blocks(cfg: AttentionConfig, head_dim: int, itemsize: int = 2) -> tuple[int, int]:
    """(block_m, block_n) the launcher uses: the config's, halved until they fit the shared memory
    and register budgets checked at TUNED_HEAD_DIM 16-bit elements (the launcher's `_blocks`)."""
    block_m, block_n = cfg.block_m, cfg.block_n
    scale = max(head_dim * itemsize // (TUNED_HEAD_DIM * 2), 1)
    while scale > 1:
        if block_n > 16:
            block_n //= 2
        elif block_m > 32:
            block_m //= 2
        scale //= 2
    return block_m, block_n


def bytes_moved(batch: int, heads_q: int, heads_kv: int, seq_q: int, seq_k: int, head_dim: int,
                itemsize: int) -> int:
    """q read and o written once, k and v read once per kv head: the floor any attention moves."""
    return itemsize * head_dim * (2 * batch * heads_q * seq_q + 2 * batch * heads_kv * seq_k)


def flops(batch: int, heads_q: int, seq_q: int, seq_k: int, head_dim: int,
          causal: bool = False) -> int:
    """Two matmuls of 2 * Lq * Lk * D each per head; a causal mask halves the useful work."""
    total = 4 * batch * heads_q * seq_q * seq_k * head_dim
    return total // 2 if causal else total


def alibi_slopes(n_heads: int) -> list[float]:
    """The slopes the kernel uses: 2 ** (-8 * (h + 1) / H) for head h of H."""
    return [math.pow(2.0, -8.0 * (h + 1) / n_heads) for h in range(n_heads)]


TEMPLATE = Template(
    name="attention",
    family="attention",
    jinja_file="attention.py.jinja",
    config_type=AttentionConfig,
    space=SPACE,
    default=DEFAULT,
    constraints=constraints,
    bytes_moved=bytes_moved,
    launcher="launch_{op}",
    doc=__doc__ or "",
)
