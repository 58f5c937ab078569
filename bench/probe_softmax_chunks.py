"""Does exponentiating a row's first chunks while its last ones load lift the float32 one-pass
softmax to 90% of copy? (one GPU run)

At 1024x32768 float32 the served softmax is one 32-warp program a row, the row in registers; it
costs 7.0 us fixed and 62.7 ns a row against a copy's 3.2 us and 60.3 ns (round 428), 0.89 of the
copy bandwidth where the bar is 0.90. After a program's last load lands, it still has the row's
max, 32 exponentials a thread, the sum and the scaling to do before its first store, and at the
start every SM is in that gap at once. Round 448 tried to fill the gap with an L2 prefetch of a
later row and lost. Here the gap itself is shortened: the row is loaded as C chunks (all loads
issued first), and chunk c's max and exponentials `e_c = exp(x_c - m_c)` are computed as soon as
its data is in, while the later chunks are still on their way. After the last chunk, what is left
is its own max and exponentials, M = max m_c, one sum of `e_c * exp(m_c - M)` and the scaling of
each `e_c` by `exp(m_c - M) / sum` (a multiply an element, as the served kernel's `e * inv`).

Variants (each checked against float64 before it is timed; CUDA-graph replays, interleaved, L2
discarded before each call, `verifier.timing`): `zoo` (`kernel_zoo.ops.softmax`), `copy` (the same
bytes), `chunks_1` (this file's kernel in one chunk: the served kernel's form, vectorized, no
masks), `chunks_2`, `chunks_4`; each at 32 warps (as served) and `chunks_4` also at 16.

Writes <out>/probe-softmax-chunks-<device>.json.

    python bench/probe_softmax_chunks.py [--out DIR] [--rows 1024] [--cols 32768]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_zoo import ops  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible  # noqa: E402


@triton.jit
def _max_exp(x):
    """A chunk's max over the program and its exponentials against it."""
    m = tl.max(x, 0)
    return tl.exp(x - m), m


@triton.jit
def _softmax_chunks(x_ptr, y_ptr, CHUNK: tl.constexpr, CHUNKS: tl.constexpr):
    """One row of CHUNKS * CHUNK float32 a program (rows contiguous, no masks)."""
    base = tl.program_id(0).to(tl.int64) * (CHUNK * CHUNKS)
    offs = tl.arange(0, CHUNK)
    src = x_ptr + base + offs
    dst = y_ptr + base + offs
    if CHUNKS == 1:
        e0, m0 = _max_exp(tl.load(src))
        inv = 1.0 / tl.sum(e0, 0)
        tl.store(dst, e0 * inv)
    elif CHUNKS == 2:
        x0 = tl.load(src)
        x1 = tl.load(src + CHUNK)
        e0, m0 = _max_exp(x0)
        e1, m1 = _max_exp(x1)
        big = tl.maximum(m0, m1)
        f0 = tl.exp(m0 - big)
        f1 = tl.exp(m1 - big)
        inv = 1.0 / tl.sum(e0 * f0 + e1 * f1, 0)
        tl.store(dst, e0 * (f0 * inv))
        tl.store(dst + CHUNK, e1 * (f1 * inv))
    else:
        tl.static_assert(CHUNKS == 4)
        x0 = tl.load(src)
        x1 = tl.load(src + CHUNK)
        x2 = tl.load(src + 2 * CHUNK)
        x3 = tl.load(src + 3 * CHUNK)
        e0, m0 = _max_exp(x0)
        e1, m1 = _max_exp(x1)
        e2, m2 = _max_exp(x2)
        e3, m3 = _max_exp(x3)
        big = tl.maximum(tl.maximum(m0, m1), tl.maximum(m2, m3))
        f0 = tl.exp(m0 - big)
        f1 = tl.exp(m1 - big)
        f2 = tl.exp(m2 - big)
        f3 = tl.exp(m3 - big)
        inv = 1.0 / tl.sum(e0 * f0 + e1 * f1 + e2 * f2 + e3 * f3, 0)
        tl.store(dst, e0 * (f0 * inv))
        tl.store(dst + CHUNK, e1 * (f1 * inv))
        tl.store(dst + 2 * CHUNK, e2 * (f2 * inv))
        tl.store(dst + 3 * CHUNK, e3 * (f3 * inv))


def launch(x: torch.Tensor, y: torch.Tensor, *, chunks: int, warps: int) -> None:
    rows, cols = x.shape
    assert x.is_contiguous() and cols == triton.next_power_of_2(cols) and cols % chunks == 0
    _softmax_chunks[(rows,)](x, y, CHUNK=cols // chunks, CHUNKS=chunks, num_warps=warps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/results/runs", help="folder for the JSON")
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--cols", type=int, default=32768)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("probe_softmax_chunks: needs a CUDA GPU")
    flusher = L2Flusher(torch.device("cuda"))
    x = torch.randn(args.rows, args.cols, device="cuda", dtype=torch.float32)
    want = torch.softmax(x.double(), dim=-1)
    variants = {"chunks_1": (1, 32), "chunks_2": (2, 32), "chunks_4": (4, 32),
                "chunks_4_w16": (4, 16)}
    fns = {"zoo": lambda: ops.softmax(x, dim=-1)}
    out = torch.empty_like(x)
    fns["copy"] = lambda: out.copy_(x)
    errors = {"zoo": ((ops.softmax(x, dim=-1).double() - want).norm() / want.norm()).item()}
    for name, (chunks, warps) in variants.items():
        y = torch.empty_like(x)
        launch(x, y, chunks=chunks, warps=warps)
        errors[name] = ((y.double() - want).norm() / want.norm()).item()
        fns[name] = lambda y=y, c=chunks, w=warps: launch(x, y, chunks=c, warps=w)
    bad = {k: v for k, v in errors.items() if not v < 1e-5}
    if bad:
        sys.exit(f"probe_softmax_chunks: wrong results (relative L2 error): {bad}")
    graphs, failed = graphed_where_possible(fns)
    times = bench(graphs, flusher=flusher, budget_ms=400.0, rounds=7)
    us = {name: round(t.median_ms * 1000, 2) for name, t in times.items()}
    for name, t in us.items():
        print(f"{name:14s} {t:8.2f} us  {us['copy'] / t:.3f} of the same bytes' copy", flush=True)
    result = {"what": __doc__.split("\n\n")[0], "environment": environment(),
              "shape": [args.rows, args.cols], "dtype": "float32",
              "bytes_moved": 2 * x.numel() * x.element_size(),
              "timer": "CUDA-graph replays, interleaved, L2 discarded before each call (medians)",
              "graph_capture_failed": failed, "rel_l2_err": errors, "us": us,
              "fraction_of_own_copy": {name: round(us["copy"] / t, 4) for name, t in us.items()}}
    path = Path(args.out) / f"probe-softmax-chunks-{device_label()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
