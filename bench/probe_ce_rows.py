"""What limits cross-entropy's row kernel at 4099x50257? (one GPU run)

In round 139's table the served rows_gt_1024 config read 4099x50257 bfloat16 logits at 0.85 of the
copy bandwidth and 4096x128256 at 0.97. This probe times the cross_entropy template, for the served
params and for variants of them (`VARIANTS`: flat spans in rounds 143-144, rows read from 128-byte
line starts in round 150), at shapes that tell the candidate causes apart (`SHAPES`: row length,
rows whose stride breaks 16-byte or 128-byte alignment against aligned ones, the rows past 4096).
Each callable is checked
against F.cross_entropy in float32, then timed as a CUDA-graph replay with the verifier's timer
(L2 discarded before each call, medians, interleaved); the CUDA profiler gives each kernel's share
(the row kernel against the single-program mean). Writes
bench/results/runs/probe-ce-rows-<device>.json.

    python bench/probe_ce_rows.py [--out DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from templates import get_template  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, copy_bandwidth, graphed, kernel_times  # noqa: E402

# (rows, vocabulary): 4099x50257, a neighbour whose rows are 16-byte aligned and one whose rows
# start at 128-byte lines, 4096x128256 and the task's two smaller shapes (round 143 also had
# 4096x50257, 4096x50264, 8192x25128, 2048x100514 and 1024x201028; round 144 8192x25128 and
# 1024x201028)
SHAPES = [(4099, 50257), (4096, 50256), (4096, 50240), (4096, 128256), (1024, 32000),
          (64, 128256)]
SERVED = dict(block=2048, warps=8, num_stages=4, split_per_sm=4, align_rows=True,
              evict_first=False, final_block=1024, final_warps=8, flat_per_sm=0)
# Round 143 timed flat4, flat2, flat8 of 4 warps and flat4 of 1024-wide tiles, round 144 flat3,
# flat3_s3, flat4_w4, flat6_b1024_w4 and flat8_b1024_w4 (the flat kernel's 61-112 registers fit
# 3-8 programs an SM). Round 150: misaligned rows' bodies from 128-byte line starts.
VARIANTS = {"served": {}, "align128": dict(row_align=128),
            "align128_s3": dict(row_align=128, num_stages=3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args()
    device = torch.device("cuda")
    template = get_template("cross_entropy")
    cache = Path(tempfile.mkdtemp(prefix="kzoo-ce-rows-"))
    configs = {name: template.config({**SERVED, **extra}) for name, extra in VARIANTS.items()}
    modules = {name: load_candidate(template.render(cfg, op="cross_entropy", ignore_index=-100,
                                                    params=[]), cache)
               for name, cfg in configs.items()}
    flusher = L2Flusher(device)
    copy = copy_bandwidth(device, flusher)
    record = {"benchmark": "probe-ce-rows", "environment": environment(),
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
                        "each call, CUDA events, medians, interleaved); kernels from the CUDA "
                        "profiler (verifier.timing.kernel_times, same flush)",
              "copy_gbps": copy / 1e9, "dtype": "bfloat16",
              "configs": {k: dataclasses.asdict(v) for k, v in configs.items()}, "rows": []}
    print(f"copy {copy / 1e9:.0f} GB/s", flush=True)
    for n_rows, n_cols in SHAPES:
        gen = torch.Generator(device=device).manual_seed(0)
        logits = torch.randn(n_rows, n_cols, device=device, dtype=torch.bfloat16, generator=gen)
        target = torch.randint(0, n_cols, (n_rows,), device=device, generator=gen)
        ref = F.cross_entropy(logits.float(), target)
        fns, wrong = {}, []
        for name, module in modules.items():
            fn = (lambda m: lambda: m.launch_cross_entropy(logits, target))(module)
            if not torch.allclose(fn().float(), ref, rtol=1e-2, atol=1e-3):
                wrong.append(name)
                continue
            fns[name] = fn
        fns["eager"] = lambda: F.cross_entropy(logits, target)
        kernels = kernel_times(fns, flusher)
        timed = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher, max_reps=100)
        nbytes = logits.numel() * 2 + target.numel() * 8
        row = {"shape": [n_rows, n_cols], "bytes": nbytes, "wrong": wrong,
               "us": {k: t.median_ms * 1e3 for k, t in timed.items()},
               "fraction_of_copy": {k: nbytes / (t.median_ms * 1e-3) / copy
                                    for k, t in timed.items()},
               "kernels_us": kernels}
        record["rows"].append(row)
        print(f"{n_rows}x{n_cols}: " + ", ".join(
            f"{k} {row['us'][k]:.1f} us ({row['fraction_of_copy'][k]:.3f})" for k in row["us"])
            + (f"; wrong: {wrong}" if wrong else ""), flush=True)
        for name in ("served", "align128"):
            if name in kernels:
                print(f"    {name}: " + ", ".join(f"{k[:24]} {v:.1f}" for k, v in
                                                  kernels[name].items()), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-ce-rows-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
