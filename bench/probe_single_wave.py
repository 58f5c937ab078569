"""Linear + LayerNorm's small call on the GPU: its GEMM group's single-wave companion by tile.

At tokens=1000, d_in=1024, d_out=3000 the composed candidate's GEMM (a Linear with its bias in
the epilogue) has 96 of DEFAULT's 128x256 tiles for an H100's 132 SMs, so the launcher routes it
to TILED's kernels (one program per tile). This probe renders that group (the plan's own template
and context) with each given GEMM config, unrouted, and times as CUDA-graph replays, interleaved
and L2-flushed (verifier.timing): each GEMM alone beside the bare cuBLAS `F.linear`, and the
whole composed call (that GEMM, then the plan's LayerNorm group at its served start) beside eager
PyTorch and `torch.compile`. Every callable's output is checked against the float32 reference
first. Writes bench/results/probe-single-wave-<device>.json (`us`: "gemm" and "call" times) and
prints a table.

    python bench/probe_single_wave.py [--out DIR]
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
from templates.gemm import TILED  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible  # noqa: E402

SHAPE = {"tokens": 1000, "d_in": 1024, "d_out": 3000}
# TILED and the tiles that round 157 timed fastest at gelu(linear) of this shape
# (runs/gemm-configs-h100-single-wave-round157.json): 128x128 through pointers and descriptors
VARIANTS = {
    "tiled_128x256": {},
    "128x128_ptr": dict(BLOCK_N=128),
    "128x128_tma": dict(BLOCK_N=128, use_tma=True),
    "128x256_tma": dict(use_tma=True),
    "256x128_tma": dict(BLOCK_M=256, BLOCK_N=128, use_tma=True),
    "128x128_tma_split2": dict(BLOCK_N=128, use_tma=True, EPILOGUE_SPLIT=2),
    # DEFAULT's persistent descriptor kernel, unrouted (a program per SM, 96 of them with a tile)
    "persistent_128x256": dict(persistent=1, use_tma=True, EPILOGUE_SPLIT=2, flatten=True),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_single_wave.py needs a CUDA GPU: it measures time")
    device = torch.device("cuda")
    task = tasks.load(ROOT / "tasks" / "linear_layer_norm.py")
    task.apply_shape(SHAPE)
    found = plan(task)
    composite = found.composite
    if composite is None:
        sys.exit("linear + LayerNorm now plans as one GEMM with a row norm (bench/"
                 "probe_gemm_norm.py); this probe timed its composed plan (GPU rounds 157-158)")
    (gemm, gemm_context), (norm, norm_context) = composite.groups
    torch.manual_seed(0)
    with torch.device(device):
        model = task.make_model()
        inputs = task.make_inputs()
    model = model.to(device, torch.bfloat16).eval()
    (x,) = [t.to(device, torch.bfloat16) for t in inputs]
    weight, bias = model.proj.weight, model.proj.bias
    cache = Path(tempfile.mkdtemp())
    norm_module = load_candidate(norm.render(composite.menus[1][0], **norm_context), cache)
    norm_model = norm_module.ModelNew()
    norm_model.load_state_dict(model.state_dict(), strict=False, assign=True)
    norm_model = norm_model.to(device)
    with torch.no_grad():
        want_linear = F.linear(x.float(), weight.float(), bias.float())
        want = model.float()(x.float())
        model = model.to(torch.bfloat16)
        compiled = torch.compile(model, dynamic=False)
        gemms, calls, errors = {}, {}, {}
        for name, knobs in VARIANTS.items():
            cfg = dataclasses.replace(TILED, **knobs)
            module = load_candidate(gemm.render(cfg, **gemm_context), cache)
            gemm_model = module.ModelNew()
            gemm_model.load_state_dict(model.state_dict(), strict=False, assign=True)
            gemm_model = gemm_model.to(device)
            out = gemm_model(x)
            errors[name] = float((out.float() - want_linear).norm() / want_linear.norm())
            gemms[name] = (lambda m: lambda: m(x))(gemm_model)
            calls[name] = (lambda m: lambda: norm_model(m(x)))(gemm_model)
            full = calls[name]()
            errors[name + "+norm"] = float((full.float() - want).norm() / want.norm())
        gemms["cublas"] = lambda: F.linear(x, weight, bias)
        calls["eager"] = lambda: model(x)
        calls["compile"] = lambda: compiled(x)
        bad = {k: v for k, v in errors.items() if not v < 2e-2}
        if bad:
            sys.exit(f"wrong outputs, not timed: {bad}")
        flusher = L2Flusher(device)
        timed = {}
        for what, group in (("gemm", gemms), ("call", calls)):
            fns, failed = graphed_where_possible(group)
            if failed:
                sys.exit(f"could not capture: {failed}")
            times = bench(fns, flusher=flusher, budget_ms=400.0, rounds=5)
            timed[what] = {k: round(t.median_ms * 1e3, 2) for k, t in times.items()}
    for what, group in timed.items():
        for name, us in group.items():
            print(f"{what} {name:18} {us:7.2f} us")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-single-wave-{device_label()}.json"
    path.write_text(json.dumps({
        "what": "linear + LayerNorm 1000x1024->3000: the GEMM group's tiles (unrouted) alone "
                "beside cuBLAS F.linear, and the composed call beside eager and torch.compile; "
                "CUDA-graph replays, L2 flushed, medians in us",
        "environment": environment(), "shape": SHAPE, "dtype": "bfloat16",
        "variants": {k: dataclasses.asdict(dataclasses.replace(TILED, **v))
                     for k, v in VARIANTS.items()},
        "rel_l2_err": errors, "us": timed}, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
