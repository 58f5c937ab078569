"""The GEMM's output store by vector width, on the GPU: Linear + bias at rows of 3000 elements.

The gemm kernels take N and the output's strides in units of C_UNIT elements (`_output_unit`):
the widest vector, at most 16 bytes, that N aligns to, so that Triton can prove a store at
N = 3000 (bf16) 16-byte aligned. This probe renders linear + LayerNorm's GEMM group (the Linear
and its bias, without the norm) with each config and caps the unit at 1, 2, 4 and 8 elements (1:
what Triton sees of N = 3000 without the unit, each thread storing 2 bytes at a time), or lets
the launcher choose (`launcher`: the widest but one that makes 32 vectors of a store's row), at
1000x1024->3000 (96 tiles of 128x256 for 132 SMs), at 1000x1024->4096 (rows of a multiple of 16
elements, which Triton proves aligned by itself: the kernels cap the store's vectors at the unit
with `tl.max_contiguous`) and at 4000x1024->3000 (several waves). Round 171's run (in
runs/) had 1000x1024->3008 in place of 4096, before that cap, and no `launcher` column. Each
call is timed as CUDA-graph replays, interleaved, L2 flushed (verifier.timing), beside the
cuBLAS `F.linear`, after its output is checked against the float32 reference. Writes
bench/results/probe-gemm-store-<device>.json and prints a table.

    python bench/probe_gemm_store.py [--out DIR]
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

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates import get_template  # noqa: E402
from templates.gemm import TILED  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible  # noqa: E402
from probe_gemm_norm import linear_bias_context  # noqa: E402  (bench/ is the script's folder)

SHAPES = ((1000, 1024, 3000), (1000, 1024, 4096), (4000, 1024, 3000))
CONFIGS = {
    "tiled": TILED,
    "tiled_split2": dataclasses.replace(TILED, EPILOGUE_SPLIT=2),
    "tiled_split4": dataclasses.replace(TILED, EPILOGUE_SPLIT=4),
    "128x128": dataclasses.replace(TILED, BLOCK_N=128),
    "128x256_tma": dataclasses.replace(TILED, use_tma=True),
}
UNITS = (1, 2, 4, 8, None)  # None: the launcher's own choice


def _capped(module, cap: int | None):
    """`module` with its output unit the widest that aligns, capped at `cap` elements (None: the
    module's own choice, `_output_unit`)."""
    if cap is not None:
        module._output_unit = lambda c3, cols: min(cap, module._unit(
            (c3.shape[2],), c3.data_ptr(), c3.element_size()))
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_gemm_store.py needs a CUDA GPU: it measures time")
    device = torch.device("cuda")
    found = plan(tasks.load(ROOT / "tasks" / "linear_layer_norm.py"))
    context = linear_bias_context(found)
    gemm = get_template("gemm")
    cache = Path(tempfile.mkdtemp())
    sources = {name: gemm.render(cfg, **context) for name, cfg in CONFIGS.items()}
    flusher = L2Flusher(device)
    rows, notes = [], []
    for m, k, n in SHAPES:
        label = f"{m}x{k}x{n}"
        torch.manual_seed(0)
        x = torch.randn(m, k, device=device, dtype=torch.bfloat16)
        w = torch.randn(n, k, device=device, dtype=torch.bfloat16) / k ** 0.5
        b = torch.randn(n, device=device, dtype=torch.bfloat16)
        want = F.linear(x.float(), w.float(), b.float())
        calls = {"cublas": lambda: F.linear(x, w, b)}
        units = {}
        for name, source in sources.items():
            for cap in UNITS:
                module = _capped(load_candidate(source, cache), cap)
                key = f"{name}/unit{cap}" if cap else f"{name}/launcher"
                units[key] = module._output_unit(
                    torch.empty(1, m, n, device=device, dtype=torch.bfloat16),
                    module.BLOCK_N // module.EPILOGUE_SPLIT)
                calls[key] = (lambda mod: lambda: mod.launch_linear_layer_norm(x, w, b))(module)
        errors = {}
        for key, fn in list(calls.items()):
            out = fn()
            torch.cuda.synchronize()
            errors[key] = float((out.float() - want).norm() / want.norm())
            if not errors[key] < 1e-2:
                notes.append(f"{label}/{key}: wrong output (rel err {errors[key]:.3g}), not timed")
                calls.pop(key)
        fns, failed = graphed_where_possible(calls)
        notes += [f"{label}: not graphed: {f}" for f in failed]
        times = bench(fns, flusher=flusher, budget_ms=600.0, rounds=5)
        us = {key: round(t.median_ms * 1e3, 2) for key, t in times.items()}
        rows.append({"shape": {"M": m, "K": k, "N": n}, "us": us, "unit": units,
                     "rel_l2_err": errors})
        for key, t in us.items():
            print(f"{label} {key:22} {t:8.2f} us  unit {units.get(key, '-')}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-gemm-store-{device_label()}.json"
    path.write_text(json.dumps({
        "what": "Linear + bias (bf16) by GEMM config and output unit cap (the widest store, in "
                "elements, Triton may prove aligned); beside cuBLAS F.linear. CUDA-graph "
                "replays, L2 flushed, medians in us",
        "environment": environment(), "dtype": "bfloat16",
        "configs": {k: dataclasses.asdict(v) for k, v in CONFIGS.items()},
        "rows": rows, "notes": notes}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
