"""How fast can a reduction read, and does the L2 flush cost the timed call? (one GPU run)

The plain reductions (sum, mean, amax, amin) ship no zoo config: in every bucket sweep the reduce
template's best configs tied torch.compile (50 us at 8192 x 8192, against a 45 us copy floor) and
none beat it by a margin. This probe asks whether there is room above them, at the sum task's three
largest bfloat16 shapes:
- `ceiling`: the fastest of a small grid of flat-read Triton kernels (each program sums a strided
  run of BLOCK-element tiles of the whole tensor into one fp32 partial): what reading those bytes
  costs on this GPU, whatever the reduction's layout;
- `copy`: the same bytes read and written once more (a device copy), the issue's yardstick;
- eager `torch.sum`, `torch.compile`, the reduce template's DEFAULT and round 60's best config at
  each shape (`runs/tune-reduce-h100-round60.json`).
Every callable is checked against a float64 sum first, then timed as a CUDA-graph replay with the
verifier's timer (`verifier.timing.bench`, medians, interleaved), twice: with a write flush
(zeroing a buffer 4x the L2 size, as triton.testing.do_bench and, until this probe, the verifier
did: it leaves the L2 full of dirty lines that the timed call must write back as it reads) and
with a read flush (summing such a buffer: it leaves clean lines; the verifier's flush since). The
difference between the two is what the flush's write-back adds to each timed call. (Rounds 76-80
found that a read flush does not empty the L2 of lines a call keeps reusing, so this probe's
read-flush column is an upper bound; bench/probe_l2_flush.py measures the flushes themselves, and
the verifier's flush now discards the L2's lines. Round 74's record:
runs/read-bandwidth-h100-round74.json.)
Writes bench/results/runs/read-bandwidth-<device>.json.

    python bench/probe_read_bandwidth.py
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from templates import get_template  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, copy_bandwidth, graphed  # noqa: E402

SHAPES = ({"batch": 1, "rows": 8192, "cols": 8192, "reduce_dim": 2},
          {"batch": 32, "rows": 4096, "cols": 1024, "reduce_dim": 1},
          {"batch": 1, "rows": 8192, "cols": 8192, "reduce_dim": 1})
ROUND60 = ROOT / "bench" / "results" / "runs" / "tune-reduce-h100-round60.json"
# (BLOCK, num_warps, programs per SM, pipeline stages) of the flat-read kernel
CEILING_GRID = [(b, w, p, s) for b in (2048, 8192) for w in (4, 8, 16) for p in (1, 4, 16)
                for s in (1, 3) if b // (32 * w) <= 64]


@triton.jit
def _read_all(x_ptr, part_ptr, n, BLOCK: tl.constexpr, STAGES: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0) * BLOCK
    acc = tl.zeros([BLOCK], tl.float32)
    for start in tl.range(pid * BLOCK, n, step, num_stages=STAGES):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0,
                       eviction_policy="evict_first").to(tl.float32)
    tl.store(part_ptr + pid, tl.sum(acc, 0))


def _ceiling_fn(x: torch.Tensor, cfg, sm_count: int):
    block, warps, per_sm, stages = cfg
    flat = x.reshape(-1)
    grid = sm_count * per_sm
    parts = torch.empty(grid, dtype=torch.float32, device=x.device)

    def run():
        _read_all[(grid,)](flat, parts, flat.numel(), BLOCK=block, STAGES=stages,
                           num_warps=warps)
        return parts
    return run


def _round60_best() -> list[dict]:
    """Round 60's best config (vs torch.compile) at each of the shapes above, by shape."""
    data = json.loads(ROUND60.read_text())["results"][0]
    index = {json.dumps(s["shape"], sort_keys=True): i for i, s in enumerate(data["shapes"])}
    out = []
    for shape in SHAPES:
        i = index[json.dumps(shape, sort_keys=True)]
        best = max((c for c in data["configs"] if c["shapes"][i].get("speedup_vs_compile")),
                   key=lambda c: c["shapes"][i]["speedup_vs_compile"])
        out.append(best["params"])
    return out


def main() -> int:
    device = torch.device("cuda")
    props = torch.cuda.get_device_properties(device)
    template = get_template("reduce")
    cache = Path(tempfile.mkdtemp(prefix="kzoo-readbw-"))
    configs = {"default": template.default}
    for shape, params in zip(SHAPES, _round60_best()):
        configs[f"round60_best_{shape['batch']}x{shape['rows']}x{shape['cols']}"
                f"_dim{shape['reduce_dim']}"] = template.config(params)
    modules = {name: load_candidate(template.render(cfg, op="sum", dim=2, rank=3, params=[]),
                                    cache) for name, cfg in configs.items()}
    flushers = {"write_flush": L2Flusher(device, mode="write"),
                "read_flush": L2Flusher(device, mode="read")}
    result = {"benchmark": "probe-read-bandwidth", "environment": environment(),
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 flushed before each "
                        "run, CUDA events, medians, callables interleaved), once per flush kind",
              "copy_gbps": copy_bandwidth(device, flushers["write_flush"]) / 1e9,
              "configs": {k: dataclasses.asdict(v) for k, v in configs.items()},
              "ceiling_grid": [list(c) for c in CEILING_GRID], "rows": []}
    print(f"copy {result['copy_gbps']:.0f} GB/s (read + written)", flush=True)
    for shape in SHAPES:
        torch.manual_seed(0)
        x = torch.randn(shape["batch"], shape["rows"], shape["cols"], device=device,
                        dtype=torch.bfloat16)
        dim = shape["reduce_dim"]
        nbytes = x.numel() * 2 + (x.numel() // x.shape[dim]) * 2
        ref = x.double().sum(dim)
        fns = {"eager": lambda: torch.sum(x, dim=dim)}
        compiled = torch.compile(lambda t: torch.sum(t, dim=dim), dynamic=False)
        fns["compile"] = lambda: compiled(x)
        for name, module in modules.items():
            model = module.ModelNew(dim)
            fns[name] = (lambda m: lambda: m(x))(model)
        wrong = []
        for name, fn in fns.items():
            got = fn().double()
            tol = 2e-2 * ref.abs() + 1e-2 * ref.abs().max()
            if got.shape != ref.shape or not bool(((got - ref).abs() <= tol).all()):
                wrong.append(name)
        fns = {k: v for k, v in fns.items() if k not in wrong}
        dst = torch.empty_like(x)
        fns["copy"] = lambda: dst.copy_(x)
        # The flat-read grid: timed alone first (write flush) to pick its fastest config.
        ceiling = {cfg: _ceiling_fn(x, cfg, props.multi_processor_count) for cfg in CEILING_GRID}
        for cfg, fn in ceiling.items():
            got = fn().double().sum()
            assert abs(got - ref.sum()) <= 1e-3 * ref.abs().sum() + 1.0, (cfg, got, ref.sum())
        graphs = {str(cfg): graphed(fn) for cfg, fn in ceiling.items()}
        grid_t = bench(graphs, flusher=flushers["write_flush"], budget_ms=40.0 * len(graphs))
        best_cfg = min(grid_t, key=lambda k: grid_t[k].median_ms)
        fns["ceiling"] = ceiling[next(c for c in CEILING_GRID if str(c) == best_cfg)]
        row = {"shape": shape, "bytes": nbytes, "wrong": wrong, "ceiling_config": best_cfg,
               "ceiling_grid_us": {k: round(t.median_ms * 1e3, 2) for k, t in grid_t.items()},
               "us": {}, "gbps": {}}
        replays = {k: graphed(v) for k, v in fns.items()}
        for flush_name, flusher in flushers.items():
            timings = bench(replays, flusher=flusher, budget_ms=150.0 * len(replays))
            row["us"][flush_name] = {k: round(t.median_ms * 1e3, 2) for k, t in timings.items()}
            row["gbps"][flush_name] = {
                k: round((2 * x.numel() * 2 if k == "copy" else nbytes) / (t.median_ms * 1e-3)
                         / 1e9, 1) for k, t in timings.items()}
        result["rows"].append(row)
        print(f"{shape} wrong={wrong} ceiling={best_cfg}", flush=True)
        for flush_name in flushers:
            us, gbps = row["us"][flush_name], row["gbps"][flush_name]
            print(f"  {flush_name:12s} " + "  ".join(f"{k} {us[k]:.1f}us {gbps[k]:.0f}GB/s"
                                                    for k in us), flush=True)
    out = ROOT / "bench" / "results" / "runs" / f"read-bandwidth-{device_label()}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
