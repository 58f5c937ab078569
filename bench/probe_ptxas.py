"""Which ptxas assembles the zoo's kernels, and what it costs them (one GPU run).

GPU round 364 found why bench/memory_bound.py read layer_norm 1.18.0's bfloat16 kernel at
4096x4097 in 47 us where every other harness read 68 (rounds 356-360): in the table's process the
kernel had 128 registers a thread, elsewhere 180. torch.compile's first Triton compile in a
process sets TRITON_PTXAS_PATH to the ptxas torch ships (torch/bin/ptxas;
`torch._inductor.runtime.compile_tasks._set_triton_ptxas_path`) unless it is set already, and
every Triton kernel compiled after that, the zoo's included, is assembled by it instead of by the
one Triton ships. The table compiles each row's zoo kernel after the previous rows' torch.compile
ran; the sweep's candidates and the probes were compiled before any.

This probe loads each case's stored kernel file twice as separate modules, compiles one with
Triton's ptxas and one with torch's (TRITON_PTXAS_PATH set around its first call, the Triton
cache bypassed), checks both against float64, and times both beside torch.compile as CUDA-graph
replays with the verifier's timer (L2 discarded before each call, interleaved). Writes
probe-ptxas-<device>.json into the folder given (bench/results/runs by default).

    python bench/probe_ptxas.py [OUT_DIR]
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from kernel_zoo.toolchain import torch_ptxas  # noqa: E402
from memory_bound import _bucket, _check, task_case  # noqa: E402
from probe_inductor_glu import launch_dims  # noqa: E402
from probe_norm_paths import stored_source  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, graphed  # noqa: E402

NORM = {"tokens": 4096, "hidden": 4097}
# (task, dtype, shape, zoo version or None for the newest): the rows rounds 351-364 left behind
# torch.compile or under 90% of copy, and the two stored files the table read 30% faster
CASES = (
    ("layer_norm", "bfloat16", NORM, "1.18.0"),
    ("layer_norm", "bfloat16", NORM, None),
    ("add_rms_norm", "bfloat16", NORM, "1.22.0"),
    ("add_rms_norm", "bfloat16", NORM, None),
    ("add_rms_norm", "float32", {"tokens": 256, "hidden": 65536}, None),
    ("rms_norm", "float32", {"tokens": 16384, "hidden": 8192}, None),
    ("softmax", "float32", {"batch_size": 256, "dim": 128256}, None),
    ("softmax", "float32", {"batch_size": 1024, "dim": 32768}, None),
    ("softmax", "float32", {"batch_size": 4096, "dim": 4097}, None),
    ("log_softmax", "float32", {"batch_size": 256, "dim": 128256}, None),
    ("softmax_dim1", "float32", {"batch": 32, "channels": 1000, "positions": 1024}, None),
    ("cross_entropy", "float32", {"batch_size": 4099, "vocab_size": 50257}, None),
    ("argmax", "float32", {"batch": 1, "rows": 4099, "cols": 1000, "reduce_dim": 2}, None),
    ("mean", "float32", {"batch": 1, "rows": 4096, "cols": 4097, "reduce_dim": 2}, None),
    ("geglu", "float32", {"rows": 16, "cols": 16384}, None),
    ("geglu", "bfloat16", {"rows": 8192, "cols": 16384}, None),
)


def ptxas_paths() -> dict[str, str]:
    """Triton's own ptxas and the one torch ships (where it ships one)."""
    import triton

    paths = {"triton": str(Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas")}
    if (ours := torch_ptxas()) is not None:
        paths["torch"] = str(ours)
    return paths


def ptxas_version(path: str) -> str:
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    found = re.search(r"release (\S+), (V\S+)", out)
    return found.group(0) if found else out.strip()[-80:]


def main() -> int:
    if not torch.cuda.is_available():
        print("probe_ptxas.py: needs a CUDA GPU (run it on the device machine)", file=sys.stderr)
        return 2
    if os.environ.get("TRITON_PTXAS_PATH"):
        print("probe_ptxas.py: run it with TRITON_PTXAS_PATH unset", file=sys.stderr)
        return 2
    device = torch.device("cuda")
    flusher = L2Flusher(device)
    env = environment()
    paths = ptxas_paths()
    record = {"benchmark": "probe-ptxas", "environment": env,
              "ptxas": {k: {"path": v, "version": ptxas_version(v)} for k, v in paths.items()},
              "method": "each stored file loaded as one module per ptxas, compiled with "
              "TRITON_PTXAS_PATH set around its first call (TRITON_ALWAYS_COMPILE=1); CUDA-graph "
              "replays timed by verifier.timing.bench (L2 discarded before each call, medians, "
              "interleaved) beside torch.compile(Model), compiled last; registers from a "
              "profiler trace", "rows": []}
    print(json.dumps(record["ptxas"]), flush=True)
    if "torch" not in paths:
        print("torch ships no ptxas here: nothing to compare", flush=True)
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    cache = Path(tempfile.mkdtemp())
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "bench" / "results" / "runs"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"probe-ptxas-{device_label()}.json"
    for stem, dtype_name, shape, version in CASES:
        task = tasks.load(ROOT / "tasks" / f"{stem}.py")
        dtype = getattr(torch, dtype_name)
        model, inputs = task_case(task, shape, dtype, device)
        bucket = _bucket(task.op, plan(task).context, model, inputs)
        served, source = stored_source(task.op, version, env["arch"], dtype_name, bucket,
                                       env["gpu"])
        state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        init = task.module.get_init_inputs()
        fns, errors = {}, {}
        with torch.no_grad():
            for label, tool in paths.items():
                module = load_candidate(source, cache / label)
                new = module.ModelNew(*init).to(device)
                new.load_state_dict(state, strict=False, assign=True)
                os.environ["TRITON_PTXAS_PATH"] = tool
                try:
                    errors[label] = _check(new(*inputs), model, inputs)
                finally:
                    del os.environ["TRITON_PTXAS_PATH"]
                fns[label] = (lambda n: lambda: n(*inputs))(new)
            dims = {k: launch_dims(v) for k, v in fns.items()}
            torch._dynamo.reset()
            compiled = torch.compile(model, dynamic=False)
            fns["compile"] = lambda: compiled(*inputs)
            timed = bench({k: graphed(v) for k, v in fns.items()}, flusher=flusher,
                          budget_ms=400.0, rounds=5)
            os.environ.pop("TRITON_PTXAS_PATH", None)  # torch.compile set it: unset for the next
        us = {k: t.median_ms * 1e3 for k, t in timed.items()}
        row = {"task": stem, "op": task.op, "dtype": dtype_name, "shape": shape, "bucket": bucket,
               "version": served, "us": us, "rel_l2_err": errors, "launches": dims}
        record["rows"].append(row)
        regs = {k: [d["registers"] for d in v] for k, v in dims.items()}
        print(f"{stem} {dtype_name} {shape} {served}: "
              + ", ".join(f"{k} {v:.1f} us" for k, v in us.items())
              + f"; registers {regs}; err {errors}", flush=True)
        path.write_text(json.dumps(record, indent=1) + "\n")  # each row as it comes
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
