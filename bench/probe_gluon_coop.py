"""Probe: a cooperative warp-specialized Hopper GEMM in Gluon, and where its activation can hide.

Why: `gelu(linear(x, W, b))` at the composed table's large shapes is level with eager (the
`ws_pingpong` kernel: 1.008x and 0.989x in GPU round 301), and issue #4 asks 1.10x. Rounds
241-253 found the pingpong kernel's main loop 5-10% behind cuBLAS: each consumer warp group runs
its own 128x128 tile, which reads more operand bytes per FLOP than cuBLAS's wider tiles, while the
`tl` kernel's 128x256 tiles (two warp groups on one tile) ran level with cuBLAS's bare GEMM but
paid 70-170 us for an epilogue the tensor cores wait on (bench/RESULTS.md, GEMM).

This kernel takes the wide tile and looks for a place to hide the activation:
- a producer warp streams 128x64 x-tiles and 256x64 W-tiles through a ring of three
  shared-memory stages with TMA;
- the default partition, two consumer warp groups (8 warps), runs each 128x256 output tile's
  wgmmas, adds the bias to the fp32 accumulator and writes x W^T + b, rounded once to the output
  dtype, to a shared-memory tile (as eager PyTorch's GEMM writes it before `F.gelu`);
- the GELU then runs (`gelu=`): "epilogue", in a 2-warp epilogue partition that also stores the
  tile with TMA while the consumers' next main loop runs (rounds 313-316: too few warps for the
  GELU fit's math, 1.7-1.9 ms); "consumers", by the consumers before the rounding (round 314:
  nothing overlapped, 0.91-0.93 ms); "interleaved", by the consumers in slices between the
  next tile's wgmmas while one is in flight, each 128x64 column block stored with TMA when done
  (rounds 317-319: 0.826 ms in 32x64 slices against eager's 0.842 and the bare GEMM's 0.752).
  "copy" and "silu" are diagnostics of the epilogue partition (round 316), timed, not checked.
The gemm template renders the interleaved form as its `ws_coop` knob (GPU round 320).

The verifier judges every result against float64 with the task's tolerance, like every
candidate.

    python bench/probe_gluon_coop.py --compile-only   # no GPU: builds every variant for sm_90a
    python bench/probe_gluon_coop.py --smoke          # GPU: small and odd shapes, checked only
    python bench/probe_gluon_coop.py                  # GPU: checks, then times

The timed run checks every kernel first (bench/gemm.py's Setup.check: the verifier's tolerance
against float64), then times, interleaved and with the L2 emptied before each call, eager, cuBLAS's
`F.linear` alone, the gemm template's `ws_pingpong` path and this kernel's variants, both as
CUDA-graph replays and by the verifier's host_ahead timer, at the two large shapes. It writes
bench/results/probe-gluon-coop-h100.json.

No `from __future__ import annotations` here: Gluon's aggregates read their fields' annotations
as types.
"""

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import triton  # noqa: E402
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

from bench.probe_gluon_gemm import (  # noqa: E402
    SHAPES,
    _CompileOnlyDriver,
    _gelu_erf,
    _rel_err,
    _tma_load,
    _tma_store,
)



# a barrier among the partition's warps: Triton 3.6 names it thread_barrier, 3.9 barrier
_barrier = gl.barrier if hasattr(gl, "barrier") else gl.thread_barrier


@aggregate
class _Args:
    a_desc: tma.tensor_descriptor
    w_desc: tma.tensor_descriptor
    c_desc: tma.tensor_descriptor
    bias_ptr: gl.tensor
    a_bufs: gl.shared_memory_descriptor
    w_bufs: gl.shared_memory_descriptor
    c_smem: gl.shared_memory_descriptor
    ready: gl.shared_memory_descriptor
    empty: gl.shared_memory_descriptor
    epi_full: gl.shared_memory_descriptor
    epi_free: gl.shared_memory_descriptor
    M: gl.tensor
    N: gl.tensor
    K: gl.tensor
    GROUP_M: gl.constexpr
    GELU: gl.constexpr
    EPI_ROWS: gl.constexpr
    EPI_COLS: gl.constexpr

    @gluon.constexpr_function
    def __init__(self, a_desc, w_desc, c_desc, bias_ptr, a_bufs, w_bufs, c_smem, ready, empty,
                 epi_full, epi_free, M, N, K, GROUP_M, GELU, EPI_ROWS, EPI_COLS):
        self.a_desc = a_desc
        self.w_desc = w_desc
        self.c_desc = c_desc
        self.bias_ptr = bias_ptr
        self.a_bufs = a_bufs
        self.w_bufs = w_bufs
        self.c_smem = c_smem
        self.ready = ready
        self.empty = empty
        self.epi_full = epi_full
        self.epi_free = epi_free
        self.M = M
        self.N = N
        self.K = K
        self.GROUP_M = gl.constexpr(GROUP_M)
        self.GELU = gl.constexpr(GELU)
        self.EPI_ROWS = gl.constexpr(EPI_ROWS)
        self.EPI_COLS = gl.constexpr(EPI_COLS)


@gluon.jit
def _tile_of(p, t, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr):
    # grouped order: GROUP_M row blocks share a column block's W tile in L2
    num_pid_m = gl.cdiv(p.M, BLOCK_M)
    in_group = p.GROUP_M * gl.cdiv(p.N, BLOCK_N)
    first_m = (t // in_group) * p.GROUP_M
    size_m = gl.minimum(num_pid_m - first_m, p.GROUP_M)
    return (first_m + (t % in_group) % size_m) * BLOCK_M, ((t % in_group) // size_m) * BLOCK_N


@gluon.jit
def _loader(p):
    BLOCK_M: gl.constexpr = p.a_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = p.w_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = p.a_desc.block_type.shape[1]
    STAGES: gl.constexpr = p.a_bufs.shape[0]
    nbytes: gl.constexpr = p.a_desc.block_type.nbytes + p.w_desc.block_type.nbytes
    total = gl.cdiv(p.M, BLOCK_M) * gl.cdiv(p.N, BLOCK_N)
    count = 0
    for t in range(gl.program_id(0), total, gl.num_programs(0)):
        off_m, off_n = _tile_of(p, t, BLOCK_M, BLOCK_N)
        for k in range(0, p.K, BLOCK_K):
            s = count % STAGES
            # a fresh barrier passes a wait on parity 1: the first lap finds every stage free
            mbarrier.wait(p.empty.index(s), ((count // STAGES) & 1) ^ 1)
            mbarrier.expect(p.ready.index(s), nbytes)
            _tma_load(p.a_desc, [off_m, k], p.ready.index(s), p.a_bufs.index(s))
            _tma_load(p.w_desc, [off_n, k], p.ready.index(s), p.w_bufs.index(s))
            count += 1


@gluon.jit
def _consumers(p):
    """The default partition: 8 warps, two warp groups of 64 rows each on one 128x256 tile."""
    BLOCK_M: gl.constexpr = p.a_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = p.w_desc.block_type.shape[0]
    BLOCK_K: gl.constexpr = p.a_desc.block_type.shape[1]
    STAGES: gl.constexpr = p.a_bufs.shape[0]
    dtype: gl.constexpr = p.c_desc.dtype
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[8, 1], instr_shape=[16, BLOCK_N, 16])
    bias_layout: gl.constexpr = gl.SliceLayout(0, mma_layout)
    total = gl.cdiv(p.M, BLOCK_M) * gl.cdiv(p.N, BLOCK_N)
    k_tiles = gl.cdiv(p.K, BLOCK_K)
    count = 0
    j = 0
    for t in range(gl.program_id(0), total, gl.num_programs(0)):
        off_m, off_n = _tile_of(p, t, BLOCK_M, BLOCK_N)
        acc = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float32, layout=mma_layout)
        prev = 0
        for kk in range(k_tiles):
            s = count % STAGES
            mbarrier.wait(p.ready.index(s), (count // STAGES) & 1)
            acc = warpgroup_mma(p.a_bufs.index(s), p.w_bufs.index(s).permute((1, 0)), acc,
                                is_async=True)
            # keep one wgmma in flight: the one before it is done, so its stage is free
            acc = warpgroup_mma_wait(1, deps=(acc, ))
            mbarrier.arrive(p.empty.index(prev), pred=kk > 0)
            prev = s
            count += 1
        acc = warpgroup_mma_wait(0, deps=(acc, ))
        mbarrier.arrive(p.empty.index(prev))
        offs_n = off_n + gl.arange(0, BLOCK_N, layout=bias_layout)
        bias = gl.load(p.bias_ptr + offs_n, mask=offs_n < p.N, other=0.0).to(gl.float32)
        y = acc + gl.expand_dims(bias, 0)
        if p.GELU == 2:  # the consumers apply it themselves, in fp32, before the one rounding
            y = _gelu_erf(y)
        y = y.to(dtype)
        # the epilogue partition has stored the tile before (a fresh barrier passes parity 1)
        mbarrier.wait(p.epi_free, (j & 1) ^ 1)
        p.c_smem.store(y)
        fence_async_shared()
        mbarrier.arrive(p.epi_full)
        j += 1


@gluon.jit
def _k_steps(p, acc, count, lo, hi):
    """Tile-local K steps [lo, hi): each waits for its stage, issues its wgmma and, with one
    wgmma left in flight, frees the stage of the step before it."""
    STAGES: gl.constexpr = p.a_bufs.shape[0]
    for kk in range(lo, hi):
        s = count % STAGES
        mbarrier.wait(p.ready.index(s), (count // STAGES) & 1)
        acc = warpgroup_mma(p.a_bufs.index(s), p.w_bufs.index(s).permute((1, 0)), acc,
                            is_async=True)
        acc = warpgroup_mma_wait(1, deps=(acc, ))
        mbarrier.arrive(p.empty.index((count + STAGES - 1) % STAGES), pred=kk > 0)
        count += 1
    return acc, count


@gluon.jit
def _gelu_slice(p, i: gl.constexpr, off_m, off_n):
    """The previous tile's slice i (EPI_ROWS x EPI_COLS; the tile's 128x256 as four 128x64
    column blocks, each sliced row-major): its GELU in place; after a column block's last slice,
    that block's TMA store."""
    BLOCK_M: gl.constexpr = p.c_smem.shape[0]
    dtype: gl.constexpr = p.c_desc.dtype
    R: gl.constexpr = p.EPI_ROWS
    C: gl.constexpr = p.EPI_COLS
    ACROSS: gl.constexpr = 64 // C
    PER_BLOCK: gl.constexpr = (BLOCK_M // R) * ACROSS
    VEC: gl.constexpr = 8 if C == 64 else 4
    layout: gl.constexpr = gl.BlockedLayout([1, VEC], [4, 8], [gl.num_warps(), 1], [1, 0])
    block: gl.constexpr = i // PER_BLOCK
    j: gl.constexpr = i % PER_BLOCK
    part = p.c_smem.slice((j // ACROSS) * R, R, dim=0).slice(block * 64 + (j % ACROSS) * C, C,
                                                             dim=1)
    v = part.load(layout).to(gl.float32)
    part.store(_gelu_erf(v).to(dtype))
    if j == PER_BLOCK - 1:
        fence_async_shared()
        _barrier()
        _tma_store(p.c_desc, [off_m, off_n + block * 64], p.c_smem.slice(block * 64, 64, dim=1))


@gluon.jit
def _consumers_interleaved(p):
    """The default partition without an epilogue partition: the GELU of tile j-1 runs in slices
    between the wgmmas of tile j's main loop, while one is in flight, and each 128x64 column block
    is stored with TMA as soon as its slices are done."""
    BLOCK_M: gl.constexpr = p.c_smem.shape[0]
    BLOCK_N: gl.constexpr = p.c_smem.shape[1]
    BLOCK_K: gl.constexpr = p.a_desc.block_type.shape[1]
    STAGES: gl.constexpr = p.a_bufs.shape[0]
    SLICES: gl.constexpr = (BLOCK_M // p.EPI_ROWS) * (BLOCK_N // p.EPI_COLS)
    dtype: gl.constexpr = p.c_desc.dtype
    mma_layout: gl.constexpr = gl.NVMMADistributedLayout(
        version=[3, 0], warps_per_cta=[8, 1], instr_shape=[16, BLOCK_N, 16])
    bias_layout: gl.constexpr = gl.SliceLayout(0, mma_layout)
    total = gl.cdiv(p.M, BLOCK_M) * gl.cdiv(p.N, BLOCK_N)
    k_tiles = gl.cdiv(p.K, BLOCK_K)
    count = 0
    prev_m = 0
    prev_n = 0
    has_prev = False
    for t in range(gl.program_id(0), total, gl.num_programs(0)):
        off_m, off_n = _tile_of(p, t, BLOCK_M, BLOCK_N)
        acc = gl.zeros((BLOCK_M, BLOCK_N), dtype=gl.float32, layout=mma_layout)
        for i in gl.static_range(SLICES):
            acc, count = _k_steps(p, acc, count, (k_tiles * i) // SLICES,
                                  (k_tiles * (i + 1)) // SLICES)
            if has_prev:
                _gelu_slice(p, i, prev_m, prev_n)
        acc = warpgroup_mma_wait(0, deps=(acc, ))
        mbarrier.arrive(p.empty.index((count + STAGES - 1) % STAGES))
        offs_n = off_n + gl.arange(0, BLOCK_N, layout=bias_layout)
        bias = gl.load(p.bias_ptr + offs_n, mask=offs_n < p.N, other=0.0).to(gl.float32)
        y = (acc + gl.expand_dims(bias, 0)).to(dtype)
        tma.store_wait(pendings=0)  # the previous tile's column blocks have left c_smem
        _barrier()
        p.c_smem.store(y)
        _barrier()
        prev_m = off_m
        prev_n = off_n
        has_prev = True
    if has_prev:
        for i in gl.static_range(SLICES):
            _gelu_slice(p, i, prev_m, prev_n)
    tma.store_wait(pendings=0)


@gluon.jit
def _epilogue(p):
    """4 warps: the activation over the consumers' tile in row slices, then its TMA store."""
    BLOCK_M: gl.constexpr = p.a_desc.block_type.shape[0]
    BLOCK_N: gl.constexpr = p.w_desc.block_type.shape[0]
    dtype: gl.constexpr = p.c_desc.dtype
    layout: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [gl.num_warps(), 1], [1, 0])
    total = gl.cdiv(p.M, BLOCK_M) * gl.cdiv(p.N, BLOCK_N)
    j = 0
    for t in range(gl.program_id(0), total, gl.num_programs(0)):
        off_m, off_n = _tile_of(p, t, BLOCK_M, BLOCK_N)
        mbarrier.wait(p.epi_full, j & 1)
        if p.GELU == 1:
            # in EPI_ROWS x EPI_COLS slices: the math over a whole row slice of 256 columns
            # (64 values a thread) needed more than the kernel's 168 registers and spilled
            # (ptxas -v: 1.8 KB of spill stores; round 314's 1.77-2.11 ms)
            for r in gl.static_range(0, BLOCK_M, p.EPI_ROWS):
                for c in gl.static_range(0, BLOCK_N, p.EPI_COLS):
                    part = p.c_smem.slice(r, p.EPI_ROWS, dim=0).slice(c, p.EPI_COLS, dim=1)
                    v = part.load(layout).to(gl.float32)
                    part.store(_gelu_erf(v).to(dtype))
        elif p.GELU == 3:  # diagnostic: the slices' load and store without the math
            for r in gl.static_range(0, BLOCK_M, p.EPI_ROWS):
                for c in gl.static_range(0, BLOCK_N, p.EPI_COLS):
                    part = p.c_smem.slice(r, p.EPI_ROWS, dim=0).slice(c, p.EPI_COLS, dim=1)
                    v = part.load(layout).to(gl.float32)
                    part.store((v * 2.0).to(dtype))
        elif p.GELU == 4:  # diagnostic: SiLU, a third of the GELU fit's instructions
            for r in gl.static_range(0, BLOCK_M, p.EPI_ROWS):
                for c in gl.static_range(0, BLOCK_N, p.EPI_COLS):
                    part = p.c_smem.slice(r, p.EPI_ROWS, dim=0).slice(c, p.EPI_COLS, dim=1)
                    v = part.load(layout).to(gl.float32)
                    part.store((v / (1.0 + gl.exp2(v * -1.4426950408889634))).to(dtype))
        if p.GELU != 0:
            fence_async_shared()  # the slices' generic stores before the TMA store reads them
        _tma_store(p.c_desc, [off_m, off_n], p.c_smem)
        tma.store_wait(pendings=0)  # the tile has left c_smem: the consumers may write the next
        mbarrier.arrive(p.epi_free)
        j += 1


@gluon.jit
def gemm_coop_kernel(a_desc, w_desc, c_desc, bias_ptr, M, N, K, STAGES: gl.constexpr,
                     GROUP_M: gl.constexpr, GELU: gl.constexpr, EPI_ROWS: gl.constexpr,
                     EPI_COLS: gl.constexpr,
                     LOADER_REGS: gl.constexpr, EPILOGUE_REGS: gl.constexpr,
                     EPILOGUE_WARPS: gl.constexpr):
    dtype: gl.constexpr = a_desc.dtype
    a_bufs = gl.allocate_shared_memory(dtype, [STAGES] + a_desc.block_type.shape, a_desc.layout)
    w_bufs = gl.allocate_shared_memory(dtype, [STAGES] + w_desc.block_type.shape, w_desc.layout)
    # the whole output tile (its stores may go by column blocks: GELU 5's c_desc is 128 x 64)
    c_smem = gl.allocate_shared_memory(dtype, [a_desc.block_type.shape[0],
                                               w_desc.block_type.shape[0]], c_desc.layout)
    ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    epi_full = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    epi_free = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    for i in gl.static_range(STAGES):
        mbarrier.init(ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=1)
    mbarrier.init(epi_full, count=1)
    mbarrier.init(epi_free, count=1)
    fence_async_shared()
    p = _Args(a_desc, w_desc, c_desc, bias_ptr, a_bufs, w_bufs, c_smem, ready, empty, epi_full,
              epi_free, gl.to_tensor(M), gl.to_tensor(N), gl.to_tensor(K), GROUP_M, GELU,
              EPI_ROWS, EPI_COLS)
    if GELU == 5:
        gl.warp_specialize([(_consumers_interleaved, (p, )), (_loader, (p, ))], [1],
                           [LOADER_REGS])
    else:
        gl.warp_specialize([(_consumers, (p, )), (_loader, (p, )), (_epilogue, (p, ))],
                           [1, EPILOGUE_WARPS], [LOADER_REGS, EPILOGUE_REGS])


def launch(x, weight, bias, out=None, *, gelu="epilogue", stages=3, group_m=8, epi_rows=8,
           epi_cols=64, loader_regs=24, epilogue_regs=152, epilogue_warps=2, maxnreg=168, programs=None,
           warmup=False):
    """out = gelu(x @ weight.T + bias) (or without the GELU); x [M, K], weight [N, K], bias [N].
    (kernel, out); `warmup` compiles without launching (`--compile-only`: tensors on the CPU).
    The consumers' wgmma needs at least 154 registers a thread to compile, so the kernel is
    launched at maxnreg 168 with 8 + 2 + 1 warps (12 with the workers' warp group padded),
    64512 registers; the workers take loader_regs and epilogue_regs, the consumers the rest."""
    M, K = x.shape
    N = weight.shape[0]
    if out is None:
        out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    gdt = {torch.bfloat16: gl.bfloat16, torch.float16: gl.float16}[x.dtype]

    def desc(t, rows, cols):
        layout = gl.NVMMASharedLayout.get_default_for([rows, cols], gdt)
        return TensorDescriptor.from_tensor(t, [rows, cols], layout)

    mode = {None: 0, "epilogue": 1, "consumers": 2, "copy": 3, "silu": 4, "interleaved": 5}[gelu]
    store_n = 64 if mode == 5 else 256  # interleaved: the output leaves by 128x64 blocks
    args = (desc(x, 128, 64), desc(weight, 256, 64), desc(out, 128, store_n), bias, M, N, K,
            stages, group_m, mode, epi_rows, epi_cols, loader_regs, epilogue_regs, epilogue_warps)
    if warmup:
        return gemm_coop_kernel.warmup(*args, num_warps=8, maxnreg=maxnreg, grid=(1, )), out
    tiles = triton.cdiv(M, 128) * triton.cdiv(N, 256)
    if programs is None:
        programs = torch.cuda.get_device_properties(x.device).multi_processor_count
    grid = (min(programs, tiles), )
    return gemm_coop_kernel[grid](*args, num_warps=8, maxnreg=maxnreg), out


# Round 313: the GELU in a 2-warp epilogue partition over 16-row slices took 1.74-1.93 ms at
# 8192x4096->8192 (1 warp: 3.52), while the bare GEMM + bias took 0.703 against cuBLAS F.linear's
# 0.753. Round 314: in the consumers (fp32, before the rounding) 0.91-0.93 ms, level with nothing
# overlapped; in the epilogue partition over 8- and 32-row slices 1.77 and 2.11 (each slice's math
# spilled: 64-256 values a thread). Round 315: slices of at most 16 values a thread.
VARIANTS = (
    dict(gelu="interleaved", epi_rows=32, epi_cols=32),
    dict(gelu="interleaved", epi_rows=64, epi_cols=32),
    dict(gelu="interleaved", epi_rows=32, epi_cols=64),
    dict(gelu=None),  # the bare GEMM + bias, beside cuBLAS's F.linear
)
DIAGNOSTIC = ("copy", "silu")


def compile_only(variants) -> None:
    import re
    triton.runtime.driver.set_active(_CompileOnlyDriver())
    for kw in variants:
        x = torch.empty((512, 512), dtype=torch.bfloat16)
        w = torch.empty((512, 512), dtype=torch.bfloat16)
        b = torch.empty((512, ), dtype=torch.bfloat16)
        kernel, _ = launch(x, w, b, warmup=True, **kw)
        ptx = kernel.asm["ptx"]
        regs = sorted(set(re.findall(r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32\s+(\d+)", ptx)))
        spills = re.findall(r"(\d+) bytes spill stores", kernel.asm.get("sass", "") or "")
        print(kw, "compiled; setmaxnreg:", regs, "shared:", kernel.metadata.shared,
              "wgmma:", ptx.count("wgmma.mma_async"),
              "div.rn/div.full/rcp:",
              [ptx.count(k) for k in ("div.rn.f32", "div.full.f32", "rcp.")],
              "local (spills):", ptx.count("st.local"),
              spills, "regs, spills:", getattr(kernel, "n_regs", None),
              getattr(kernel, "n_spills", None), flush=True)


def smoke() -> bool:
    """Small and odd shapes (partial tiles, one and several tiles a program), every variant
    against float64: a hang or a wrong tile shows here, in seconds, before the timed run."""
    import torch.nn.functional as F
    ok = True
    for tokens, k_in, n_out in ((512, 512, 512), (1000, 1024, 3000), (300, 4096, 136),
                                (4096, 256, 8192)):
        torch.manual_seed(0)
        x = torch.randn(tokens, k_in, device="cuda", dtype=torch.bfloat16)
        w = (torch.randn(n_out, k_in, device="cuda") / k_in ** 0.5).to(torch.bfloat16)
        b = torch.randn(n_out, device="cuda", dtype=torch.bfloat16)
        lin = x.double() @ w.double().T + b.double()
        eager = _rel_err(lambda: F.gelu(F.linear(x, w, b)), F.gelu(lin))
        for kw in VARIANTS:
            if kw.get("gelu") in DIAGNOSTIC:
                continue
            ref = F.gelu(lin) if kw.get("gelu", "epilogue") else lin
            err = _rel_err(lambda: launch(x, w, b, **kw)[1], ref)
            good = err <= 2.0 * max(eager, 1e-3)
            ok &= good
            print(f"smoke {tokens}x{k_in}->{n_out} {kw}: rel_err {err:.3g} (eager {eager:.3g})"
                  f" {'ok' if good else 'WRONG'}", flush=True)
    return ok


def gpu_run(out_dir: Path, shapes) -> dict:
    import torch.nn.functional as F

    from bench.gemm import Case, Setup
    from templates.gemm import DEFAULT
    from verifier.environment import environment
    from verifier.timing import L2Flusher, bench, graphed_where_possible

    device = torch.device("cuda")
    flusher = L2Flusher(device)
    cache = Path("/tmp/probe-gluon-coop-cache")
    rows = []
    for tokens, k_in, n_out in shapes:
        shape = {"tokens": tokens, "in_features": k_in, "out_features": n_out}
        setup = Setup(Case("probe", "linear_bias_gelu", shape, "bfloat16", "large"), device, False)
        _, templ_ws = setup.candidate(dataclasses.replace(DEFAULT, ws_pingpong=True), cache)
        x = setup.inputs[0]
        w, b = setup.model.fc.weight.detach(), setup.model.fc.bias.detach()
        out = torch.empty(tokens, n_out, device=device, dtype=torch.bfloat16)

        class _Coop(torch.nn.Module):  # setup.check compares a module's output
            def __init__(self, kw):
                super().__init__()
                self.kw = kw

            def forward(self, x):
                return launch(x, w, b, out, **self.kw)[1]

        calls = {"eager": lambda: setup.model(x), "cublas_linear_only": lambda: F.linear(x, w, b),
                 "template_ws_pingpong": lambda: templ_ws(x)}
        checks = {"template_ws_pingpong": setup.check(templ_ws)}
        row = {"shape": shape, "dtype": "bfloat16", "flops": setup.flops,
               "variants": {f"coop_{i}": kw for i, kw in enumerate(VARIANTS)}, "failed": {}}
        for i, kw in enumerate(VARIANTS):
            name = f"coop_{i}"
            if kw.get("gelu") in DIAGNOSTIC:  # timed only: its results are wrong by design
                calls[name] = (lambda m=_Coop(kw): m(x))
                continue
            try:
                if kw.get("gelu", "epilogue"):
                    checks[name] = setup.check(_Coop(kw))
                else:  # the bare GEMM + bias: against float64 F.linear
                    got = launch(x, w, b, out, **kw)[1].double()
                    ref = F.linear(x.double(), w.double(), b.double())
                    err = ((got - ref).norm() / ref.norm()).item()
                    checks[name] = {"ok": err < 4e-3, "rel_l2_err": err}
            except Exception as exc:  # a variant that fails to compile or launch is recorded
                row["failed"][name] = f"{type(exc).__name__}: {exc}"[:3000]
                torch.cuda.synchronize()
                continue
            if checks[name]["ok"]:
                calls[name] = (lambda m=_Coop(kw): m(x))
            else:
                row["failed"][name] = f"wrong: {checks[name]}"
        row["checks"] = checks
        with torch.no_grad():
            for fn in calls.values():
                fn()
            torch.cuda.synchronize()
            graphs, row["graph_capture_failed"] = graphed_where_possible(calls)
            timings = bench(graphs, flusher=flusher, budget_ms=150.0 * len(graphs))
            ahead = bench(calls, flusher=flusher, budget_ms=150.0 * len(calls), host_ahead=True)
        row["ms"] = {k: t.median_ms for k, t in timings.items()}
        row["tflops"] = {k: row["flops"] / ms / 1e9 for k, ms in row["ms"].items()}
        row["vs_eager"] = {k: row["ms"]["eager"] / ms for k, ms in row["ms"].items()}
        row["ms_host_ahead"] = {k: t.median_ms for k, t in ahead.items()}
        row["vs_eager_host_ahead"] = {k: row["ms_host_ahead"]["eager"] / ms
                                      for k, ms in row["ms_host_ahead"].items()}
        rows.append(row)
        print(json.dumps({k: row[k] for k in ("shape", "ms", "vs_eager", "ms_host_ahead",
                                              "vs_eager_host_ahead", "failed")}), flush=True)
    result = {"what": __doc__.splitlines()[0], "environment": environment(),
              "method": "CUDA-graph replays and the verifier's host_ahead timer, L2 discard "
                        "flush before each call, interleaved rounds (verifier.timing.bench); each "
                        "kernel checked first (bench/gemm.py's Setup.check)", "rows": rows}
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "probe-gluon-coop-h100.json"
    path.write_text(json.dumps(result, indent=1))
    print("wrote", path)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compile-only", action="store_true",
                        help="compile every variant for sm_90a without a GPU")
    parser.add_argument("--smoke", action="store_true",
                        help="small and odd shapes, correctness only (a GPU is needed)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"),
                        help="folder for probe-gluon-coop-h100.json (default: bench/results)")
    args = parser.parse_args(argv)
    if args.compile_only:
        if os.environ.get("TRITON_INTERPRET") == "1":
            print("probe_gluon_coop: --compile-only compiles for sm_90a; Triton's interpreter "
                  "cannot run Gluon: unset TRITON_INTERPRET", file=sys.stderr)
            return 2
        compile_only(VARIANTS)
        return 0
    if not torch.cuda.is_available():
        print("probe_gluon_coop: no CUDA device; use --compile-only here", file=sys.stderr)
        return 2
    if args.smoke:
        return 0 if smoke() else 1
    start = time.time()
    gpu_run(Path(args.out), SHAPES)
    print(f"{time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
