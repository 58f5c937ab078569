"""Does where a tensor lies in memory move a persistent-grid norm kernel by 30%? (one GPU run)

Rounds 356-360 timed layer_norm 1.18.0's stored bfloat16 file (a persistent grid of 8 programs
per SM over 4097-wide rows) at 4096x4097 at 67.5-68.1 us in four harnesses and at 46.7-47.1 us
in bench/memory_bound.py's table, twice; add_rms_norm 1.22.0's at 78.0 against 55.1. The
kernels, grids and arguments were the same; what a long table run changes is where its tensors
lie. This probe times the same file (and, for contrast, layer_norm 1.21.0's align_edges file and
torch.compile) with x placed at several offsets into one large buffer (offsets that keep 16-byte
alignment; the outputs stay where each CUDA graph's pool puts them), as CUDA-graph replays with
the verifier's timer (L2 discarded before each call, interleaved). A spread near 30% across placements would
explain the disagreement; a spread of a few percent rules placement out.
Writes bench/results/runs/probe-norm-placement-<device>.json.

    python bench/probe_norm_placement.py [OUT_DIR]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from probe_norm_paths import stored_source  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed  # noqa: E402

ROWS, COLS = 4096, 4097
# element offsets of x into one buffer: 0, 2 MiB, 32 MiB + 4 KiB,
# 96 MiB + 64 KiB, 160 MiB + 1 KiB, in bfloat16 elements (all multiples of 8: 16-byte aligned)
OFFSETS = (0, 1 << 20, (16 << 20) + 2048, (48 << 20) + 32768, (80 << 20) + 512)


def main() -> int:
    if not torch.cuda.is_available():
        print("probe_norm_placement.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    device = torch.device("cuda")
    dtype = torch.bfloat16
    flusher = L2Flusher(device)
    env = environment()
    cache = Path(tempfile.mkdtemp())
    files = {label: load_candidate(stored_source("layer_norm", version, env["arch"], "bfloat16",
                                                 "cols_le_16384", env["gpu"])[1], cache)
             for label, version in (("persistent-1.18.0", "1.18.0"), ("edges-1.21.0", "1.21.0"))}
    n = ROWS * COLS
    pool = torch.empty(OFFSETS[-1] + n, dtype=dtype, device=device)
    torch.manual_seed(0)
    source = torch.randn(ROWS, COLS, device=device).to(dtype) * 2.0 + 3.0
    weight = (1.0 + 0.5 * torch.randn(COLS, device=device)).to(dtype)
    bias = (0.5 * torch.randn(COLS, device=device)).to(dtype)
    expected = torch.nn.functional.layer_norm(source.float(), (COLS,), weight.float(),
                                              bias.float(), 1e-5)
    record = {"benchmark": "probe-norm-placement", "environment": env, "shape": [ROWS, COLS],
              "dtype": "bfloat16", "offsets_elements": list(OFFSETS),
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved); x a view into one buffer at each offset",
              "rows": []}
    for offset in OFFSETS:
        x = pool[offset:offset + n].view(ROWS, COLS)
        x.copy_(source)
        fns = {label: (lambda m: lambda: m.launch_layer_norm(x, (COLS,), weight, bias, 1e-5))(m)
               for label, m in files.items()}
        fns["compile"] = torch.compile(
            lambda: torch.nn.functional.layer_norm(x, (COLS,), weight, bias, 1e-5), dynamic=False)
        with torch.no_grad():
            for label, fn in fns.items():
                err = ((fn().float() - expected).norm() / expected.norm()).item()
                if not err < 1e-2:
                    print(f"{label} wrong at offset {offset}: {err:.2e}", flush=True)
                    return 1
            timed = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher,
                          budget_ms=300.0, rounds=5)
        us = {k: t.median_ms * 1e3 for k, t in timed.items()}
        record["rows"].append({"x_offset_elements": offset, "x_ptr_mod_2mib":
                               x.data_ptr() % (2 << 20), "us": us})
        print(f"offset {offset}: " + ", ".join(f"{k} {v:.1f} us" for k, v in us.items()),
              flush=True)
    for label in list(files) + ["compile"]:
        times = [r["us"][label] for r in record["rows"]]
        record.setdefault("spread", {})[label] = max(times) / min(times)
    print("spread (slowest over fastest placement):", record["spread"])
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "bench" / "results" / "runs"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"probe-norm-placement-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
