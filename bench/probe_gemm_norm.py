"""Linear + LayerNorm as one GEMM with a row-norm epilogue, on the GPU, by tile config.

The plan of tasks/linear_layer_norm.py is one gemm template with `row_norm`: where a call's
tiles fit one wave (at most one per SM) the GEMM, its bias and the LayerNorm run in one
cooperative launch whose tiles exchange row statistics through a barrier (`_gemm_norm_kernel`);
elsewhere the GEMM writes its output and `_row_norm_kernel` normalizes it. For each shape this
probe renders the plan with each config and times, as CUDA-graph replays (interleaved, L2 flushed,
verifier.timing), the fused call, the same config forced onto the two-kernel path, the GEMM
without the norm at the template's DEFAULT (no companions: its persistent kernel) followed by
kernel_zoo.ops.layer_norm, eager PyTorch and torch.compile; the GEMMs alone beside cuBLAS; and two
timing-only edits of TILED's fused kernel (DIAGNOSTICS). Every output is checked against the
float32 reference first, and the chosen configs go through the verifier (every GPU shape, seed
and dtype of the task). Writes
bench/results/probe-gemm-norm-<device>.json and prints a table.

    python bench/probe_gemm_norm.py [--out DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import traceback
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from templates import get_template  # noqa: E402
from templates.gemm import DEFAULT, TILED  # noqa: E402
from verifier.core import Verifier, load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed_where_possible, kernel_times  # noqa: E402

SHAPES = ({"tokens": 1000, "d_in": 1024, "d_out": 3000},
          {"tokens": 8192, "d_in": 4096, "d_out": 4096})
# configs whose tiles fit one wave at the small shape (96 tiles for 132 SMs), and the plan's
# seeds (DEFAULT with its companions: the single-wave route takes TILED's tiles)
VARIANTS = {
    "seed0": dataclasses.replace(DEFAULT, skinny_rows=128, odd_tiled=True,
                                 single_wave_tiled=True, fuse_norm=True),
    "tiled_128x256x64_s3": dataclasses.replace(TILED, fuse_norm=True),
    "128x256x64_s4": dataclasses.replace(TILED, num_stages=4, fuse_norm=True),
    "256x128x64_s3": dataclasses.replace(TILED, BLOCK_M=256, BLOCK_N=128, fuse_norm=True),
}


DIAGNOSTICS = {
    "tiled_nowait": [("        while arrived < tiles_n:", "        while arrived < 0:")],
    "tiled_nowait_nocombine": [("        while arrived < tiles_n:", "        while arrived < 0:"),
                               ("        j_ok = j < tiles_n", "        j_ok = j < 0")],
}


def _spy(module, label, stats):
    """Records each kernel's registers, spills and shared memory at its first launch through the
    module's `_launch` (and its companions')."""
    for attr in [a for a in dir(module) if a.endswith("_launch") and a.startswith("_")]:
        original = getattr(module, attr)

        def spy(kernel, grid, args, kwargs, original=original):
            if all(not k.startswith(f"{label}/{kernel.__name__}") for k in stats):
                compiled = kernel[grid](*args, **kwargs)
                if compiled is not None:
                    stats[f"{label}/{kernel.__name__}"] = {
                        "regs": compiled.n_regs, "spills": compiled.n_spills,
                        "shared": compiled.metadata.shared}
            return original(kernel, grid, args, kwargs)
        setattr(module, attr, spy)


def linear_bias_context(found) -> dict:
    """linear + LayerNorm's plan context without its row norm: the Linear and its bias (the
    chain's one input, the Linear's two params), rendered as a plain GEMM."""
    context = {**found.context, "inputs": found.context["inputs"][:1],
               "params": found.context["params"][:2]}
    context.pop("row_norm")
    return context


def _forced_unfused(module):
    """`module`'s launcher with norm_plan saying no: the GEMM, then _row_norm_kernel. `module`
    must be a copy of its own: a two-kernel call records its norm launch by the call's signature
    (`_NORM_RECIPES`), which a fused module's later calls of that signature would then take (GPU
    round 177's fused cells of the three configs with such a twin were so timed on two kernels)."""
    def call(*args):
        saved = module.norm_plan
        module.norm_plan = lambda a3, b3: "forced"
        try:
            return module.launch_linear_layer_norm(*args)
        finally:
            module.norm_plan = saved
    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_gemm_norm.py needs a CUDA GPU: it measures time")
    import kernel_zoo

    device = torch.device("cuda")
    gemm = get_template("gemm")
    cache = Path(tempfile.mkdtemp())
    task = tasks.load(ROOT / "tasks" / "linear_layer_norm.py")
    found = plan(task)
    assert found.template == "gemm" and found.context.get("row_norm"), found
    plain_context = linear_bias_context(found)
    plain = load_candidate(gemm.render(found.template_object().default, **plain_context), cache)
    results, errors, notes, compiled_stats = [], {}, [], {}
    flusher = L2Flusher(device)
    for shape in SHAPES:
        task.apply_shape(shape)
        label = "x".join(str(v) for v in shape.values())
        torch.manual_seed(0)
        model = task.make_model().to(device, torch.bfloat16).eval()
        (x,) = [t.to(device, torch.bfloat16) for t in task.make_inputs()]
        p = model.proj
        nw, nb = model.norm.weight, model.norm.bias
        with torch.no_grad():
            want = model.float()(x.float())
            model = model.to(torch.bfloat16)
            compiled = torch.compile(model, dynamic=False)
            calls = {"eager": lambda: model(x), "compile": lambda: compiled(x),
                     "zoo_gemm+zoo_layer_norm": lambda: kernel_zoo.ops.layer_norm(
                         plain.launch_linear_layer_norm(x, p.weight, p.bias),
                         (p.weight.shape[0],), nw, nb)}
            gemms = {"cublas": lambda: F.linear(x, p.weight, p.bias),
                     "zoo_gemm": lambda: plain.launch_linear_layer_norm(x, p.weight, p.bias)}
            plans, diag = {}, {}
            for name, cfg in VARIANTS.items():
                source = gemm.render(cfg, **found.context)
                module = load_candidate(source, cache)
                _spy(module, f"{label}/{name}", compiled_stats)
                route = module._route(x, p.weight) if hasattr(module, "_route") else None
                target = getattr(module, "_tiled_norm_plan", None) if route == "tiled" else None
                a3, b3 = x.reshape(1, *x.shape), p.weight.t().unsqueeze(0)
                plans[name] = (target or module.norm_plan)(a3, b3)
                fused = (lambda m: lambda: m.launch_linear_layer_norm(x, p.weight, p.bias, nw,
                                                                      nb))(module)
                calls[name] = fused
                if plans[name] == "fused" and route is None:
                    calls[name + "/unfused"] = (lambda f: lambda: f(x, p.weight, p.bias, nw,
                                                                    nb))(
                        _forced_unfused(load_candidate(source, cache)))
            for name, fn in list(calls.items()):
                try:
                    out = fn()
                    torch.cuda.synchronize()
                    errors[f"{label}/{name}"] = float((out.float() - want).norm() / want.norm())
                except Exception as exc:  # noqa: BLE001 - recorded, not timed
                    notes.append(f"{label}/{name}: {type(exc).__name__}: {exc}"[:400])
                    traceback.print_exc()
                    calls.pop(name)
            # timing-only variants of TILED's fused kernel (outputs wrong by design): without
            # the wait, and without the wait and the combine
            base = gemm.render(VARIANTS["tiled_128x256x64_s3"], **found.context)
            for name, edits in DIAGNOSTICS.items():
                edited = base
                for old, new in edits:
                    assert old in edited, old
                    edited = edited.replace(old, new)
                module = load_candidate(edited, cache)
                _spy(module, f"{label}/{name}", compiled_stats)
                diag[name] = (lambda m: lambda: m.launch_linear_layer_norm(x, p.weight, p.bias,
                                                                           nw, nb))(module)
            bad = [k for k in calls if not errors[f"{label}/{k}"] < 2e-2]
            for k in bad:
                notes.append(f"{label}/{k}: wrong output (rel err {errors[f'{label}/{k}']:.3g}), "
                             "not timed")
                calls.pop(k)
            gemm_err = {k: float((f().float() - F.linear(x.float(), p.weight.float(),
                                                         p.bias.float())).norm())
                        for k, f in gemms.items()}
            fns, failed = graphed_where_possible({**calls, **{f"gemm/{k}": f
                                                              for k, f in gemms.items()},
                                                  **{f"diag/{k}": f for k, f in diag.items()}})
            notes += [f"{label}: not graphed: {f}" for f in failed]
            times = bench(fns, flusher=flusher, budget_ms=800.0, rounds=5)
            kernels = kernel_times({k: calls[k] for k in ("eager", "tiled_128x256x64_s3",
                                                           "tiled_128x256x64_s3/unfused")
                                    if k in calls}, flusher)
        row = {"shape": shape, "plans": plans, "gemm_abs_err": gemm_err, "kernels_us": kernels,
               "us": {k: round(t.median_ms * 1e3, 2) for k, t in times.items()}}
        results.append(row)
        for name, us in row["us"].items():
            print(f"{label} {name:28} {us:8.2f} us  {plans.get(name, '')}", flush=True)
        print(json.dumps(kernels, indent=1))
    print(json.dumps(compiled_stats, indent=1))
    verdicts = {}
    verifier = Verifier("gpu", cache / "verify")
    for name in ("seed0", "tiled_128x256x64_s3", "256x128x64_s3"):
        source = gemm.render(VARIANTS[name], **found.context)
        for dtype in task.dtypes:
            verdict = verifier.verify(task, source, dtype, time=False)
            verdicts[f"{name}/{dtype}"] = {"accepted": verdict.accepted,
                                           "reasons": verdict.reasons[:3]}
            print(f"verify {name} {dtype}: {verdict.accepted} {verdict.reasons[:2]}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-gemm-norm-{device_label()}.json"
    path.write_text(json.dumps({
        "what": "linear + LayerNorm as one gemm template with a row-norm epilogue: fused "
                "(one cooperative launch) where the tiles fit one wave, else GEMM + row-norm "
                "kernel; beside the zoo's GEMM + kernel_zoo.ops.layer_norm, eager and "
                "torch.compile. CUDA-graph replays, L2 flushed, medians in us",
        "environment": environment(), "dtype": "bfloat16",
        "variants": {k: dataclasses.asdict(v) for k, v in VARIANTS.items()},
        "rows": results, "rel_l2_err": errors, "notes": notes, "verdicts": verdicts,
        "compiled": compiled_stats, "diagnostics": DIAGNOSTICS},
        indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
