"""Host Python per launch, no GPU needed: each task's default kernel with its Triton kernels
replaced by no-ops, called on CPU tensors, so what is timed is the launcher's own Python (shape
checks, grid and block arithmetic, views, the output allocation), not Triton's launch or the GPU.

Each launcher is timed at each of its task's cpu shapes (and the GEMM at 128 x 4096 x 4096, whose
rows need no padding), in the same process: as rendered (the plain `_cdiv`/`_next_pow2` host
helpers); with those helpers swapped back to triton.cdiv/triton.next_power_of_2, which are
constexpr functions in recent Triton; and, for launchers with launch recipes (the GEMM, the
fused tail, composites holding them), with the recipes switched off (every call takes the
first-call path). Also the helpers alone. Medians of 5 repeats of 2000
calls. Writes bench/results/host-python-<device>.json.

    python bench/host_python.py
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch
import triton

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402

TASKS = ("softmax", "log_softmax", "rms_norm", "add_rms_norm", "layer_norm", "cross_entropy",
         "swiglu", "argmax", "sum", "matmul_skinny", "linear_bias_gelu", "sdpa",
         "conv_bn_relu", "conv_relu_bias_mean")  # the last two: composites, a conv and a tail
EXTRA_SHAPES = {"matmul_skinny": [{"M": 128, "N": 4096, "K": 4096}]}
CALLS, REPEATS = 2000, 5


class _Forgetful(dict):
    """A recipe table that never has the recipe: every GEMM call takes the first-call path."""

    def get(self, key, default=None):
        return default


class _NoLaunch:
    """Stands in for a JITFunction: `kernel[grid](...)` returns at once."""

    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


def per_call_us(fn) -> float:
    for _ in range(50):
        fn()
    runs = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(CALLS):
            fn()
        runs.append((time.perf_counter() - start) / CALLS * 1e6)
    return statistics.median(runs)


def launchers(name: str, cache: Path):
    """(module, call, shape) per shape: a freshly loaded module each, kernels stubbed out."""
    task = tasks.load(ROOT / "tasks" / f"{name}.py")
    found = plan(task)
    template = found.template_object()
    source = template.render(template.default, **found.context)
    for i, shape in enumerate([*task.cpu_shapes, *EXTRA_SHAPES.get(name, [])]):
        module = load_candidate(source + f"\n# host_python: shape {i}\n", cache)
        for attr, value in list(vars(module).items()):
            if type(value).__name__ in ("JITFunction", "InterpretedFunction"):
                setattr(module, attr, _NoLaunch())
        task.apply_shape(shape)
        torch.manual_seed(0)
        model = task.make_model()
        inputs = task.make_inputs()
        new = module.ModelNew(*task.module.get_init_inputs())
        new.load_state_dict(model.state_dict(), strict=False, assign=True)
        yield module, (lambda new=new, inputs=inputs: new(*inputs)), shape


def main() -> None:
    cache = Path(tempfile.mkdtemp(prefix="kzoo-host-python-"))
    helpers = {
        "triton.cdiv": per_call_us(lambda: triton.cdiv(4099, 128)),
        "triton.next_power_of_2": per_call_us(lambda: triton.next_power_of_2(4099)),
    }
    rows = []
    with torch.no_grad():
        for name in TASKS:
            for module, fn, shape in launchers(name, cache):
                if "_cdiv" not in helpers:  # the rendered helpers, timed once
                    helpers["_cdiv"] = per_call_us(lambda: module._cdiv(4099, 128))
                    helpers["_next_pow2"] = per_call_us(lambda: module._next_pow2(4099))
                row = {"task": name, "shape": shape, "us_per_call": per_call_us(fn)}
                # a launcher's recipe table: `_RECIPES`, or `_g0__RECIPES` in a composite
                tables = [a for a, v in vars(module).items()
                          if a.endswith("_RECIPES") and isinstance(v, dict)]
                if tables:
                    recipes = {a: getattr(module, a) for a in tables}
                    for a in tables:
                        setattr(module, a, _Forgetful())
                    row["us_per_call_without_recipes"] = per_call_us(fn)
                    for a, table in recipes.items():
                        setattr(module, a, table)
                    row["recipe_taken"] = all(len(t) > 0 for t in recipes.values())
                module._cdiv, module._next_pow2 = triton.cdiv, triton.next_power_of_2
                row["us_per_call_with_triton_helpers"] = per_call_us(fn)
                rows.append(row)
                print(f"{name:<18} {json.dumps(shape):<50} " + "  ".join(
                    f"{k.replace('us_per_call', 'us')} {v:.1f}" if isinstance(v, float)
                    else f"{k} {v}" for k, v in row.items() if k not in ("task", "shape")),
                    flush=True)
    print("  ".join(f"{k} {v:.2f} us" for k, v in helpers.items()))
    out = ROOT / "bench" / "results" / f"host-python-{device_label()}.json"
    out.write_text(json.dumps({
        "benchmark": "host_python", "environment": environment(),
        "method": ("launcher Python per call, Triton kernels replaced by no-ops, CPU tensors at "
                   f"each task's first cpu shape; median of {REPEATS} x {CALLS} calls"),
        "helpers_us": helpers, "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
