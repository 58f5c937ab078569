"""gelu(linear(x, W, b)) at odd sizes: the gemm template's default config as the launcher runs it
(rows that are not a multiple of 16 elements go to descriptor loads, tma_plan), the same config
held to pointer loads (rows padded to 16 elements by `_aligned`, and unpadded), the use_tma config
and 128 x 128 tiles, beside eager PyTorch, for a K (and row stride) of 1000 against 1024 and an N
of 3073 against 3072. Writes bench/results/gemm-odd-<device>.json.

    python bench/gemm_odd.py [OUT_DIR]
"""

from __future__ import annotations

import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import gemm as G  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench  # noqa: E402

SHAPES = [(4099, 1000, 3073), (4096, 1000, 3072), (4099, 1024, 3073), (4096, 1024, 3072)]
CONFIGS = {"default": G.DEFAULT, "tiled": G.TILED,
           "tiled_tma": dataclasses.replace(G.TILED, use_tma=True),
           "128x128": dataclasses.replace(G.TILED, BLOCK_N=128, num_stages=4),
           # DEFAULT less one knob at a time: which one odd rows pay for (round 39: DEFAULT took
           # 0.146 ms at 4099x1000->3073 against TILED's 0.097)
           # (round 40, runs/gemm-odd-h100-round40.json: at 4099 rows each of DEFAULT less one
           # knob was 0.13-0.27 ms): TILED plus one knob at a time
           "tiled_persistent": dataclasses.replace(G.TILED, persistent=1, use_tma=True),
           "tiled_pers_flatten": dataclasses.replace(G.TILED, persistent=1, flatten=True,
                                                     use_tma=True),
           "tiled_two_slices": dataclasses.replace(G.TILED, EPILOGUE_SPLIT=2),
           "tiled_fit": dataclasses.replace(G.TILED, gelu_erf_fit=True),
           "tiled_two_slices_fit": dataclasses.replace(G.TILED, EPILOGUE_SPLIT=2,
                                                       gelu_erf_fit=True)}


def candidate(setup, cfg, cache: Path, pointers: str):
    """setup.candidate's (module, ModelNew); `pointers` "padded" or "unpadded": a module of its own
    held to the pointer kernel (and, unpadded, with its pad-copy switched off), to time what the
    descriptor route and the copy buy."""
    module, model = setup.candidate(cfg, cache, variant=f"pointer loads, {pointers}"
                                    if pointers else "")
    if pointers:
        module.tma_plan = lambda a3, b3: "held to pointer loads by bench/gemm_odd.py"
    if pointers == "unpadded":
        module._aligned = lambda t3: t3
    return module, model


def main() -> None:
    if not torch.cuda.is_available():
        sys.exit("bench/gemm_odd.py times kernels on a CUDA GPU")
    device = torch.device("cuda")
    cache = Path(tempfile.mkdtemp(prefix="kzoo-odd-"))
    flusher = L2Flusher(device)
    rows = []
    for tokens, fin, fout in SHAPES:
        shape = {"tokens": tokens, "in_features": fin, "out_features": fout}
        setup = G.Setup(G.Case("odd", "linear_bias_gelu", shape, "bfloat16", "fused"), device,
                        smoke=False)
        fns = {"eager": lambda s=setup: s.model(*s.inputs)}
        row = {"shape": shape, "dtype": "bfloat16", "correct": {}, "tma_path": {}}
        variants = [(name, cfg, "") for name, cfg in CONFIGS.items()]
        variants += [("tiled_pointers_padded", G.TILED, "padded"),
                     ("tiled_pointers_unpadded", G.TILED, "unpadded")]
        for name, cfg, pointers in variants:
            module, model = candidate(setup, cfg, cache, pointers)
            row["correct"][name] = setup.check(model)["ok"]
            row["tma_path"][name] = setup.tma_path(module)
            if row["correct"][name]:  # never timed before it is correct
                fns[name] = lambda m=model, s=setup: m(*s.inputs)
        with torch.no_grad():
            timings = bench(fns, flusher=flusher, budget_ms=60.0 * len(fns))
        row["ms"] = {k: t.median_ms for k, t in timings.items()}
        row["speedup_vs_eager"] = {k: row["ms"]["eager"] / v for k, v in row["ms"].items()
                                   if k != "eager"}
        rows.append(row)
        print(f"{tokens}x{fin}->{fout}  " + "  ".join(f"{k} {v:.4f} ms" for k, v in
                                                     row["ms"].items()), flush=True)
    out = Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "bench" / "results")
    out = out / f"gemm-odd-{device_label()}.json"
    out.write_text(json.dumps({"benchmark": "gemm_odd", "environment": environment(),
                               "configs": {k: dataclasses.asdict(v) for k, v in CONFIGS.items()},
                               "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
