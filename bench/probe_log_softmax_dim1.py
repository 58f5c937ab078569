"""Why log-softmax over dim 1 at 32x1000x1024 float32 reads 0.86 of the copy bandwidth where
softmax, served the same config, reads 0.92 (GPU rounds 222-224). One GPU run: the served
inner-dim kernels of both, and probe-only rewrites of log-softmax's one-pass output line (not
templates: a finding here becomes a template change, tested and tuned), each checked against
float64, timed as CUDA-graph replays under the L2 flush, interleaved, with the compiled column
kernel's registers and spills; and both with the column kernel capped at 64 registers a thread
(`maxnreg`), two programs per SM. Writes bench/results/probe-log-softmax-dim1-<device>.json.

    python bench/probe_log_softmax_dim1.py
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHAPE = (32, 1000, 1024)
ONE_PASS_LOG = "y = (x - col_max[None, :]) - tl.log(total)[None, :]"
REWRITES = {  # name -> (the served source it edits, [(old, new), ...])
    # the row's shift and log-sum folded into one per-column constant (PyTorch's CPU kernel)
    "log_folded": ("log_softmax", [(ONE_PASS_LOG, "y = x - (col_max + tl.log(total))[None, :]")]),
    # the shifted values kept from the exponentials' pass instead of x
    "log_shifted": ("log_softmax", [("        e = tl.exp(x - col_max[None, :])\n",
                                     "        x = x - col_max[None, :]\n        e = tl.exp(x)\n"),
                                    (ONE_PASS_LOG, "y = x - tl.log(total)[None, :]")]),
    # at most 64 registers a thread: two 512-thread programs per SM instead of one (72-77)
    "log_maxnreg64": ("log_softmax", [("ONE_PASS=True,", "ONE_PASS=True, maxnreg=64,")]),
    "softmax_maxnreg64": ("softmax", [("ONE_PASS=True,", "ONE_PASS=True, maxnreg=64,")]),
}


def _served(op: str, version: str) -> dict:
    manifest = json.loads((ROOT / "kernel_zoo" / "entries" / op / version /
                           "manifest.json").read_text())
    return next(c["params"] for c in manifest["configs"]
                if c["dtype"] == "float32" and c["shape_bucket"] == "inner_dim")


def _kernel_stats(module) -> dict:
    """Registers and spills of the column kernel as compiled for this run."""
    fn = module._softmax_columns_kernel
    found = {}
    for cache in getattr(fn, "device_caches", {}).values():
        for compiled in cache[0].values():
            compiled._init_handles()
            found = {"n_regs": compiled.n_regs, "n_spills": compiled.n_spills,
                     "num_warps": compiled.metadata.num_warps}
    return found


def time_rows(fns: dict, rows: dict, x, device, width: int = 20) -> tuple[float, list]:
    """Each callable of `fns` timed as a CUDA-graph replay under the L2 flush, interleaved; its
    time and fraction of the copy bandwidth (reading x and writing as much) added to its row of
    `rows`, and printed with its compile stats. Returns the copy bandwidth (bytes/s) and the
    callables that could not be captured."""
    from verifier.timing import L2Flusher, bench, copy_bandwidth, graphed_where_possible

    fns, failed = graphed_where_possible(fns)
    flusher = L2Flusher(device)
    timings = bench(fns, flusher=flusher, budget_ms=1500.0)
    copy = copy_bandwidth(device, flusher)
    nbytes = 2 * x.numel() * x.element_size()
    for name, timing in timings.items():
        row = rows.setdefault(name, {})
        row.update(us=timing.median_ms * 1e3, fraction_of_copy=nbytes / (timing.median_ms * 1e-3)
                   / copy)
        print(f"{name:{width}s} {row['us']:7.1f} us  {row['fraction_of_copy']:.2f} of copy  "
              f"regs {row.get('n_regs')} spills {row.get('n_spills')}", flush=True)
    return copy, failed


def main() -> int:
    import torch

    from templates import get_template
    from verifier.core import load_candidate
    from verifier.environment import device_label, environment
    if not torch.cuda.is_available():
        print("bench/probe_log_softmax_dim1.py needs a CUDA GPU", file=sys.stderr)
        return 2
    template = get_template("softmax")
    sources = {}
    for op, version, log in (("softmax", "1.19.0", False), ("log_softmax", "1.25.0", True)):
        cfg = template.config(_served(op, version))
        sources[op] = template.render(cfg, op=op, log=log, dim=1, params=[])
    for name, (base, edits) in REWRITES.items():
        source = sources[base]
        for old, new in edits:
            assert source.count(old) == 1, name
            source = source.replace(old, new)
        sources[name] = source
    device = torch.device("cuda")
    x = torch.randn(*SHAPE, device=device) * 4.0
    ref = {False: torch.softmax(x.double(), dim=1), True: torch.log_softmax(x.double(), dim=1)}
    cache = Path(tempfile.mkdtemp())
    fns, rows = {}, {}
    for name, source in sources.items():
        module = load_candidate(source, cache)
        model = module.ModelNew()
        out = model(x)
        want = ref[not name.startswith("softmax")]
        err = ((out.double() - want).norm() / want.norm()).item()
        rows[name] = {"rel_l2_err": err, **_kernel_stats(module)}
        if err < 1e-5:  # a wrong variant is recorded, not timed
            fns[name] = (lambda m=model: m(x))
    fns["eager_log_softmax"] = lambda: torch.log_softmax(x, dim=1)
    copy, failed = time_rows(fns, rows, x, device)
    result = {"probe": "log-softmax over dim 1, float32", "shape": list(SHAPE),
              "environment": environment(), "date": dt.datetime.now(dt.timezone.utc).isoformat(),
              "copy_gbps": copy / 1e9, "graph_capture_failed": failed, "rows": rows}
    out = ROOT / "bench" / "results" / f"probe-log-softmax-dim1-{device_label()}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
