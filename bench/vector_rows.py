"""Norm and softmax kernels at row widths of 8k but not 16k elements, with and without `_unit`.

Triton marks an int argument as 16-divisible or not at all, so rows of 1000 or 3000 bf16 elements
(16-byte aligned, 8-element multiples) were read and written 2 bytes at a time until the norm and
softmax launchers passed widths and strides divided by their `_unit` (templates/_model.jinja), as
the reduce and cross-entropy launchers already did. One GPU run, bfloat16: for each op and shape,
today's render of the config that serves the shape (the newest zoo entry's config for its bucket,
else the template's DEFAULT) against the same module with `_unit` forced to 1 (the launch before
the change), eager PyTorch and torch.compile; each output checked against a float64 reference
first. Timed by the verifier's timer (L2 flushed before each run, CUDA events, medians, callables
interleaved) and as CUDA-graph replays (the GPU's work alone). Writes
bench/results/vector-rows-<device>.json.

    python bench/vector_rows.py [--ops layer_norm,softmax] [--out bench/results]
"""

from __future__ import annotations

import argparse
import importlib.util
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
from kernel_zoo import buckets, store  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, copy_bandwidth, graphed_where_possible  # noqa: E402

OPS = ("layer_norm", "rms_norm", "add_rms_norm", "softmax", "log_softmax")
# (rows, cols): two widths of 8k-not-16k elements, and a 16k one as the control (unit 8 either way)
SHAPES = ((4099, 1000), (1000, 3000), (4096, 1024))
EPS = 1e-6


def _load(source: str, folder: Path, name: str):
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _calls(op: str, module, x, r, w, b):
    n = x.shape[-1]
    if op == "layer_norm":
        return lambda: module.launch_layer_norm(x, (n,), w, b, EPS)
    if op == "rms_norm":
        return lambda: module.launch_rms_norm(x, (n,), w, EPS)
    if op == "add_rms_norm":
        return lambda: module.launch_add_rms_norm(x, r, w, EPS)
    if op == "softmax":
        return lambda: module.launch_softmax(x, -1)
    return lambda: module.launch_log_softmax(x, -1)


def _reference(op: str, x, r, w, b):
    n = x.shape[-1]
    if op == "layer_norm":
        return F.layer_norm(x, (n,), w, b, EPS)
    if op == "rms_norm":
        return F.rms_norm(x, (n,), w, EPS)
    if op == "add_rms_norm":
        s = x + r
        return F.rms_norm(s, (n,), w, EPS), s
    if op == "softmax":
        return torch.softmax(x, -1)
    return torch.log_softmax(x, -1)


def _rel_err(out, ref) -> float:
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    return max(((o.double() - e).norm() / e.norm()).item() for o, e in zip(outs, refs))


def _bytes(op: str, x) -> int:
    moved = {"add_rms_norm": 4}.get(op, 2) * x.numel() * x.element_size()
    return moved + (x.shape[-1] * x.element_size() * (2 if op == "layer_norm" else 1)
                    if "norm" in op else 0)


def run(ops: list[str], out_dir: Path) -> dict:
    if not torch.cuda.is_available():
        sys.exit("bench/vector_rows.py needs a CUDA GPU: it measures time")
    torch._dynamo.config.cache_size_limit = 64
    device = torch.device("cuda")
    env = environment()
    flusher = L2Flusher(device)
    copy_gbps = copy_bandwidth(device, flusher) / 1e9
    rows = []
    folder = Path(tempfile.mkdtemp(prefix="vector-rows-"))
    for op in ops:
        found = plan(tasks.load(ROOT / "tasks" / f"{op}.py"))
        template = found.template_object()
        for n_rows, n_cols in SHAPES:
            bucket = buckets.bucket_of(op, (n_rows, n_cols), -1 if "softmax" in op else None)
            entry = store.find_config(op, env["arch"], "bfloat16", bucket=bucket,
                                      device=env["gpu"])
            if entry is not None:
                manifest, config, _ = entry
                cfg = template.config(config["params"])
                served = {"version": manifest["version"], "bucket": config["shape_bucket"]}
            else:
                cfg, served = template.default, None
            source = template.render(cfg, **found.context)
            tag = f"{op}_{n_rows}x{n_cols}"
            unit = _load(source, folder, f"{tag}_unit")
            no_unit = _load(source, folder, f"{tag}_no_unit")
            no_unit._unit = lambda values, data_ptr, itemsize: 1  # the launch before the change
            torch.manual_seed(0)
            x = torch.randn(n_rows, n_cols, device=device).to(torch.bfloat16)
            r = torch.randn(n_rows, n_cols, device=device).to(torch.bfloat16)
            w = (1 + 0.1 * torch.randn(n_cols, device=device)).to(torch.bfloat16)
            b = (0.1 * torch.randn(n_cols, device=device)).to(torch.bfloat16)
            ref = _reference(op, x.double(), r.double(), w.double(), b.double())
            eager = lambda op=op, x=x, r=r, w=w, b=b: _reference(op, x, r, w, b)  # noqa: E731
            compiled = torch.compile(eager, dynamic=False)
            fns = {"unit": _calls(op, unit, x, r, w, b), "no_unit": _calls(op, no_unit, x, r, w, b),
                   "eager": eager, "compile": compiled}
            errors = {name: _rel_err(fn(), ref) for name, fn in fns.items()}
            times = bench(fns, flusher=flusher, budget_ms=600.0, rounds=5)
            replays, capture_failed = graphed_where_possible(fns)
            graph_times = bench(replays, flusher=flusher, budget_ms=600.0, rounds=5)
            nbytes = _bytes(op, x)
            row = {"op": op, "dtype": "bfloat16", "shape": [n_rows, n_cols], "bucket": bucket,
                   "config": dict(vars(cfg)), "zoo_entry": served, "bytes": nbytes,
                   "rel_l2_err": errors, "graph_capture_failed": capture_failed}
            for label, timed in (("timer", times), ("graphs", graph_times)):
                row[label] = {name: {"ms": t.median_ms, "p20_ms": t.p20_ms, "p80_ms": t.p80_ms,
                                     "n": t.n, "gbps": nbytes / (t.median_ms * 1e-3) / 1e9}
                              for name, t in timed.items()}
                ms = {name: t.median_ms for name, t in timed.items()}
                row[label]["unit_vs_no_unit"] = ms["no_unit"] / ms["unit"]
                row[label]["unit_vs_eager"] = ms["eager"] / ms["unit"]
                row[label]["unit_vs_compile"] = ms["compile"] / ms["unit"]
            rows.append(row)
            g = row["graphs"]
            print(f"{op:13s} {n_rows:5d}x{n_cols:<5d} unit {g['unit']['ms'] * 1e3:7.1f} us  "
                  f"no-unit {g['no_unit']['ms'] * 1e3:7.1f}  eager {g['eager']['ms'] * 1e3:7.1f}  "
                  f"compile {g['compile']['ms'] * 1e3:7.1f}  (graphs; timer: unit "
                  f"{row['timer']['unit_vs_compile']:.2f}x compile, "
                  f"{row['timer']['unit_vs_no_unit']:.2f}x no-unit)  err "
                  f"{errors['unit']:.1e}", flush=True)
    result = {
        "benchmark": "vector_rows",
        "environment": env,
        "copy_gbps": copy_gbps,
        "method": "verifier timer (L2 flushed before each run, CUDA events, medians, callables "
                  "interleaved over 5 rounds) and the same as CUDA-graph replays; outputs checked "
                  "against a float64 reference first; 'no_unit' is the same render with _unit "
                  "forced to 1",
        "rows": rows,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"vector-rows-{device_label()}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default=",".join(OPS), help="comma-separated, from " + ",".join(OPS))
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"), help="results folder")
    args = parser.parse_args()
    ops = [o.strip() for o in args.ops.split(",") if o.strip()]
    unknown = [o for o in ops if o not in OPS]
    if unknown:
        parser.error(f"unknown ops {unknown}; choose from {', '.join(OPS)}")
    run(ops, Path(args.out))


if __name__ == "__main__":
    main()
