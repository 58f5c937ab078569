"""Host time of a composed conv tail's launch, direct against through Triton's JIT, on a GPU.

A tail launcher's recipe launches a repeated call through the compiled kernel's own launcher
(`_direct` in templates/tail.py.jinja) instead of `kernel[grid](...)`, which binds and specializes
every argument again. For each composed conv task at each task shape (bfloat16, the plan's
composite with the config given): host microseconds per call of eager PyTorch, of the composed
module, and of the composed module with the direct launches switched off
(`verifier.timing.host_us`); and the three timed together by the verifier's timer (L2 flushed,
interleaved, median). Writes bench/results/probe-tail-launch-<device>.json.

    python bench/probe_tail_launch.py [--tasks conv_bn_relu,...]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, host_us  # noqa: E402

# the configs the round 49 searches picked (bench/results/runs/compose-h100-round49.json)
TASKS = {"conv_bn_relu": {"g0_config": 20}, "conv_pool_sigmoid_sum": {"g0_config": 0},
         "conv_relu_bias_mean": {"g0_config": 0}}


def _without_direct(module) -> None:
    """Every recorded recipe of `module`'s tail launchers loses its direct launch."""
    for name, table in vars(module).items():
        if name.endswith("_RECIPES") and isinstance(table, dict):
            for key, recipe in list(table.items()):
                table[key] = (*recipe[:-1], None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default=",".join(TASKS))
    args = parser.parse_args()
    device, dtype = torch.device("cuda"), torch.bfloat16
    flusher = L2Flusher(device)
    cache = Path(tempfile.mkdtemp(prefix="kzoo-probe-tail-"))
    rows = []
    for name in args.tasks.split(","):
        task = tasks.load(ROOT / "tasks" / f"{name}.py")
        found = plan(task)
        template = found.template_object()
        source = template.render(template.config(TASKS[name]), **found.context)
        direct = load_candidate(source, cache / "direct")
        jit = load_candidate(source + "\n# the JIT launch path\n", cache / "jit")
        for shape in task.shapes:
            task.apply_shape(shape)
            torch.manual_seed(0)
            with torch.device(device):
                model = task.make_model().to(dtype).eval()
                inputs = [t.to(dtype) for t in task.make_inputs()]
                ours = {k: m.ModelNew(*task.module.get_init_inputs())
                        for k, m in (("composed", direct), ("composed_jit", jit))}
            state = {k: v.detach() for k, v in model.state_dict().items()}
            with torch.no_grad():
                want = model(*inputs).float()
                for k, m in ours.items():
                    m.load_state_dict(state, strict=False, assign=True)
                    got = m(*inputs).float()  # the first call records the recipe
                    torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)
            _without_direct(jit)
            fns = {"eager": lambda: model(*inputs),
                   "composed": lambda: ours["composed"](*inputs),
                   "composed_jit": lambda: ours["composed_jit"](*inputs)}
            with torch.no_grad():
                hosts = {k: round(host_us(f, calls=200), 1) for k, f in fns.items()}
                times = bench(fns, flusher=flusher)
            row = {"task": name, "shape": shape, "params": TASKS[name], "host_us": hosts,
                   "ms": {k: round(t.median_ms, 4) for k, t in times.items()}}
            rows.append(row)
            print(json.dumps(row), flush=True)
    out = ROOT / "bench" / "results" / f"probe-tail-launch-{device_label()}.json"
    out.write_text(json.dumps({
        "benchmark": "probe_tail_launch", "environment": environment(),
        "date": time.strftime("%Y-%m-%d"), "dtype": "bfloat16",
        "method": ("host_us: 200 back-to-back calls, GPU left to run behind; ms: verifier.timing."
                   "bench, L2 flushed before each call, the three interleaved, median"),
        "rows": rows}, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
