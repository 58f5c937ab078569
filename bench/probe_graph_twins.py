"""How far apart the timer reads CUDA graphs of one and the same call (GPU).

GPU round 450 (`bench/retime_promotions.py`) timed each served kernel file as two graphs, its
own and a twin captured after the file it replaced, and the two read up to 5% apart at some
shapes, the same way in each of five passes (mean float32 at 4096x4097: 19.55 us against 19.09;
amax bfloat16 at 4099x1000: 6.95 against 6.59), mostly the first captured slower. Every table
this project reads its bars from times each callable as one graph, the zoo's captured first
(`bench/memory_bound.py --graphs`), and a bar there is read to 1%.

Per case (a task row of the table), this captures the zoo call and torch.compile's, three graphs
each in alternating order (zoo 0, compile 0, zoo 1, ...), notes where each graph's first output
lies, and times the six together (`verifier.timing.bench`, the L2 emptied before each call, calls
interleaved) twice: in capture order and reversed (another shuffle of the calls). Then it
captures three more zoo graphs after one throwaway graph, and times them with the first three.
Writes <out>/probe-graph-twins-<device>.json.

    python bench/probe_graph_twins.py [--out bench/results/runs]
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
from memory_bound import task_case, zoo_call  # noqa: E402
from verifier.core import DTYPES  # noqa: E402
from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, bench, captured, first_output_address  # noqa: E402

CASES = [  # (task, dtype, shape): rows whose graph twins read apart, and rows behind compile
    ("mean", "float32", {"batch": 1, "rows": 4096, "cols": 4097, "reduce_dim": 2}),
    ("sum", "float32", {"batch": 1, "rows": 4096, "cols": 4097, "reduce_dim": 2}),
    ("amax", "bfloat16", {"batch": 1, "rows": 4099, "cols": 1000, "reduce_dim": 2}),
    ("layer_norm", "float32", {"tokens": 4099, "hidden": 1000}),
    ("softmax_dim1", "float32", {"batch": 8, "channels": 4097, "positions": 257}),
    ("rms_norm", "float32", {"tokens": 16384, "hidden": 8192}),
    ("add_rms_norm", "float32", {"tokens": 16384, "hidden": 8192}),
    ("rms_norm", "float32", {"tokens": 8192, "hidden": 4096}),
]


def capture(fn) -> tuple[object, int]:
    """`fn` captured in a CUDA graph (`verifier.timing.captured`): its replay and its first
    output's address."""
    replay, out = captured(fn)
    return replay, first_output_address(out)


def _us(timed: dict) -> dict:
    return {name: round(t.median_ms * 1e3, 3) for name, t in timed.items()}


def probe(name: str, dtype_name: str, shape: dict, flusher: L2Flusher) -> dict:
    task = tasks.load(ROOT / "tasks" / f"{name}.py")
    found = plan(task)
    model, inputs = task_case(task, shape, DTYPES[dtype_name], torch.device("cuda"))
    with torch.no_grad():
        zoo = zoo_call(task.op, found.context, model, inputs)
        torch._dynamo.reset()
        compiled = torch.compile(model, dynamic=False)
        graphs, where = {}, {}
        for i in range(3):
            for label, fn in (("zoo", zoo), ("compile", lambda: compiled(*inputs))):
                graphs[f"{label}{i}"], where[f"{label}{i}"] = capture(fn)
        in_order = _us(bench(graphs, flusher=flusher, budget_ms=400.0, rounds=5))
        reversed_ = _us(bench(dict(reversed(list(graphs.items()))), flusher=flusher,
                              budget_ms=400.0, rounds=5))
        capture(zoo)  # a throwaway graph, then three more of the zoo call
        later = {f"zoo{i}": graphs[f"zoo{i}"] for i in range(3)}
        for i in range(3, 6):
            later[f"zoo{i}"], where[f"zoo{i}"] = capture(zoo)
        with_later = _us(bench(later, flusher=flusher, budget_ms=400.0, rounds=5))
    row = {"task": name, "dtype": dtype_name, "shape": shape, "input_address": hex(
        inputs[0].data_ptr()), "output_address": {k: hex(v) for k, v in where.items()},
           "us_in_capture_order": in_order, "us_reversed": reversed_,
           "us_six_zoo_graphs": with_later}
    zs, cs = ([in_order[f"{k}{i}"] for i in range(3)] for k in ("zoo", "compile"))
    row["zoo_spread"] = round(max(zs) / min(zs), 4)
    row["compile_spread"] = round(max(cs) / min(cs), 4)
    row["compile0_over_zoo0"] = round(in_order["compile0"] / in_order["zoo0"], 4)
    row["best_compile_over_best_zoo"] = round(min(cs) / min(zs), 4)
    print(f"{name} {dtype_name} {shape}: " + " ".join(f"{k} {v}" for k, v in in_order.items())
          + " | reversed " + " ".join(f"{k} {v}" for k, v in reversed_.items())
          + " | six zoo " + " ".join(f"{k} {v}" for k, v in with_later.items()), flush=True)
    del graphs, later, model, inputs
    torch.cuda.empty_cache()
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("bench/probe_graph_twins.py needs a CUDA GPU", file=sys.stderr)
        return 2
    torch._dynamo.config.cache_size_limit = 64
    flusher = L2Flusher(torch.device("cuda"))
    rows = [probe(name, dtype_name, shape, flusher) for name, dtype_name, shape in CASES]
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"probe-graph-twins-{device_label()}.json"
    path.write_text(json.dumps({"what": __doc__.split("\n\n")[0], "environment": environment(),
                                "rows": rows}, indent=1) + "\n")
    print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
