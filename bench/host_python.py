"""Host Python per launch, no GPU needed: each task's default kernel with its Triton kernels
replaced by no-ops, called on CPU tensors, so what is timed is the launcher's own Python (shape
checks, grid and block arithmetic, views, the output allocation), not Triton's launch or the GPU.

Each launcher is timed twice in the same process: as rendered (the plain `_cdiv`/`_next_pow2`
host helpers) and with those helpers swapped back to triton.cdiv/triton.next_power_of_2, which
are constexpr functions in recent Triton; also the helpers alone. Medians of 5 repeats of
2000 calls. Writes bench/results/host-python-<device>.json.

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
         "swiglu", "argmax", "sum", "matmul_skinny", "linear_bias_gelu", "sdpa")
CALLS, REPEATS = 2000, 5


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


def launcher(name: str, cache: Path):
    task = tasks.load(ROOT / "tasks" / f"{name}.py")
    found = plan(task)
    template = found.template_object()
    module = load_candidate(template.render(template.default, **found.context), cache)
    for attr, value in list(vars(module).items()):
        if type(value).__name__ in ("JITFunction", "InterpretedFunction"):
            setattr(module, attr, _NoLaunch())
    task.apply_shape(task.cpu_shapes[0])
    torch.manual_seed(0)
    model = task.make_model()
    inputs = task.make_inputs()
    new = module.ModelNew(*task.module.get_init_inputs())
    new.load_state_dict(model.state_dict(), strict=False, assign=True)
    return module, (lambda: new(*inputs)), task.cpu_shapes[0]


def main() -> None:
    cache = Path(tempfile.mkdtemp(prefix="kzoo-host-python-"))
    helpers = {
        "triton.cdiv": per_call_us(lambda: triton.cdiv(4099, 128)),
        "triton.next_power_of_2": per_call_us(lambda: triton.next_power_of_2(4099)),
    }
    rows = []
    with torch.no_grad():
        for name in TASKS:
            module, fn, shape = launcher(name, cache)
            if "_cdiv" not in helpers:  # the rendered helpers, timed once
                helpers["_cdiv"] = per_call_us(lambda: module._cdiv(4099, 128))
                helpers["_next_pow2"] = per_call_us(lambda: module._next_pow2(4099))
            plain = per_call_us(fn)
            module._cdiv, module._next_pow2 = triton.cdiv, triton.next_power_of_2
            with_triton = per_call_us(fn)
            rows.append({"task": name, "shape": shape, "us_per_call": plain,
                         "us_per_call_with_triton_helpers": with_triton})
            print(f"{name:<18} {plain:7.1f} us per call   with triton's helpers {with_triton:7.1f} us",
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
