"""Does an L2 prefetch of the next row lift the float32 one-pass softmax to 90% of copy? (GPU)

At 1024x32768 float32 the served softmax is one program of 32 warps a row, one program an SM,
the row held in registers: it reads the whole row before it writes any of it, and costs 7.0 us
fixed and 62.7 ns a row against a copy's 3.2 us and 60.3 ns (round 428,
`runs/probe-ceilings-h200-round428.json`), 0.89 of copy where the bar is 0.90. Between a
program's last load and its first store (the row's max, exponentials and sum) its SM asks DRAM for
nothing, and at the start every SM is in that gap at once. No earlier design prefetched: here each
program, right after issuing its own row's loads, issues `prefetch.global.L2` for every 128-byte
line of the row a later program will take (one instruction a thread; the data lands in L2, not in
registers), so DRAM is kept busy through the gap and the later program's loads hit L2.

Variants, each checked against float64 before it is timed (CUDA-graph replays, interleaved, L2
discarded before each call; `verifier.timing`):
- `zoo`: `kernel_zoo.ops.softmax`, what is served; `copy`: a copy of the same bytes, and
  `yardstick`: a 1 GiB copy, whose bandwidth the bar's fraction is of;
- `plain`: this file's one-pass kernel without prefetch (should match `zoo`);
- `ahead_D`: the prefetch of row `row + D`, the row the program D launches later takes;
  D = 132 (one per SM: the next program on this SM) and 264;
- `persist`, `persist_pf`: a grid of one program an SM, each walking rows with the grid's stride,
  without and with the prefetch of its own next row;
- `_keep`: the prefetch with the evict_last priority; `_cs`: the stores streaming (`.cs`), so
  that they do not push the prefetched lines out of L2 (`plain_cs`: without prefetch).

Writes <out>/probe-l2-prefetch-<device>.json. Read `fraction_of_own_copy`: in round 448 the 1 GiB
`yardstick` copy read 2.76 TB/s, where bench/memory_bound.py's reads 4.25 (why is not probed; round
403 met such slow copies of some allocations too).

    python bench/probe_l2_prefetch.py [--out DIR] [--rows 1024] [--cols 32768]
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

LINE_ELEMS = 32  # float32 elements in a 128-byte line


@triton.jit
def _prefetch_l2(ptrs, KEEP: tl.constexpr):
    """One `prefetch.global.L2` per element's address (no value comes back); KEEP: with the
    evict_last priority, so that the stores in between do not push the lines out first."""
    if KEEP:
        tl.inline_asm_elementwise("prefetch.global.L2::evict_last [$1]; mov.u32 $0, 0;", "=r,l",
                                  [ptrs], dtype=tl.int32, is_pure=False, pack=1)
    else:
        tl.inline_asm_elementwise("prefetch.global.L2 [$1]; mov.u32 $0, 0;", "=r,l", [ptrs],
                                  dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def _softmax_row(x_ptr, y_ptr, row, n_rows, n_cols, ahead, PREFETCH: tl.constexpr,
                 KEEP: tl.constexpr, STREAM: tl.constexpr, BLOCK: tl.constexpr,
                 LINES: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    base = row.to(tl.int64) * n_cols
    v = tl.load(x_ptr + base + offs, mask=offs < n_cols, other=-float("inf"))
    if PREFETCH:
        nxt = row + ahead
        if nxt < n_rows:
            lines = tl.arange(0, LINES) * 32
            _prefetch_l2(x_ptr + nxt.to(tl.int64) * n_cols + lines, KEEP)
    m = tl.max(v, 0)
    e = tl.exp(v - m)
    s = tl.sum(e, 0)
    if STREAM:
        tl.store(y_ptr + base + offs, e / s, mask=offs < n_cols, cache_modifier=".cs")
    else:
        tl.store(y_ptr + base + offs, e / s, mask=offs < n_cols)


@triton.jit
def _softmax_rows(x_ptr, y_ptr, n_rows, n_cols, ahead, PREFETCH: tl.constexpr,
                  KEEP: tl.constexpr, STREAM: tl.constexpr, PERSIST: tl.constexpr,
                  BLOCK: tl.constexpr, LINES: tl.constexpr):
    """One row a program (PERSIST 0), or a grid-stride walk over rows (PERSIST 1: the grid's size
    is the stride and the prefetch distance)."""
    pid = tl.program_id(0)
    if PERSIST:
        step = tl.num_programs(0)
        for row in range(pid, n_rows, step):
            _softmax_row(x_ptr, y_ptr, row, n_rows, n_cols, step, PREFETCH, KEEP, STREAM, BLOCK,
                         LINES)
    else:
        _softmax_row(x_ptr, y_ptr, pid, n_rows, n_cols, ahead, PREFETCH, KEEP, STREAM, BLOCK,
                     LINES)


def launch(x: torch.Tensor, y: torch.Tensor, *, ahead: int, persist: bool, prefetch: bool,
           sms: int, keep: bool = False, stream: bool = False, warps: int = 32) -> None:
    """`ahead`: the prefetch distance in rows of a one-row-a-program grid (a persistent grid's is
    its own size)."""
    rows, cols = x.shape
    block = triton.next_power_of_2(cols)
    grid = (min(sms, rows),) if persist else (rows,)
    _softmax_rows[grid](x, y, rows, cols, ahead, PREFETCH=prefetch, KEEP=keep, STREAM=stream,
                        PERSIST=persist, BLOCK=block, LINES=block // LINE_ELEMS,
                        num_warps=warps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/results/runs", help="folder for the JSON")
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--cols", type=int, default=32768)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("probe_l2_prefetch: needs a CUDA GPU (inline PTX does not run in the interpreter)")
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    flusher = L2Flusher(torch.device("cuda"))
    x = torch.randn(args.rows, args.cols, device="cuda", dtype=torch.float32)
    want = torch.softmax(x.double(), dim=-1)
    variants = {"plain": dict(ahead=0, persist=False, prefetch=False),
                f"ahead_{sms}": dict(ahead=sms, persist=False, prefetch=True),
                f"ahead_{2 * sms}": dict(ahead=2 * sms, persist=False, prefetch=True),
                "persist": dict(ahead=0, persist=True, prefetch=False),
                "persist_pf": dict(ahead=0, persist=True, prefetch=True),
                "plain_cs": dict(ahead=0, persist=False, prefetch=False, stream=True),
                f"ahead_{sms}_keep": dict(ahead=sms, persist=False, prefetch=True, keep=True),
                f"ahead_{sms}_keep_cs": dict(ahead=sms, persist=False, prefetch=True, keep=True,
                                             stream=True),
                f"ahead_{sms // 2}_keep_cs": dict(ahead=sms // 2, persist=False, prefetch=True,
                                                  keep=True, stream=True)}
    fns = {"zoo": lambda: ops.softmax(x, dim=-1)}
    out = torch.empty_like(x)
    fns["copy"] = lambda: out.copy_(x)
    big = torch.empty(2**27, device="cuda", dtype=torch.float32)  # 512 MiB: a 1 GiB copy
    big_out = torch.empty_like(big)
    fns["yardstick"] = lambda: big_out.copy_(big)
    errors = {"zoo": ((ops.softmax(x, dim=-1).double() - want).norm() / want.norm()).item()}
    for name, kw in variants.items():
        y = torch.empty_like(x)
        launch(x, y, sms=sms, **kw)
        errors[name] = ((y.double() - want).norm() / want.norm()).item()
        fns[name] = lambda y=y, kw=kw: launch(x, y, sms=sms, **kw)
    bad = {k: v for k, v in errors.items() if not v < 1e-5}
    if bad:
        sys.exit(f"probe_l2_prefetch: wrong results (relative L2 error): {bad}")
    graphs, failed = graphed_where_possible(fns)
    times = bench(graphs, flusher=flusher, budget_ms=400.0, rounds=5)
    us = {name: round(t.median_ms * 1000, 2) for name, t in times.items()}
    moved = 2 * x.numel() * x.element_size()
    gbps = {name: round(moved / (t * 1e-6) / 1e9, 1) for name, t in us.items()}
    gbps["yardstick"] = round(2 * big.numel() * 4 / (us["yardstick"] * 1e-6) / 1e9, 1)
    for name, t in us.items():
        print(f"{name:12s} {t:8.2f} us  {gbps[name]:7.1f} GB/s  {gbps[name] / gbps['yardstick']:.3f}"
              f" of the 1 GiB copy, {us['copy'] / t:.3f} of its own", flush=True)
    result = {"what": __doc__.split("\n\n")[0], "environment": environment(), "sm_count": sms,
              "shape": [args.rows, args.cols], "dtype": "float32", "bytes_moved": moved,
              "timer": "CUDA-graph replays, interleaved, L2 discarded before each call (medians)",
              "graph_capture_failed": failed, "rel_l2_err": errors, "us": us, "gbps": gbps,
              "fraction_of_copy": {name: round(g / gbps["yardstick"], 4)
                                   for name, g in gbps.items()},
              "fraction_of_own_copy": {name: round(us["copy"] / t, 4) for name, t in us.items()}}
    path = Path(args.out) / f"probe-l2-prefetch-{device_label()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
