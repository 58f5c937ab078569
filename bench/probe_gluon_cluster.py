"""Could the fused bias+GELU GEMM use what cuBLAS uses? (one GPU run, a few seconds)

Issue #4's last GEMM bar asks 1.10x eager at 8192x8192x4096, so the fused kernel must match
cuBLAS's bare GEMM; the served Gluon pingpong kernel runs at about 0.94x of it. One thing
cuBLAS's Hopper kernels have that ours do not is a thread-block cluster whose CTAs share their
operand tiles through TMA multicast (one load from L2 fills the shared memory of every CTA of the
cluster). This probe records two facts on the machine it runs on:

- which kernels cuBLAS runs for the bare GEMM (`torch.matmul`) and for eager's
  `gelu(linear(x, W, b))`, and for `kernel_zoo.ops.linear(..., activation="gelu")`, by the CUDA
  profiler (`verifier.timing.kernel_times`, L2 flushed before each call, mean us per call): the
  cuBLAS kernel names carry their tile and cluster shapes;
- whether the installed Triton's Gluon can express a multicast TMA load: the parameters of
  `gluon.language.nvidia.hopper.tma`'s load (`async_copy_global_to_shared`, and `async_load`
  where it exists) and of `mbarrier.arrive` (a consumer in one CTA freeing a slot that another
  CTA's multicast fills needs a remote arrive).

Writes probe-gluon-cluster-<device>.json into the folder given (bench/results/runs by default).

    python bench/probe_gluon_cluster.py [OUT_DIR]
"""
from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from verifier.environment import device_label, environment  # noqa: E402
from verifier.timing import L2Flusher, kernel_times  # noqa: E402

M, N, K = 8192, 8192, 4096


def _params(fn) -> list[str] | None:
    if fn is None:
        return None
    return [p for p in inspect.signature(fn).parameters if p != "_semantic"]


def gluon_api() -> dict:
    """What the installed Gluon offers for clusters: each function's parameters (None: absent)."""
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

    loads = {name: _params(getattr(tma, name, None))
             for name in ("async_copy_global_to_shared", "async_load")}
    arrive = _params(getattr(mbarrier, "arrive", None))
    shared = _params(ttgl.NVMMASharedLayout)
    return {
        "hopper.tma": loads,
        "hopper.mbarrier.arrive": arrive,
        "NVMMASharedLayout": shared,
        "multicast_load": any("multicast" in (p or []) for p in loads.values()),
        "remote_arrive": bool(arrive) and any(p in arrive for p in ("from_cta", "cta_id",
                                                                    "multicast_cta")),
        "cga_layout": "cga_layout" in (shared or []),
    }


def main() -> None:
    out_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "bench" / "results" / "runs"
    out_dir.mkdir(parents=True, exist_ok=True)
    result = {"benchmark": "probe_gluon_cluster", "environment": environment(),
              "gluon": gluon_api()}
    if torch.cuda.is_available():
        from kernel_zoo import ops

        gen = torch.Generator(device="cuda").manual_seed(0)
        x = torch.randn(M, K, device="cuda", dtype=torch.bfloat16, generator=gen)
        w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16, generator=gen) / K ** 0.5
        b = torch.randn(N, device="cuda", dtype=torch.bfloat16, generator=gen)
        want = F.gelu(F.linear(x.double(), w.double(), b.double()))
        got = ops.linear(x, w, b, activation="gelu")
        err = (got.double() - want).abs().max().item()
        fns = {
            "cublas_matmul": lambda: torch.matmul(x, w.t()),
            "eager_gelu_linear": lambda: F.gelu(F.linear(x, w, b)),
            "zoo_linear_gelu": lambda: ops.linear(x, w, b, activation="gelu"),
        }
        result.update(shape={"M": M, "N": N, "K": K}, dtype="bfloat16",
                      zoo_max_abs_error_vs_float64=err,
                      kernels_us=kernel_times(fns, L2Flusher(x.device)),
                      kernels_us_timing="CUDA profiler, each callable's 20 calls in a block of "
                      "their own (not interleaved): compare kernel names, not times across "
                      "callables")
    path = out_dir / f"probe-gluon-cluster-{device_label()}.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
