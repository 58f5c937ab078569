"""amax, amin and argmax with and without the reduce template's `packed_keys`, on the GPU.

`packed_keys` reduces a tile with one integer max over order-preserving keys (NaN above +inf, and
for argmax the index packed below the value) instead of a NaN flag, a float max and a first-index
min. Compiled for sm_90 it takes fewer shuffles and barriers (`bench/compile_reduce.py`); this
measures whether that is time. One GPU run, bfloat16: for each op and each shape of its task, the
config that serves the shape (the newest zoo entry's for its bucket, else DEFAULT) rendered with
`packed_keys` off and on, eager PyTorch and torch.compile; every output checked against torch's
first (argmax exactly). Timed by the verifier's timer (L2 flushed before each run, CUDA events,
medians, callables interleaved) and as CUDA-graph replays. Writes
bench/results/packed-keys-<device>.json.

    python bench/packed_keys.py [--ops argmax,amax,amin] [--out bench/results]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import tasks  # noqa: E402
from agent.plan import plan  # noqa: E402
from kernel_zoo import buckets, store  # noqa: E402
from vector_rows import _load  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, copy_bandwidth, graphed_where_possible  # noqa: E402

OPS = ("argmax", "amax", "amin")
TORCH_OPS = {"argmax": torch.argmax, "amax": torch.amax, "amin": torch.amin}


def _same(op: str, got, want) -> bool:
    if op == "argmax":
        return torch.equal(got, want)
    return torch.equal(got.float(), want.float())  # a max or min is one of the inputs: exact


def run(ops: list[str], out_dir: Path) -> dict:
    if not torch.cuda.is_available():
        sys.exit("bench/packed_keys.py needs a CUDA GPU: it measures time")
    torch._dynamo.config.cache_size_limit = 64
    device = torch.device("cuda")
    env = environment()
    flusher = L2Flusher(device)
    copy_gbps = copy_bandwidth(device, flusher) / 1e9
    rows = []
    folder = Path(tempfile.mkdtemp(prefix="packed-keys-"))
    for op in ops:
        task = tasks.load(ROOT / "tasks" / f"{op}.py")
        found = plan(task)
        template = found.template_object()
        for shape in task.shapes:
            dims = (shape["batch"], shape["rows"], shape["cols"])
            dim = shape["reduce_dim"]
            bucket = buckets.bucket_of(op, dims, dim)
            entry = store.find_config(op, env["arch"], "bfloat16", bucket=bucket,
                                      device=env["gpu"])
            if entry is not None:
                manifest, config, _ = entry
                cfg = template.config(config["params"])
                served = {"version": manifest["version"], "bucket": config["shape_bucket"]}
            else:
                cfg, served = template.default, None
            tag = f"{op}_{'x'.join(map(str, dims))}_d{dim}"
            variants = {
                f"packed_{int(packed)}": _load(
                    template.render(dataclasses.replace(cfg, packed_keys=packed),
                                    **found.context), folder, f"{tag}_{int(packed)}")
                for packed in (False, True)}
            torch.manual_seed(0)
            x = torch.randn(dims, device=device).to(torch.bfloat16)
            reference = TORCH_OPS[op]
            eager = lambda x=x, dim=dim, f=reference: f(x, dim)  # noqa: E731
            compiled = torch.compile(eager, dynamic=False)
            launch = f"launch_{op}"
            fns = {name: (lambda m=m, x=x, dim=dim: getattr(m, launch)(x, dim))
                   for name, m in variants.items()}
            fns.update(eager=eager, compile=compiled)
            want = eager()
            correct = {name: _same(op, fn(), want) for name, fn in fns.items()}
            row = {"op": op, "dtype": "bfloat16", "shape": shape, "bucket": bucket,
                   "config": dataclasses.asdict(cfg), "zoo_entry": served, "correct": correct}
            if not all(correct.values()):
                row["skipped"] = "an output differs from torch's: not timed"
                rows.append(row)
                print(f"{tag}: WRONG {correct}", flush=True)
                continue
            task.apply_shape(shape)
            nbytes = task.formula_value("bytes", 2)
            times = bench(fns, flusher=flusher, budget_ms=600.0, rounds=5)
            replays, capture_failed = graphed_where_possible(fns)
            graph_times = bench(replays, flusher=flusher, budget_ms=600.0, rounds=5)
            row.update(bytes=nbytes, graph_capture_failed=capture_failed)
            for label, timed in (("timer", times), ("graphs", graph_times)):
                ms = {name: t.median_ms for name, t in timed.items()}
                row[label] = {name: {"ms": t.median_ms, "p20_ms": t.p20_ms, "p80_ms": t.p80_ms,
                                     "n": t.n} for name, t in timed.items()}
                row[label]["packed_vs_unpacked"] = ms["packed_0"] / ms["packed_1"]
                row[label]["packed_vs_compile"] = ms["compile"] / ms["packed_1"]
                row[label]["unpacked_vs_compile"] = ms["compile"] / ms["packed_0"]
            rows.append(row)
            g = row["graphs"]
            print(f"{tag:28s} unpacked {g['packed_0']['ms'] * 1e3:7.1f} us  packed "
                  f"{g['packed_1']['ms'] * 1e3:7.1f}  eager {g['eager']['ms'] * 1e3:7.1f}  "
                  f"compile {g['compile']['ms'] * 1e3:7.1f}  (graphs; packed "
                  f"{g['packed_vs_unpacked']:.3f}x unpacked, {g['packed_vs_compile']:.3f}x "
                  "compile)", flush=True)
    result = {
        "benchmark": "packed_keys",
        "environment": env,
        "copy_gbps": copy_gbps,
        "method": "verifier timer (L2 flushed before each run, CUDA events, medians, callables "
                  "ordered as environment's call_order says) and the same as CUDA-graph replays; "
                  "outputs checked "
                  "against torch's first; packed_0 / packed_1: the serving config with "
                  "packed_keys off / on",
        "rows": rows,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"packed-keys-{device_label()}.json"
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
