"""Does where a CUDA graph's output lies set its time? (GPU)

GPU round 450 found graphs of one and the same call reading up to 2.7% apart (up to 8% at 7-12 us
rows), each graph's time its own in either call order (`bench/probe_graph_twins.py`,
`runs/probe-graph-twins-h200-round450.json`). What differs between two graphs of one call is
where the caching allocator put each graph's outputs (every capture gets a private memory pool).
This probe writes eager PyTorch ops into outputs at chosen addresses, so that only the address
changes, and times them as the tables do (`verifier.timing.bench`, the L2 emptied before each
call, calls interleaved):

- `pages`: `torch.sum` (float32 4096x4097, a 16 KiB output) and `torch.amax` (bfloat16 4099x1000,
  8 KiB) into outputs 2 MiB apart, one graph each; then 4 graphs of the first address (a control:
  if the address sets the time, these read alike), twice in other orders.
- `in_page`: the sum into outputs 256 KiB apart inside one 2 MiB page.
- `no_graph`: the sum, and the amax, at 2 MiB steps launched directly under the verifier's timer
  (`host_ahead`), which times no graphs.
- `big_output`: `torch.neg` of the 4096x4097 float32 input (a 64 MiB output) at 2 MiB steps.
- `pools`: the sum, allocating its own output, captured three times as the tables capture (a pool
  each), and three times into one shared pool with each output released before the next capture,
  so that all three write the same address. The same for the table's float32 mean at 4096x4097,
  the zoo's call and torch.compile's in turn (0.983x `torch.compile` in the standing).

    python bench/probe_graph_placement.py [--out bench/results/runs] [--parts pages_amax,...]

Writes <out>/probe-graph-placement-<device>.json (with --parts, -<parts> before .json).
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

PAGE = 2 << 20
PARTS = ("pages_sum", "pages_amax", "same_address_sum", "in_page_sum", "no_graph_sum",
         "no_graph_amax", "big_output_neg", "pools_sum", "pools_mean_zoo_compile")


def _us(timed: dict) -> dict:
    return {name: round(t.median_ms * 1e3, 3) for name, t in timed.items()}


def spread(times: dict) -> float:
    return round(max(times.values()) / min(times.values()), 4)


class Pool:
    """One large byte buffer; `at(offset, shape, dtype)` is a contiguous view at that offset."""

    def __init__(self, nbytes: int):
        self.buf = torch.empty(nbytes, dtype=torch.uint8, device="cuda")

    def at(self, offset: int, shape: tuple, dtype: torch.dtype) -> torch.Tensor:
        n = torch.Size(shape).numel() * torch.empty((), dtype=dtype).element_size()
        return self.buf[offset:offset + n].view(dtype).view(shape)


def timed_twice(fns: dict, flusher: L2Flusher, host_ahead: bool = False) -> dict:
    """Times `fns` in their order and reversed: each name's two medians."""
    first = _us(bench(fns, flusher=flusher, budget_ms=400.0, rounds=5, host_ahead=host_ahead))
    second = _us(bench(dict(reversed(list(fns.items()))), flusher=flusher, budget_ms=400.0,
                       rounds=5, host_ahead=host_ahead))
    return {name: [first[name], second[name]] for name in fns}


def at_offsets(op, x, out_shape, dtype, offsets, pool: Pool, flusher: L2Flusher,
               graphs: bool = True) -> dict:
    fns = {}
    for off in offsets:
        out = pool.at(off, out_shape, dtype)
        fns[f"{off >> 10}K"] = (lambda out=out: op(x, out))
    if not graphs:
        return timed_twice(fns, flusher, host_ahead=True)
    return timed_twice({name: captured(fn)[0] for name, fn in fns.items()}, flusher)


def pools(calls: dict, flusher: L2Flusher) -> dict:
    """Each of `calls` captured three times in turn with a pool a graph ("own"), then three times
    in turn into one shared pool, each output released before the next capture ("shared")."""
    graphs, where = {}, {}
    for i in range(3):
        for label, call in calls.items():
            graphs[f"{label}_own{i}"], out = captured(call)
            where[f"{label}_own{i}"] = hex(first_output_address(out))
            del out
    shared = torch.cuda.graph_pool_handle()
    for i in range(3):
        for label, call in calls.items():
            graphs[f"{label}_shared{i}"], out = captured(call, shared)
            where[f"{label}_shared{i}"] = hex(first_output_address(out))
            del out  # released: the next capture in this pool takes the same blocks
    return {"us": timed_twice(graphs, flusher), "output_address": where}


def mean_calls() -> dict:
    """The table's float32 mean at 4096x4097: the zoo's call and torch.compile's."""
    task = tasks.load(ROOT / "tasks" / "mean.py")
    shape = {"batch": 1, "rows": 4096, "cols": 4097, "reduce_dim": 2}
    model, inputs = task_case(task, shape, DTYPES["float32"], torch.device("cuda"))
    zoo = zoo_call(task.op, plan(task).context, model, inputs)
    compiled = torch.compile(model, dynamic=False)
    return {"zoo": zoo, "compile": lambda: compiled(*inputs)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "runs")
    parser.add_argument("--parts", default="", help="comma-separated parts to run (default all)")
    args = parser.parse_args(argv)
    wanted = [p for p in args.parts.split(",") if p]
    unknown = sorted(set(wanted) - set(PARTS))
    if unknown:
        print(f"unknown parts {unknown}; choose from {list(PARTS)}", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("bench/probe_graph_placement.py needs a CUDA GPU", file=sys.stderr)
        return 2
    flusher = L2Flusher(torch.device("cuda"))
    torch.manual_seed(0)
    x32 = torch.randn(4096, 4097, device="cuda")
    x16 = torch.randn(4099, 1000, device="cuda", dtype=torch.bfloat16)
    pool = Pool(80 * PAGE)
    page_steps = [k * PAGE for k in range(16)]

    def sum_(x, out):
        return torch.sum(x, dim=1, out=out)

    def amax_(x, out):
        return torch.amax(x, dim=1, out=out)

    def neg_(x, out):
        return torch.neg(x, out=out)

    result = {"what": __doc__.split("\n\n")[0], "environment": environment(),
              "pool_address": hex(pool.buf.data_ptr()), "input_address": {
                  "sum": hex(x32.data_ptr()), "amax": hex(x16.data_ptr())}}
    parts = {
        "pages_sum": lambda: at_offsets(sum_, x32, (4096,), torch.float32, page_steps, pool,
                                        flusher),
        "pages_amax": lambda: at_offsets(amax_, x16, (4099,), torch.bfloat16, page_steps, pool,
                                         flusher),
        "same_address_sum": lambda: timed_twice(
            {f"copy{i}": captured(lambda: sum_(x32, pool.at(0, (4096,), torch.float32)))[0]
             for i in range(4)}, flusher),
        "in_page_sum": lambda: at_offsets(sum_, x32, (4096,), torch.float32,
                                          [k * (256 << 10) for k in range(8)], pool, flusher),
        "no_graph_sum": lambda: at_offsets(sum_, x32, (4096,), torch.float32, page_steps[:8],
                                           pool, flusher, graphs=False),
        "no_graph_amax": lambda: at_offsets(amax_, x16, (4099,), torch.bfloat16, page_steps,
                                            pool, flusher, graphs=False),
        "big_output_neg": lambda: at_offsets(neg_, x32, (4096, 4097), torch.float32,
                                             [k * PAGE for k in range(8)], pool, flusher),
        "pools_sum": lambda: pools({"sum": lambda: torch.sum(x32, dim=1)}, flusher),
        "pools_mean_zoo_compile": lambda: pools(mean_calls(), flusher),
    }
    assert tuple(parts) == PARTS
    parts = {name: part for name, part in parts.items() if not wanted or name in wanted}
    for name, part in parts.items():
        with torch.no_grad():
            got = part()
        times = got["us"] if "us" in got else got
        firsts = {k: v[0] for k, v in times.items()}
        seconds = {k: v[1] for k, v in times.items()}
        result[name] = {"us": got, "spread_first": spread(firsts),
                        "spread_second": spread(seconds)}
        print(f"{name}: spread {spread(firsts)} / {spread(seconds)} | "
              + " ".join(f"{k} {v[0]}/{v[1]}" for k, v in times.items()), flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    suffix = "-" + "-".join(wanted) if wanted else ""
    path = args.out / f"probe-graph-placement-{device_label()}{suffix}.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    print("wrote", path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
