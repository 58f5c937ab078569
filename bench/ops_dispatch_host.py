"""Host microseconds per eager call of `kernel_zoo.ops` at small, launch-bound shapes, beside
PyTorch's own op: what the dispatch costs the host (zoo look-up cached per signature, launcher,
output layout). Run it twice in one device call, once per kernel_zoo tree, to compare two trees:

    python bench/ops_dispatch_host.py LABEL OUT.json     # appends this tree's rows under LABEL

Each case: 300 warm-up calls, then the median over 7 repeats of 2000 back-to-back calls (no
synchronization inside a repeat; the GPU work per call is a few microseconds, so the host's time
is what the wall clock sees), with torch's op timed the same way beside it.
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

import kernel_zoo
from kernel_zoo import ops

REPEATS, CALLS, WARM = 7, 2000, 300


def _cases():
    dev, bf = "cuda", torch.bfloat16
    x = torch.randn(64, 1024, device=dev, dtype=bf)
    w = torch.randn(1024, device=dev, dtype=bf)
    r = torch.randn(64, 1024, device=dev, dtype=bf)
    a, b = torch.randn(64, 1024, device=dev, dtype=bf), torch.randn(64, 1024, device=dev, dtype=bf)
    lw = torch.randn(1024, 1024, device=dev, dtype=bf)
    return [
        ("softmax", lambda: ops.softmax(x, -1), lambda: torch.softmax(x, -1)),
        ("sum", lambda: ops.sum(x, -1), lambda: torch.sum(x, -1)),
        ("amax", lambda: ops.amax(x, -1), lambda: torch.amax(x, -1)),
        ("rms_norm", lambda: ops.rms_norm(x, (1024,), w, 1e-6),
         lambda: F.rms_norm(x, (1024,), w, 1e-6)),
        ("add_rms_norm", lambda: ops.add_rms_norm(x, r, w),
         lambda: F.rms_norm(x + r, (1024,), w, 1e-6)),
        ("swiglu", lambda: ops.swiglu(a, b), lambda: F.silu(a) * b),
        ("linear", lambda: ops.linear(x, lw), lambda: F.linear(x, lw)),
    ]


def _host_us(fn) -> float:
    for _ in range(WARM):
        fn()
    torch.cuda.synchronize()
    runs = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(CALLS):
            fn()
        torch.cuda.synchronize()
        runs.append((time.perf_counter() - start) / CALLS * 1e6)
    return statistics.median(runs)


def main() -> None:
    label, out = sys.argv[1], Path(sys.argv[2])
    from verifier.environment import environment

    data = json.loads(out.read_text()) if out.exists() else {
        "benchmark": "ops_dispatch_host", "environment": environment(),
        "method": __doc__.strip().splitlines()[-3:], "rows": []}
    with torch.no_grad():
        for name, ours, torchs in _cases():
            row = {"tree": label, "kernel_zoo": str(Path(kernel_zoo.__file__).parent),
                   "op": name, "shape": [64, 1024], "dtype": "bfloat16",
                   "ops_host_us": round(_host_us(ours), 2),
                   "torch_host_us": round(_host_us(torchs), 2)}
            data["rows"].append(row)
            print(json.dumps(row))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    main()
