"""Float32 softmax over rows of 128256 (and 32768) on an H200: does a split-row kernel whose next
rows' slices land in shared memory (TMA, multi-buffered by Triton's pipeliner) read more of the
copy bandwidth than the served one, whose loads land in registers?

The served kernel (softmax `row_split` 16, `row_ahead`: each program holds a 32 KB slice of a row
and exchanges its max and sum with the row's other 15) reads 0.76 of copy at 256x128256 on an
H200 (round 373). Keeping a third slice in registers (`ahead_depth` 2) lost: it lifts a thread to
169 registers, one program an SM where two fit (bench/compile_split_ahead.py), so the bytes in
flight on an SM, which land in registers, do not grow. A TMA load lands in shared memory instead
(228 KB an SM). Triton's pipeliner multi-buffers a descriptor load in a `tl.range(num_stages=S)`
loop, but not in a loop that holds another loop, and the wait for a row's partners is a loop; so
here the wait is one inline-PTX spin per slot (a loop inside the asm, which the pipeliner does not
see). Compiled for sm_90 on a CPU machine (Triton 3.9, ptxas 12.9), 16 programs a row of 8
warps: S - 1 slices of 32 KB in shared memory for the loads and one for the TMA store, 64
registers a thread.

A probe, not a template: rows whose width is a multiple of 256 (the descriptor views x as rows of
256), float32, its outputs checked against float64 first; timed as CUDA-graph replays, interleaved
and L2-flushed (verifier.timing), beside kernel_zoo.ops.softmax and a copy of the same bytes.
Writes bench/results/runs/probe-split-tma-<device>.json.

    python bench/probe_split_tma.py [--out DIR]

Round 374 (H200, runs/probe-split-tma-h200-round374.json): every variant was correct and slower
than the served kernel: 106.6 us at best against 81.1 at 256x128256, 97.8 against 70.9 at
1024x32768.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from row_probes import served_split_module, time_beside_zoo_and_copy, write_probe  # noqa: E402
from verifier.timing import L2Flusher  # noqa: E402

BOX = 256  # columns of one descriptor row (a TMA box dimension is at most 256 elements)

# The served split-row kernels' own helpers, from a render of the softmax template: the slot word
# a program publishes its (max, sum) as (`_publish_pair`), and how many programs of a compiled
# kernel an SM holds at once (`_resident_per_sm`), which a cooperative grid must not exceed.
_SPLIT = served_split_module("probe-split-tma")
_publish_pair = _SPLIT._publish_pair


@triton.jit
def _spin_until_set(addr):
    # each lane: reload its int64 slot (volatile: from L2) until it is not 0, and return it
    return tl.inline_asm_elementwise(
        """{
        .reg .pred p;
        spin:
        ld.volatile.global.b64 $0, [$1];
        setp.eq.s64 p, $0, 0;
        @p bra spin;
        }""",
        "=l,l", [addr], dtype=tl.int64, is_pure=False, pack=1)


@triton.jit
def _split_tma_kernel(x_ptr, y_ptr, slot_ptr, n_rows, n_cols, SPLIT: tl.constexpr,
                      CHUNKS: tl.constexpr, STAGES: tl.constexpr):
    # SPLIT programs share a row, program `part` holding its CHUNKS x BOX slice; groups walk the
    # rows with their stride. x and y are viewed as (rows, boxes of BOX, BOX): the descriptors
    # bound each row's boxes, so a slice past the row's end loads zeros (masked to -inf here) and
    # stores nothing. The pipeliner keeps STAGES - 1 slices' loads in shared memory.
    part = tl.program_id(0) % SPLIT
    first = tl.program_id(0) // SPLIT
    stride = tl.num_programs(0) // SPLIT
    n_boxes = n_cols // BOX_C
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[n_rows, n_boxes, BOX_C],
                                       strides=[n_cols, BOX_C, 1], block_shape=[1, CHUNKS, BOX_C])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[n_rows, n_boxes, BOX_C],
                                       strides=[n_cols, BOX_C, 1], block_shape=[1, CHUNKS, BOX_C])
    boxes = part * CHUNKS + tl.arange(0, CHUNKS)
    mask = (boxes < n_boxes)[None, :, None]
    parts = tl.arange(0, SPLIT)
    for row in tl.range(first, n_rows, stride, num_stages=STAGES):
        x = x_desc.load([row, part * CHUNKS, 0])
        x = tl.where(mask, x, float("-inf"))
        m = tl.max(tl.max(tl.max(x, axis=2), axis=1), axis=0)
        # a slice of -inf only (or wholly past the row's end) sums to 0 around a max of 0
        m_safe = tl.where(m == float("-inf"), 0.0, m)
        s = tl.sum(tl.sum(tl.sum(tl.exp(x - m_safe), axis=2), axis=1), axis=0)
        row_slots = slot_ptr + row.to(tl.int64) * SPLIT
        _publish_pair(row_slots + part, m, s)
        # the words as `_gather_pairs` reads them: complemented, max's bits over sum's
        words = ~_spin_until_set((row_slots + parts).to(tl.int64, bitcast=True))
        pm = (words >> 32).to(tl.int32).to(tl.float32, bitcast=True)
        ps = words.to(tl.int32).to(tl.float32, bitcast=True)
        row_max = tl.max(pm, axis=0)
        row_max_safe = tl.where(row_max == float("-inf"), 0.0, row_max)
        total = tl.sum(ps * tl.exp(pm - row_max_safe), axis=0)
        y_desc.store([row, part * CHUNKS, 0], tl.exp(x - row_max) * (1.0 / total))


BOX_C = tl.constexpr(BOX)


def _alloc(size: int, alignment: int, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


def split_tma_softmax(x: torch.Tensor, split: int, stages: int, warps: int, cache: dict):
    n_rows, n_cols = x.shape
    chunks = triton.next_power_of_2(triton.cdiv(triton.cdiv(n_cols, BOX), split))
    y = torch.empty_like(x)
    slots = torch.zeros(n_rows * split, dtype=torch.int64, device=x.device)
    key = (split, chunks, stages, warps)
    if key not in cache:
        kernel = _split_tma_kernel.warmup(x, y, slots, n_rows, n_cols, SPLIT=split,
                                          CHUNKS=chunks, STAGES=stages, num_warps=warps,
                                          launch_cooperative_grid=True, grid=(split,))
        per_sm = _SPLIT._resident_per_sm(kernel, x.device.index or 0)
        cache[key] = (per_sm, kernel.n_regs, kernel.metadata.shared)
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    groups = min(n_rows, cache[key][0] * sms // split)
    _split_tma_kernel[(groups * split,)](x, y, slots, n_rows, n_cols, SPLIT=split, CHUNKS=chunks,
                                         STAGES=stages, num_warps=warps,
                                         launch_cooperative_grid=True)
    return y


# (rows, cols) -> (programs a row, pipeline stages, warps); slices of 8192 or 16384 elements
SHAPES = {
    (256, 128256): ((16, 3, 8), (16, 3, 16), (16, 4, 8), (8, 3, 16)),  # served: 81.7 us, 0.76
    (1024, 32768): ((4, 3, 8), (4, 4, 8), (2, 3, 16)),  # served (one pass): 70.9 us, 0.89
}


def probe_shape(n_rows: int, n_cols: int, variants, flusher) -> dict:
    x = torch.randn(n_rows, n_cols, device="cuda") * 4.0
    x[1, 5:40000 % n_cols] = float("-inf")  # a row with a run of -inf
    ref = torch.softmax(x.double(), dim=1)
    cache: dict = {}
    fns, errors = {}, {}
    for split, stages, warps in variants:
        name = f"tma_split{split}_stages{stages}_w{warps}"
        try:
            got = split_tma_softmax(x, split, stages, warps, cache)
            torch.cuda.synchronize()
            err = ((got.double() - ref).norm() / ref.norm()).item()
        except Exception as exc:  # a variant that does not build or launch is reported, not timed
            errors[name] = f"{type(exc).__name__}: {str(exc)[:400]}"
            print(f"{name}: {errors[name]}", flush=True)
            continue
        errors[name] = err
        print(f"{n_rows}x{n_cols} {name}: rel l2 err {err:.2e}", flush=True)
        if err < 1e-5:
            fns[name] = (lambda s=split, st=stages, w=warps: split_tma_softmax(x, s, st, w, cache))
    us, failed = time_beside_zoo_and_copy(x, fns, errors, flusher, ref)
    resources = {f"tma_split{s}_chunks{c}_stages{st}_w{w}": dict(programs_per_sm=v[0],
                                                                 registers=v[1], shared=v[2])
                 for (s, c, st, w), v in cache.items()}
    return {"shape": [n_rows, n_cols], "us_graphs": us, "rel_l2_err": errors,
            "resources": resources, "graph_capture_failed": failed}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "runs"))
    args = parser.parse_args()
    triton.set_allocator(_alloc)  # device-side tensor descriptors take their scratch from torch
    torch.manual_seed(0)
    flusher = L2Flusher(torch.device("cuda"))
    shapes = [probe_shape(rows, cols, variants, flusher)
              for (rows, cols), variants in SHAPES.items()]
    write_probe(args.out, "probe-split-tma",
                "float32 softmax: split-row programs whose next rows' slices are TMA loads "
                "multi-buffered in shared memory, against kernel_zoo.ops.softmax and a copy of "
                "the same bytes; CUDA-graph replays, L2 flushed, medians in us", shapes)

if __name__ == "__main__":
    main()
