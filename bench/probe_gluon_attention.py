"""Probe: a warp-specialized Hopper flash-attention forward in Gluon (two consumer warp groups).

Why: the attention template's `tl` kernel reaches 0.87-0.93x SDPA and 1.12x compiled FlexAttention
with relative position on an H100 (README, attention results; #4 asks 0.9x and 1.25x). In the
compiled `tl` kernel the two matmuls, the exponentials and the rest of the per-score work run one
after another; Triton 3.6's own warp specialization of the key loop gained nothing. This kernel
lays the work out by hand, as FlashAttention-3 does on Hopper:

- a CTA owns 128 query rows of one (batch, head): two consumer warp groups of 64 rows each, and a
  producer warp that loads q once and streams K and V blocks through a ring of shared-memory
  stages with TMA; both consumers read every K and V block, each stage freed when both are done;
- in each consumer the next block's q.K^T is issued before this block's softmax, and P.V (P from
  registers) runs on the tensor cores while the softmax of the next scores is computed;
- `pingpong`: the two consumers take turns issuing their matmuls (a barrier each way), so one's
  softmax runs while the other's matmuls do.

    python bench/probe_gluon_attention.py --compile-only  # no GPU: builds every variant (sm_90a)
    python bench/probe_gluon_attention.py --smoke         # GPU: small shapes, checked only
    python bench/probe_gluon_attention.py                 # GPU: checks, then times

The timed run checks every kernel first against float64 on one batch element (bench/attention.py's
check: the verifier's tolerance with the tasks' flash-numerics slack), then times SDPA, the
attention template's `DEFAULT` kernel (as `kzoo optimize` renders it), compiled FlexAttention and
this kernel's variants, interleaved with the L2 emptied before each call (verifier.timing.bench,
the default timer, as bench/attention.py), at 8x16x4096x128 bfloat16: non-causal, causal, and
relative position (score + q_idx - kv_idx). Writes bench/results/probe-gluon-attention-h100.json.

Covers what the kernel takes: 16-bit q, k, v contiguous in (B, H, L, D), head dim 64 or 128, L a
multiple of 128 (q) and of the key block (k), grouped-query heads. Relative position adds only
the key's term, -kv_idx (q_idx's is a row constant, which softmax does not see).

No `from __future__ import annotations` here: Gluon's aggregates read their fields' annotations
as types.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon.language.nvidia.hopper import (  # noqa: E402
    fence_async_shared,
    mbarrier,
    tma,
    warpgroup_mma,
    warpgroup_mma_wait,
)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor  # noqa: E402
from triton.language.core import _aggregate as aggregate  # noqa: E402

# Triton 3.6 (the GPU machine's) names the TMA copies async_copy_global_to_shared and
# async_copy_shared_to_global; later releases (3.9 on the CPU machines) async_load and async_store
_tma_load = getattr(tma, "async_load", None) or tma.async_copy_global_to_shared
_tma_store = getattr(tma, "async_store", None) or tma.async_copy_shared_to_global

LOG2E = 1.4426950408889634
ROWS = 64  # query rows of one consumer warp group (wgmma's M per warp group)
BLOCK_M = 2 * ROWS  # query rows of a CTA
SHAPE = (8, 16, 4096, 128)  # (batch, heads, seq, head dim): #4's attention bar


@aggregate
class _Attn:
    q_desc: tma.tensor_descriptor
    k_desc: tma.tensor_descriptor
    v_desc: tma.tensor_descriptor
    o_desc: tma.tensor_descriptor
    q_bufs: gl.shared_memory_descriptor
    k_bufs: gl.shared_memory_descriptor
    v_bufs: gl.shared_memory_descriptor
    q_ready: gl.shared_memory_descriptor
    k_ready: gl.shared_memory_descriptor
    k_empty: gl.shared_memory_descriptor
    v_ready: gl.shared_memory_descriptor
    v_empty: gl.shared_memory_descriptor
    turn: gl.shared_memory_descriptor
    q_row: gl.tensor
    kv_row: gl.tensor
    off_m: gl.tensor
    n_full: gl.tensor
    n_blocks: gl.tensor
    qk_scale: gl.tensor
    CAUSAL: gl.constexpr
    RELPOS: gl.constexpr
    PINGPONG: gl.constexpr

    @gluon.constexpr_function
    def __init__(self, q_desc, k_desc, v_desc, o_desc, q_bufs, k_bufs, v_bufs, q_ready, k_ready,
                 k_empty, v_ready, v_empty, turn, q_row, kv_row, off_m, n_full, n_blocks,
                 qk_scale, CAUSAL, RELPOS, PINGPONG):
        self.q_desc = q_desc
        self.k_desc = k_desc
        self.v_desc = v_desc
        self.o_desc = o_desc
        self.q_bufs = q_bufs
        self.k_bufs = k_bufs
        self.v_bufs = v_bufs
        self.q_ready = q_ready
        self.k_ready = k_ready
        self.k_empty = k_empty
        self.v_ready = v_ready
        self.v_empty = v_empty
        self.turn = turn
        self.q_row = q_row
        self.kv_row = kv_row
        self.off_m = off_m
        self.n_full = n_full
        self.n_blocks = n_blocks
        self.qk_scale = qk_scale
        self.CAUSAL = gl.constexpr(CAUSAL)
        self.RELPOS = gl.constexpr(RELPOS)
        self.PINGPONG = gl.constexpr(PINGPONG)


@gluon.jit
def _loader(p):
    BLOCK_N: gl.constexpr = p.k_desc.block_type.shape[0]
    STAGES: gl.constexpr = p.k_bufs.shape[0]
    q_bytes: gl.constexpr = p.q_desc.block_type.nbytes
    kv_bytes: gl.constexpr = p.k_desc.block_type.nbytes
    for i in gl.static_range(2):
        mbarrier.expect(p.q_ready.index(i), q_bytes)
        _tma_load(p.q_desc, [p.q_row + i * p.q_desc.block_type.shape[0], 0], p.q_ready.index(i),
                  p.q_bufs.index(i))
    for j in range(p.n_blocks):
        s = j % STAGES
        # a fresh barrier passes a wait on parity 1: the first lap finds every stage free
        phase = ((j // STAGES) & 1) ^ 1
        mbarrier.wait(p.k_empty.index(s), phase)
        mbarrier.expect(p.k_ready.index(s), kv_bytes)
        _tma_load(p.k_desc, [p.kv_row + j * BLOCK_N, 0], p.k_ready.index(s), p.k_bufs.index(s))
        mbarrier.wait(p.v_empty.index(s), phase)
        mbarrier.expect(p.v_ready.index(s), kv_bytes)
        _tma_load(p.v_desc, [p.kv_row + j * BLOCK_N, 0], p.v_ready.index(s), p.v_bufs.index(s))


@gluon.jit
def _softmax(p, s, j, m_i, l_i, q_idx, MASK: gl.constexpr):
    """The online softmax of one block's raw scores s (base 2): (p, new max, new sum, alpha)."""
    BLOCK_N: gl.constexpr = s.shape[1]
    if p.RELPOS or MASK:
        kv_idx = j * BLOCK_N + gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s.type.layout))
        t = s * p.qk_scale
        if p.RELPOS:  # score + (q_idx - kv_idx): the row's q_idx cancels in the softmax
            t = t + gl.expand_dims(kv_idx.to(gl.float32) * -1.4426950408889634, 0)
        if MASK:
            t = gl.where(gl.expand_dims(kv_idx, 0) <= gl.expand_dims(q_idx, 1), t, float("-inf"))
        m_new = gl.maximum(m_i, gl.max(t, 1))
        pr = gl.exp2(t - gl.expand_dims(m_new, 1))
    else:  # the scale is positive: max(s) * scale is the scaled row's max, and one FMA a score
        m_new = gl.maximum(m_i, gl.max(s, 1) * p.qk_scale)
        pr = gl.exp2(s * p.qk_scale - gl.expand_dims(m_new, 1))
    alpha = gl.exp2(m_i - m_new)
    l_i = l_i * alpha + gl.sum(pr, 1)
    return pr, m_new, l_i, alpha


@gluon.jit
def _step(p, j, t, q_smem, o, m_i, l_i, p_op, zero_s, q_idx, WHICH: gl.constexpr,
          MASK: gl.constexpr):
    """Key block j: its scores issued, then the previous block's P.V; this block's softmax runs
    while P.V does. Returns the new (o, m, l, P as the next P.V's register operand, turn)."""
    STAGES: gl.constexpr = p.k_bufs.shape[0]
    sk = j % STAGES
    jv = j - 1
    sv = jv % STAGES
    mbarrier.wait(p.k_ready.index(sk), (j // STAGES) & 1)
    mbarrier.wait(p.v_ready.index(sv), (jv // STAGES) & 1)
    if p.PINGPONG:  # issue only on this consumer's turn: the other one's softmax runs meanwhile
        mbarrier.wait(p.turn.index(WHICH), (t & 1) ^ (1 - WHICH))
    s = warpgroup_mma(q_smem, p.k_bufs.index(sk).permute((1, 0)), zero_s, use_acc=False,
                      is_async=True)
    o = warpgroup_mma(p_op, p.v_bufs.index(sv), o, is_async=True)
    if p.PINGPONG:
        mbarrier.arrive(p.turn.index(1 - WHICH))
    s = warpgroup_mma_wait(1, deps=(s, ))  # the scores are in; P.V may still run
    mbarrier.arrive(p.k_empty.index(sk))
    pr, m_i, l_i, alpha = _softmax(p, s, j, m_i, l_i, q_idx, MASK)
    o, p_op = warpgroup_mma_wait(0, deps=(o, p_op))
    mbarrier.arrive(p.v_empty.index(sv))
    o_rows: gl.constexpr = gl.SliceLayout(1, o.type.layout)
    o = o * gl.expand_dims(gl.convert_layout(alpha, o_rows), 1)
    p_op = gl.convert_layout(pr.to(p.q_desc.dtype), p_op.type.layout)
    return o, m_i, l_i, p_op, t + 1


@gluon.jit
def _consumer(p, WHICH: gl.constexpr):
    BLOCK_N: gl.constexpr = p.k_desc.block_type.shape[0]
    HEAD_DIM: gl.constexpr = p.k_desc.block_type.shape[1]
    M: gl.constexpr = p.q_desc.block_type.shape[0]
    STAGES: gl.constexpr = p.k_bufs.shape[0]
    dtype: gl.constexpr = p.q_desc.dtype
    s_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, BLOCK_N, 16])
    o_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, HEAD_DIM, 16])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    rows: gl.constexpr = gl.SliceLayout(1, s_layout)
    q_smem = p.q_bufs.index(WHICH)
    q_idx = p.off_m + WHICH * M + gl.arange(0, M, layout=rows)
    zero_s = gl.zeros((M, BLOCK_N), dtype=gl.float32, layout=s_layout)
    m_i = gl.full((M, ), float("-inf"), gl.float32, layout=rows)
    l_i = gl.zeros((M, ), dtype=gl.float32, layout=rows)
    mbarrier.wait(p.q_ready.index(WHICH), 0)
    # block 0: its scores alone (nothing to multiply by V yet)
    mbarrier.wait(p.k_ready.index(0), 0)
    s = warpgroup_mma(q_smem, p.k_bufs.index(0).permute((1, 0)), zero_s, use_acc=False)
    mbarrier.arrive(p.k_empty.index(0))
    if p.CAUSAL:  # block 0 is on the diagonal only in the first row block
        if p.n_full == 0:
            pr, m_i, l_i, alpha = _softmax(p, s, 0, m_i, l_i, q_idx, True)
        else:
            pr, m_i, l_i, alpha = _softmax(p, s, 0, m_i, l_i, q_idx, False)
    else:
        pr, m_i, l_i, alpha = _softmax(p, s, 0, m_i, l_i, q_idx, False)
    p_op = gl.convert_layout(pr.to(dtype), p_layout)
    o = gl.zeros((M, HEAD_DIM), dtype=gl.float32, layout=o_layout)
    t = 0
    if p.CAUSAL:
        # below the diagonal without a mask, then the diagonal blocks with it
        for j in range(1, p.n_full):
            o, m_i, l_i, p_op, t = _step(p, j, t, q_smem, o, m_i, l_i, p_op, zero_s, q_idx,
                                         WHICH, False)
        for j in range(gl.maximum(p.n_full, 1), p.n_blocks):
            o, m_i, l_i, p_op, t = _step(p, j, t, q_smem, o, m_i, l_i, p_op, zero_s, q_idx,
                                         WHICH, True)
    else:
        for j in range(1, p.n_blocks):
            o, m_i, l_i, p_op, t = _step(p, j, t, q_smem, o, m_i, l_i, p_op, zero_s, q_idx,
                                         WHICH, False)
    # the last block's P.V
    jv = p.n_blocks - 1
    sv = jv % STAGES
    mbarrier.wait(p.v_ready.index(sv), (jv // STAGES) & 1)
    o = warpgroup_mma(p_op, p.v_bufs.index(sv), o)
    mbarrier.arrive(p.v_empty.index(sv))
    o_rows: gl.constexpr = gl.SliceLayout(1, o_layout)
    o = o / gl.expand_dims(gl.convert_layout(l_i, o_rows), 1)
    # q's tile is free (its last q.K^T is done): the output leaves through it
    q_smem.store(o.to(dtype))
    fence_async_shared()
    _tma_store(p.o_desc, [p.q_row + WHICH * M, 0], q_smem)
    tma.store_wait(pendings=0)


@gluon.jit
def _consumer0(p):
    _consumer(p, 0)


@gluon.jit
def _consumer1(p):
    _consumer(p, 1)


@gluon.jit
def attention_ws_kernel(q_desc, k_desc, v_desc, o_desc, n_heads, group, seq_q, seq_k, qk_scale,
                        STAGES: gl.constexpr, CAUSAL: gl.constexpr, RELPOS: gl.constexpr,
                        PINGPONG: gl.constexpr, REVERSE: gl.constexpr,
                        CONSUMER_REGS: gl.constexpr, LOADER_REGS: gl.constexpr):
    M: gl.constexpr = q_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = k_desc.block_type.shape[0]
    dtype: gl.constexpr = q_desc.dtype
    if REVERSE:  # under a causal mask the long rows start first
        start_m = gl.num_programs(0) - 1 - gl.program_id(0)
    else:
        start_m = gl.program_id(0)
    bh = gl.program_id(1)
    b = bh // n_heads
    h = bh % n_heads
    kv_bh = b * (n_heads // group) + h // group
    off_m = start_m * (2 * M)
    if CAUSAL:  # keys past the CTA's last row are masked for every row: never loaded
        n_blocks = (off_m + 2 * M) // BLOCK_N
        n_full = off_m // BLOCK_N
    else:
        n_blocks = seq_k // BLOCK_N
        n_full = n_blocks
    q_bufs = gl.allocate_shared_memory(dtype, [2] + q_desc.block_type.shape, q_desc.layout)
    k_bufs = gl.allocate_shared_memory(dtype, [STAGES] + k_desc.block_type.shape, k_desc.layout)
    v_bufs = gl.allocate_shared_memory(dtype, [STAGES] + v_desc.block_type.shape, v_desc.layout)
    q_ready = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    k_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    turn = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(k_empty.index(i), count=2)  # both consumers release a stage
        mbarrier.init(v_empty.index(i), count=2)
    for i in gl.static_range(2):
        mbarrier.init(q_ready.index(i), count=1)
        mbarrier.init(turn.index(i), count=1)
    fence_async_shared()
    p = _Attn(q_desc, k_desc, v_desc, o_desc, q_bufs, k_bufs, v_bufs, q_ready, k_ready, k_empty,
              v_ready, v_empty, turn, bh * seq_q + off_m, kv_bh * seq_k, off_m, n_full, n_blocks,
              gl.to_tensor(qk_scale), CAUSAL, RELPOS, PINGPONG)
    gl.warp_specialize([(_consumer0, (p, )), (_consumer1, (p, )), (_loader, (p, ))],
                       [4, 1], [CONSUMER_REGS, LOADER_REGS])


def refused(q, k, v, block_n: int = 128) -> str:
    """Why this kernel cannot take the call ("" when it can)."""
    if q.dtype not in (torch.bfloat16, torch.float16) or not q.dtype == k.dtype == v.dtype:
        return "16-bit q, k and v only"
    if q.dim() != 4 or k.shape != v.shape or k.shape[0] != q.shape[0] or \
            k.shape[3] != q.shape[3]:
        return "shapes"
    if q.shape[3] not in (64, 128):
        return "head dim 64 or 128 only"
    if q.shape[1] % k.shape[1]:
        return "query heads not a multiple of kv heads"
    if q.shape[2] % BLOCK_M or k.shape[2] % block_n:
        return f"seq_q a multiple of {BLOCK_M} and seq_k of {block_n} only"
    if not (q.is_contiguous() and k.is_contiguous() and v.is_contiguous()):
        return "contiguous q, k, v only"
    return ""


def launch(q, k, v, causal=False, scale=None, *, relpos=False, block_n=128, stages=2,
           pingpong=False, reverse=None, consumer_regs=240, loader_regs=24, maxnreg=168,
           warmup=False):
    """Attention of (B, H, Lq, D) q over (B, Hkv, Lk, D) k, v; returns (kernel, out). `relpos`:
    score + (q_idx - kv_idx). `warmup` compiles without launching (`--compile-only`)."""
    why = refused(q, k, v, block_n)
    if why:
        raise ValueError(f"probe_gluon_attention: {why}")
    batch, heads, seq_q, dim = q.shape
    seq_k = k.shape[2]
    if causal and seq_q != seq_k:
        raise ValueError("probe_gluon_attention: causal needs seq_q == seq_k")
    if scale is None:
        scale = dim ** -0.5
    out = torch.empty_like(q)
    gdt = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}[q.dtype]

    def desc(t, rows):
        flat = t.view(-1, dim)
        layout = gl.NVMMASharedLayout.get_default_for([rows, dim], gdt)
        return TensorDescriptor.from_tensor(flat, [rows, dim], layout)

    if reverse is None:
        reverse = causal
    args = (desc(q, ROWS), desc(k, block_n), desc(v, block_n), desc(out, ROWS), heads,
            heads // k.shape[1], seq_q, seq_k, scale * LOG2E, stages, causal, relpos, pingpong,
            reverse, consumer_regs, loader_regs)
    if warmup:
        return attention_ws_kernel.warmup(*args, num_warps=4, maxnreg=maxnreg, grid=(1, )), out
    grid = (seq_q // BLOCK_M, batch * heads)
    return attention_ws_kernel[grid](*args, num_warps=4, maxnreg=maxnreg), out


VARIANTS = (
    dict(),
    dict(pingpong=True),
    dict(stages=3),
    dict(pingpong=True, stages=3),
)


# ---------------------------------------------------------------- compile without a GPU


def compile_only(variants) -> None:
    import re

    import triton

    from bench.probe_gluon_gemm import _CompileOnlyDriver
    triton.runtime.driver.set_active(_CompileOnlyDriver())
    for dim in (128, 64):
        q = torch.empty((1, 2, 256, dim), dtype=torch.bfloat16)
        for kw in variants:
            for extra in (dict(), dict(causal=True), dict(relpos=True)):
                kernel, _ = launch(q, q, q, warmup=True, **kw, **extra)
                ptx = kernel.asm["ptx"]
                regs = sorted(set(re.findall(
                    r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32\s+(\d+)", ptx)))
                print(f"d{dim}", kw, extra, "compiled; setmaxnreg:", regs,
                      "shared:", kernel.metadata.shared, "wgmma:", ptx.count("wgmma.mma_async"),
                      "spills:", getattr(kernel, "n_spills", "?"), flush=True)


# ---------------------------------------------------------------- the GPU


def _reference(q, k, v, causal, relpos):
    from bench.attention import explicit
    return explicit(q.double(), k.double(), v.double(),
                    "relative_position" if relpos else None, causal)


def smoke() -> bool:
    """Small shapes, every variant against float64: a hang or a wrong tile shows here first."""
    ok = True
    for (b, h, hkv, seq, dim) in ((1, 2, 2, 128, 128), (2, 4, 2, 384, 128), (1, 3, 1, 512, 64)):
        torch.manual_seed(0)
        q = torch.randn(b, h, seq, dim, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, hkv, seq, dim, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, hkv, seq, dim, device="cuda", dtype=torch.bfloat16)
        kk = k.repeat_interleave(h // hkv, 1)
        vv = v.repeat_interleave(h // hkv, 1)
        for causal, relpos in ((False, False), (True, False), (False, True)):
            ref = _reference(q, kk, vv, causal, relpos)
            mod = "relative_position" if relpos else None
            from bench.attention import explicit
            base = explicit(q, kk, vv, mod, causal).double()
            eager = ((base - ref).norm() / ref.norm()).item()
            for kw in VARIANTS:
                kernel, out = launch(q, k, v, causal, relpos=relpos, **kw)
                torch.cuda.synchronize()
                err = ((out.double() - ref).norm() / ref.norm()).item()
                good = err <= 2.0 * max(eager, 2e-3)
                ok &= good
                print(f"smoke b{b} h{h}/{hkv} L{seq} d{dim} causal={causal} relpos={relpos} {kw}:"
                      f" rel_err {err:.3g} (eager bf16 {eager:.3g}) {'ok' if good else 'WRONG'};"
                      f" registers {kernel.n_regs}, spills {kernel.n_spills}",
                      flush=True)
    return ok


def gpu_run(out_dir: Path, shape=SHAPE) -> dict:
    from bench.attention import check, flex_baseline, inputs, render_launcher
    from templates.attention import DEFAULT, flops
    from verifier.environment import environment
    from verifier.timing import L2Flusher, bench

    import torch.nn.functional as F
    flusher = L2Flusher(torch.device("cuda"))
    cache = Path("/tmp/probe-gluon-attention-cache")
    rows = []
    for case, mod, causal in (("sdpa", None, False), ("sdpa_causal", None, True),
                              ("relative_position", "relative_position", False)):
        q, k, v = inputs(shape, torch.bfloat16, "cuda", mod)
        relpos = mod == "relative_position"
        row = {"case": case, "shape": list(shape), "dtype": "bfloat16", "causal": causal,
               "score_mod": mod, "variants": {f"ws_{i}": kw for i, kw in enumerate(VARIANTS)},
               "checks": {}, "failed": {}}
        tl_launch = render_launcher(DEFAULT, mod, causal, cache)
        fns = {}
        row["checks"]["template_default"] = check(tl_launch, q, k, v, mod, causal, "bfloat16")
        if row["checks"]["template_default"]["ok"]:
            fns["template_default"] = lambda: tl_launch(q, k, v, causal)
        for i, kw in enumerate(VARIANTS):
            name = f"ws_{i}"
            fn = (lambda kw: lambda q_, k_, v_, c_: launch(q_, k_, v_, c_, relpos=relpos,
                                                           **kw)[1])(kw)
            try:
                row["checks"][name] = check(fn, q, k, v, mod, causal, "bfloat16")
            except Exception as exc:  # a variant that fails to compile or launch is recorded
                row["failed"][name] = f"{type(exc).__name__}: {exc}"[:3000]
                torch.cuda.synchronize()
                continue
            if row["checks"][name]["ok"]:
                fns[name] = (lambda f: lambda: f(q, k, v, causal))(fn)
            else:
                row["failed"][name] = f"wrong: {row['checks'][name]}"
        if mod is None:
            fns["sdpa"] = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        flex = flex_baseline(q, k, v, mod, causal)
        if flex is not None:
            fns["flex_compiled"] = flex
        with torch.no_grad():
            times = bench(fns, flusher=flusher, budget_ms=400.0 * len(fns))
        work = flops(shape[0], shape[1], shape[2], shape[2], shape[3], causal)
        row["ms"] = {n: t.median_ms for n, t in times.items()}
        row["spread_ms"] = {n: t.p80_ms - t.p20_ms for n, t in times.items()}
        row["tflops"] = {n: work / (t.median_ms * 1e-3) / 1e12 for n, t in times.items()}
        base = "sdpa" if mod is None else "flex_compiled"
        if base in times:
            row["baseline"] = base
            row["speedup_vs_baseline"] = {n: times[base].median_ms / t.median_ms
                                          for n, t in times.items()}
        rows.append(row)
        print(json.dumps({k_: row[k_] for k_ in ("case", "tflops", "speedup_vs_baseline",
                                                  "failed") if k_ in row}), flush=True)
        del q, k, v
        torch.cuda.empty_cache()
    result = {"what": __doc__.splitlines()[0], "environment": environment(),
              "method": "verifier.timing.bench (the default timer: CUDA events, L2 discard "
                        "flush before each call, interleaved rounds, medians), as "
                        "bench/attention.py; each kernel checked first against float64 on batch "
                        "element 0 (bench/attention.py's check)", "rows": rows}
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "probe-gluon-attention-h100.json"
    path.write_text(json.dumps(result, indent=1))
    print("wrote", path)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile-only", action="store_true",
                        help="compile every variant for sm_90a without a GPU")
    parser.add_argument("--smoke", action="store_true",
                        help="small shapes, correctness only (a GPU is needed)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"),
                        help="folder for probe-gluon-attention-h100.json")
    args = parser.parse_args(argv)
    if args.compile_only:
        if os.environ.get("TRITON_INTERPRET") == "1":
            print("probe_gluon_attention: --compile-only compiles for sm_90a; Triton's "
                  "interpreter cannot run Gluon: unset TRITON_INTERPRET", file=sys.stderr)
            return 2
        compile_only(VARIANTS)
        return 0
    if not torch.cuda.is_available():
        print("probe_gluon_attention: no CUDA device; use --compile-only here", file=sys.stderr)
        return 2
    if args.smoke:
        return 0 if smoke() else 1
    start = time.time()
    gpu_run(Path(args.out))
    print(f"{time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
