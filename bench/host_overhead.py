"""Host time per call of rendered kernels at small shapes, beside the GPU time and PyTorch's own.

When a kernel's launch takes the host longer than the GPU takes to run the work queued before it,
the GPU waits and the wait shows up in every timing, ours and the verifier's. This script measures,
on one GPU, for each case: the GPU time (the verifier's timer), the host microseconds per call
(back-to-back calls, no synchronization inside the loop), and the functions the host spends those
microseconds in (cProfile, top entries). Writes bench/results/host-overhead-<device>.json.

    python bench/host_overhead.py [--composed]    # --composed: the composed cases alone
    python bench/host_overhead.py --rerender      # shipped reduce/softmax kernels against the
                                                  # same params rendered by today's template
    python bench/host_overhead.py --rerender=geglu,swiglu    # the same for the ops named

`--rerender` (GPU round 97): the reduce and softmax templates now launch a repeated call through
the compiled kernel's own launcher (`_launch` in templates/_model.jinja), as norm and pointwise
did; the shipped entries were rendered before. For each bfloat16 config of the newest sum, amax,
softmax and log_softmax entries, at the smallest shape its verdict recorded: the shipped module
against today's render of the same params, and eager PyTorch, in one run.
"""

from __future__ import annotations

import cProfile
import dataclasses
import io
import json
import pstats
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import attention as attention_bench  # noqa: E402
from compose import at_shape  # noqa: E402
import gemm as gemm_bench  # noqa: E402
from templates import get_template  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, host_us  # noqa: E402

CALLS = 300


def profile(fn, top: int = 24) -> list[str]:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(CALLS):
        fn()
    prof.disable()
    torch.cuda.synchronize()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(top)
    lines = [ln for ln in out.getvalue().splitlines() if ln.strip()]
    start = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls"))
    return lines[start:start + top + 1]


# the plans' candidates at their defaults (composites; LayerNorm + GELU one norm kernel since
# round 89, linear + LayerNorm one GEMM with a row norm since round 169) at their tasks' small
# GPU shapes, where the round-61 searches measured the same kernels 22-128 us: host-bound
COMPOSED = (("linear_layer_norm", {"tokens": 1000, "d_in": 1024, "d_out": 3000}, {}),
            # the same with its GEMM reading through pointers, not the two descriptors a call
            # builds on the host
            ("linear_layer_norm", {"tokens": 1000, "d_in": 1024, "d_out": 3000},
             {"use_tma": False}),
            # with the companions of the search's seeds: 1000 rows take TILED's kernels
            ("linear_layer_norm", {"tokens": 1000, "d_in": 1024, "d_out": 3000},
             {"skinny_rows": 128, "odd_tiled": True, "single_wave_tiled": True}),
            ("layer_norm_gelu", {"tokens": 4099, "hidden": 1000}, {}))


def composed_cases(cache: Path):
    import tasks
    from agent.plan import plan
    from verifier.core import load_candidate

    device = torch.device("cuda")
    for name, shape, g0_changes in COMPOSED:
        task = tasks.load(ROOT / "tasks" / f"{name}.py")
        found = plan(task)
        template = found.template_object()
        cfg = template.default
        if g0_changes and found.partition is None:  # one template (linear + LayerNorm since
            cfg = dataclasses.replace(cfg, **g0_changes)  # its row norm): its start, changed
        elif g0_changes:  # group 0 at its start, changed
            first, *rest = template.menus[0]
            menu = (dataclasses.replace(first, **g0_changes), *rest)
            template = dataclasses.replace(template, menus=(menu, *template.menus[1:]))
        module = load_candidate(template.render(cfg, **found.context), cache)
        model, ours, inputs = at_shape(task, module, shape, torch.bfloat16, device)
        label = f"{name} {json.dumps(shape)}" + (f" g0 {json.dumps(g0_changes)}" if g0_changes else "")
        yield (label, (lambda ours=ours, inputs=inputs: ours(*inputs)),
               {"eager Model": (lambda model=model, inputs=inputs: model(*inputs))})


RERENDER_OPS = ("sum", "amax", "softmax", "log_softmax")


def _bytes_at(task, shape: dict) -> int:
    task.apply_shape(shape)
    return task.formula_value("bytes", 2) or 0


def rerender_cases(cache: Path, ops=RERENDER_OPS):
    import tasks
    from agent.plan import plan
    from kernel_zoo import store
    from verifier.core import load_candidate

    device = torch.device("cuda")
    for op in ops:
        entry = store.newest_entries(op)[0]
        for config in entry.manifest["configs"]:
            if config["dtype"] != "bfloat16":
                continue
            task = tasks.load(ROOT / "tasks" / f"{config['task']['name']}.py")
            found = plan(task)
            template = found.template_object()
            now = load_candidate(template.render(template.config(config["params"]),
                                                 **found.context), cache)
            shipped = store.load_kernel(entry.path, config, entry.manifest)
            shapes = [row["shape"] for row in config["verdict"]["shapes"]]
            shape = min(shapes, key=lambda sh: _bytes_at(task, sh))
            model, old, inputs = at_shape(task, shipped, shape, torch.bfloat16, device)
            _, new, _ = at_shape(task, now, shape, torch.bfloat16, device)
            label = f"{op} {entry.version} [{config['shape_bucket']}] {json.dumps(shape)}"
            yield (label, (lambda new=new, inputs=inputs: new(*inputs)),
                   {"shipped": (lambda old=old, inputs=inputs: old(*inputs)),
                    "eager Model": (lambda model=model, inputs=inputs: model(*inputs))})


def cases(cache: Path):
    device = torch.device("cuda")
    skinny = next(c for c in gemm_bench.CASES if c.name == "skinny_128x4096x4096")
    setup = gemm_bench.Setup(skinny, device, smoke=False)
    a, b = setup.operands()
    for label, cfg in (("gemm 128x4096x4096 pointer",
                        dataclasses.replace(gemm_bench.SKINNY_DEFAULT, use_tma=False)),
                       ("gemm 128x4096x4096 tma", gemm_bench.SKINNY_DEFAULT)):
        _, model = setup.candidate(cfg, cache)
        yield label, (lambda model=model: model(*setup.inputs)), {
            "torch.matmul": lambda: torch.matmul(a, b), "eager Model": lambda: setup.model(*setup.inputs)}
    attention = get_template("attention")
    q, k, v = (torch.randn(4, 16, 256, 64, device=device, dtype=torch.bfloat16) for _ in range(3))
    for tma in (False, True):
        cfg = attention.config({**dataclasses.asdict(attention.default), "tma": tma})
        launch = attention_bench.render_launcher(cfg, None, False, cache)
        yield f"attention 4x16x256x64 tma={tma}", (lambda launch=launch: launch(q, k, v)), {
            "sdpa": lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v)}


def main() -> None:
    if not torch.cuda.is_available():
        sys.exit("bench/host_overhead.py measures launches on a CUDA GPU")
    cache = Path(tempfile.mkdtemp(prefix="kzoo-host-"))
    flusher = L2Flusher(torch.device("cuda"))
    rows = []
    only_composed = "--composed" in sys.argv[1:]
    named = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--rerender=")]
    rerender = "--rerender" in sys.argv[1:] or bool(named)
    rerender_ops = tuple(op for a in named for op in a.split(",") if op) or RERENDER_OPS
    with torch.no_grad():
        for label, fn, baselines in (composed_cases(cache) if only_composed
                                     else rerender_cases(cache, rerender_ops) if rerender
                                     else [*cases(cache), *composed_cases(cache)]):
            fns = {"kernel": fn, **baselines}
            gpu = bench(fns, flusher=flusher, budget_ms=100.0 * len(fns))
            row = {"case": label, "gpu_ms": {k: t.median_ms for k, t in gpu.items()},
                   "host_us": {k: host_us(f, calls=CALLS, warmup=5) for k, f in fns.items()},
                   "profile": profile(fn)}
            rows.append(row)
            print(f"{label:<36} host us/call " + "  ".join(
                f"{k} {v:7.1f}" for k, v in row["host_us"].items()) + "   gpu ms " + "  ".join(
                f"{k} {v:.4f}" for k, v in row["gpu_ms"].items()), flush=True)
            print("\n".join("    " + ln for ln in row["profile"]), flush=True)
    suffix = ("-composed" if only_composed else "-rerender-" + "-".join(rerender_ops) if named
              else "-rerender" if rerender else "")
    out = ROOT / "bench" / "results" / f"host-overhead-{device_label()}{suffix}.json"
    out.write_text(json.dumps({"benchmark": "host_overhead", "environment": environment(),
                               "calls": CALLS, "rows": rows}, indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
