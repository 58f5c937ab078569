"""What does torch.compile generate for the memory-bound rows where the zoo trails it, and what
does a copy of the same bytes take there? (one GPU run)

After GPU round 353 (interleaved timer, H200) the rows behind torch.compile by more than 1% are
argmax float32 4099x1000 (0.947x), mean float32 4096x4097 (0.987x), RMSNorm float32 16384x8192
(0.988x; bench/probe_inductor_norm.py covers it) and GeGLU float32 16x16384 (0.988x), and the
large float32 rows under 90% of the copy bandwidth include softmax at 1024x32768 (0.89) and
256x128256 (0.76) and residual add + RMSNorm at 4096x4097 (0.78). For each case this probe
writes down Inductor's Triton source and launch dims (grid, block, registers from a profiler
trace) beside the zoo's, and times, as CUDA-graph replays with the verifier's timer (L2
discarded before each call, interleaved): the zoo's op as a user calls it, eager, torch.compile
(default mode, dynamic=False, as bench/memory_bound.py) and `copy`, a device copy moving as many
bytes as the case's byte formula (half read, half written). The copy column separates what the
size costs (launch, ramp-up, the last wave) from what the kernel costs: bench/memory_bound.py's
yardstick is a 1 GiB copy, whose fixed costs are spread over 16x more bytes.
Writes bench/results/runs/probe-inductor-rows-<device>.json.

    python bench/probe_inductor_rows.py [--cases TASK:DTYPE:KEY=VALUE,... ...]
        (e.g. --cases argmax:float32:rows=4099,cols=1000,reduce_dim=2)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from memory_bound import DTYPES, task_case, zoo_call  # noqa: E402
from probe_inductor_glu import launch_dims  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, copy_bandwidth, graphed  # noqa: E402

DEFAULT_CASES = (
    "argmax:float32:rows=4099,cols=1000,reduce_dim=2",
    "mean:float32:rows=4096,cols=4097,reduce_dim=2",
    "geglu:float32:rows=16,cols=16384",
    "softmax:float32:batch_size=1024,dim=32768",
    "softmax:float32:batch_size=256,dim=128256",
    "add_rms_norm:float32:tokens=4096,hidden=4097",
)


def parse_case(text: str) -> tuple[str, str, dict]:
    """'task:dtype:key=value,...' -> (task, dtype, the shape keys it names)."""
    try:
        task, dtype, keys = text.split(":")
        shape = {k: int(v) for k, v in (item.split("=") for item in keys.split(",") if item)}
    except ValueError:
        raise SystemExit(f"probe_inductor_rows.py: bad case {text!r}; "
                         "write it as task:dtype:key=value,... (e.g. mean:float32:rows=4096)")
    if dtype not in DTYPES:
        raise SystemExit(f"probe_inductor_rows.py: unknown dtype {dtype!r} in {text!r}")
    return task, dtype, shape


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", default=list(DEFAULT_CASES))
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args()
    cases = [parse_case(c) for c in args.cases]
    if not torch.cuda.is_available():
        print("probe_inductor_rows.py: needs a CUDA GPU (run it on the device machine)",
              file=sys.stderr)
        return 2
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.config.cache_size_limit = 256
    device = torch.device("cuda")
    flusher = L2Flusher(device)
    record = {"benchmark": "probe-inductor-rows", "environment": environment(),
              "copy_gbps_1gib": copy_bandwidth(device, flusher) / 1e9,
              "method": "CUDA-graph replays timed by verifier.timing.bench (L2 discarded before "
              "each call, medians, interleaved); launch dims from a profiler trace of one call; "
              "compile = torch.compile(Model), default mode, dynamic=False, as "
              "bench/memory_bound.py; copy = dst.copy_(src) of float32 buffers moving the case's "
              "bytes (half read, half written)", "rows": []}
    for task_name, dtype_name, want in cases:
        task = tasks.load(ROOT / "tasks" / f"{task_name}.py")
        shape = next((s for s in task.shapes if all(s.get(k) == v for k, v in want.items())),
                     None)
        if shape is None:
            print(f"{task_name}: no shape of the task has {want}; skipped", flush=True)
            continue
        found = plan(task)
        dtype = DTYPES[dtype_name]
        itemsize = torch.empty((), dtype=dtype).element_size()
        model, inputs = task_case(task, shape, dtype, device)
        nbytes = task.formula_value("bytes", itemsize)
        src = torch.empty(nbytes // 8, dtype=torch.float32, device=device).uniform_()
        dst = torch.empty_like(src)
        zoo = zoo_call(task.op, found.context, model, inputs)
        torch._dynamo.reset()
        compiled = torch.compile(model, dynamic=False)
        with torch.no_grad():
            _, sources = run_and_get_code(compiled, *inputs)
            expected = model(*inputs)
            for name, fn in (("zoo", zoo), ("compile", lambda: compiled(*inputs))):
                got = fn()
                got, exp = (got[0], expected[0]) if isinstance(got, tuple) else (got, expected)
                if got.is_floating_point():
                    err = ((got.float() - exp.float()).norm() / exp.float().norm()).item()
                    ok = err < 1e-2
                else:
                    ok = torch.equal(got, exp)
                if not ok:
                    print(f"{name} wrong at {task_name} {shape} {dtype_name}", flush=True)
                    return 1
            fns = {"zoo": zoo, "eager": lambda: model(*inputs),
                   "compile": lambda: compiled(*inputs), "copy": lambda: dst.copy_(src)}
            dims = {k: launch_dims(fns[k]) for k in ("zoo", "compile")}
            timed = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher,
                          budget_ms=400.0, rounds=5)
        us = {k: t.median_ms * 1e3 for k, t in timed.items()}
        gbps = {k: nbytes / (v * 1e3) for k, v in us.items()}
        row = {"task": task_name, "dtype": dtype_name, "shape": dict(shape), "bytes": nbytes,
               "us": us, "gbps": gbps,
               "fraction_of_copy_1gib": {k: v / record["copy_gbps_1gib"] for k, v in gbps.items()},
               "fraction_of_same_size_copy": {k: us["copy"] / v for k, v in us.items()},
               "launches": dims, "inductor_sources": sources}
        record["rows"].append(row)
        print(f"{task_name} {dtype_name} {shape}: "
              + ", ".join(f"{k} {v:.2f} us ({gbps[k]:.0f} GB/s)" for k, v in us.items())
              + f"; zoo/compile {us['compile'] / us['zoo']:.3f}x", flush=True)
        for k, launches in dims.items():
            print(f"    {k}: {launches}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-inductor-rows-{device_label()}.json"
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
