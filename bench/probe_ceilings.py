"""Two ceilings on an H200, measured before building anything more for the bars that stay open:

- **Waves of the float32 one-pass softmax.** At 1024x32768 the served kernel is one program of 32
  warps a row, one program an SM, so its 1024 rows are 7.76 waves of 132 and the last SMs to
  finish drain alone. Timing `kernel_zoo.ops.softmax` (and a copy of the same bytes) at 132 to
  1320 rows fits time = fixed + rows x per-row over the whole waves; the fixed part beyond the
  copy's, and how far 1024 rows sit above the line, bound what splitting the last wave could win.
- **Reading a 8192x8192 bfloat16 weight.** `ops.matmul` at 16x8192x8192 runs at 0.99x cuBLAS;
  both are reads of 128 MiB. A plain Triton read of the same bytes (P programs, contiguous
  chunks, BLOCK elements a load), `torch.sum` and a copy say how far from the read ceiling
  cuBLAS is, so whether a faster skinny kernel can exist. (bench/probe_read_bandwidth.py's
  `_read_all` reads strided tiles from a grid of at most 16 programs an SM; here each of up to
  8192 programs reads one contiguous chunk, which round 428 found the fastest.)

Everything is timed as CUDA-graph replays, interleaved and L2-flushed (verifier.timing).
Writes <out>/probe-ceilings-<device>.json.

    python bench/probe_ceilings.py [--out DIR]
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

SM_ROWS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)  # whole waves of the SM count
ODD_ROWS = (1024, 1000, 960)


@triton.jit
def _read_chunks(x_ptr, sink_ptr, chunk, BLOCK: tl.constexpr):
    """Program p sums x[p * chunk : (p + 1) * chunk] (chunk a multiple of BLOCK) in float32 and
    stores the sum, so no load can be dropped."""
    pid = tl.program_id(0)
    base = x_ptr + pid.to(tl.int64) * chunk
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, chunk, BLOCK):
        acc += tl.load(base + start + tl.arange(0, BLOCK)).to(tl.float32)
    tl.store(sink_ptr + pid, tl.sum(acc, 0))


def timed(fns: dict, flusher: L2Flusher) -> tuple[dict[str, float], list[str]]:
    """Medians in us of `fns` as CUDA-graph replays, interleaved and L2-flushed, and the names
    whose graph capture failed (timed as plain calls)."""
    graphs, failed = graphed_where_possible(fns)
    if failed:
        print("graph capture failed (timed as calls):", failed, flush=True)
    times = bench(graphs, flusher=flusher, budget_ms=300.0, rounds=5)
    return {name: round(t.median_ms * 1000, 2) for name, t in times.items()}, failed


def fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares intercept and slope of ys over xs."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope


def waves(flusher: L2Flusher, sms: int, cols: int = 32768) -> dict:
    rows_list = sorted({k * sms for k in SM_ROWS} | set(ODD_ROWS))
    fns = {}
    for op in ("softmax", "log_softmax"):
        for rows in rows_list:
            x = torch.randn(rows, cols, device="cuda")
            want = getattr(torch, op)(x.double(), dim=-1)
            got = getattr(ops, op)(x, dim=-1)
            err = ((got.double() - want).norm() / want.norm()).item()
            assert err < 1e-5, (op, rows, err)
            out = torch.empty_like(x)
            fns[f"{op}:{rows}"] = (lambda o=getattr(ops, op), t=x: o(t, dim=-1))
            if op == "softmax":
                fns[f"copy:{rows}"] = (lambda o=out, t=x: o.copy_(t))
    us, _ = timed(fns, flusher)
    result = {"cols": cols, "rows": rows_list, "us": us, "fits": {}}
    whole = [k * sms for k in SM_ROWS]
    for name in ("softmax", "log_softmax", "copy"):
        fixed, per_row = fit([float(r) for r in whole], [us[f"{name}:{r}"] for r in whole])
        line = {r: fixed + per_row * r for r in rows_list}
        result["fits"][name] = {
            "fixed_us": round(fixed, 2), "per_row_us": round(per_row, 5),
            "above_line": {str(r): round(us[f"{name}:{r}"] / line[r] - 1, 4) for r in rows_list},
        }
        print(f"{name:12s} fixed {fixed:6.2f} us, {per_row * 1000:7.2f} ns a row; above the line:",
              " ".join(f"{r}:{us[f'{name}:{r}'] / line[r] - 1:+.3f}" for r in rows_list),
              flush=True)
    for rows in rows_list:
        print(f"rows {rows:5d}: softmax {us[f'softmax:{rows}']:7.2f} us, log_softmax "
              f"{us[f'log_softmax:{rows}']:7.2f}, copy {us[f'copy:{rows}']:7.2f}, softmax "
              f"{us[f'copy:{rows}'] / us[f'softmax:{rows}']:.3f} of copy", flush=True)
    return result


def reads(flusher: L2Flusher, sms: int) -> dict:
    m, n, k = 16, 8192, 8192
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    want = a.float() @ b.float()
    got = ops.matmul(a, b)
    err = ((got.float() - want).norm() / want.norm()).item()
    assert err < 1e-2, err
    flat = b.view(-1)
    fns = {"cublas": lambda: a @ b, "zoo": lambda: ops.matmul(a, b),
           "torch_sum": lambda: flat.sum(dtype=torch.float32)}
    copy_out = torch.empty(flat.numel() // 2, device="cuda", dtype=torch.bfloat16)
    fns["copy_half"] = lambda: copy_out.copy_(flat[: flat.numel() // 2])  # 128 MiB moved
    total = flat.double().sum().item()
    for programs in (sms, 2 * sms, 4 * sms, 8 * sms, 1024, 2048, 4096, 8192):
        for block in (2048, 4096, 8192):
            chunk = flat.numel() // programs
            if flat.numel() % programs or chunk % block:
                continue
            for warps in (4, 8):
                sink = torch.empty(programs, device="cuda", dtype=torch.float32)
                _read_chunks[(programs,)](flat, sink, chunk, BLOCK=block, num_warps=warps)
                assert abs(sink.double().sum().item() - total) < 1e-2 * flat.numel() ** 0.5
                fns[f"read_p{programs}_b{block}_w{warps}"] = (
                    lambda s=sink, p=programs, c=chunk, bl=block, w=warps:
                    _read_chunks[(p,)](flat, s, c, BLOCK=bl, num_warps=w))
    us, _ = timed(fns, flusher)
    best = min((v, name) for name, v in us.items() if name.startswith("read_"))
    for name, value in sorted(us.items(), key=lambda kv: kv[1]):
        print(f"16x8192x8192 {name:28s} {value:7.2f} us  {b.numel() * 2 / value / 1e6:5.2f} TB/s "
              f"{us['cublas'] / value:5.3f}x cuBLAS", flush=True)
    return {"shape": {"M": m, "N": n, "K": k}, "dtype": "bfloat16", "b_bytes": b.numel() * 2,
            "rel_l2_err_zoo": err, "us": us, "best_read": {"name": best[1], "us": best[0]}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/results", help="folder for the JSON")
    parser.add_argument("--skip", choices=("waves", "reads"), help="leave one probe out")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("probe_ceilings: needs a CUDA GPU (nothing here runs in the interpreter)")
    flusher = L2Flusher(torch.device("cuda"))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    result = {"what": __doc__.split("\n\n")[0], "environment": environment(), "sm_count": sms}
    if args.skip != "waves":
        result["waves_float32_softmax"] = waves(flusher, sms)
    if args.skip != "reads":
        result["reads_16x8192x8192"] = reads(flusher, sms)
    path = Path(args.out) / f"probe-ceilings-{device_label()}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", path)


if __name__ == "__main__":
    main()
