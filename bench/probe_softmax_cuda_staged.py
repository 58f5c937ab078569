"""Float32 softmax and log-softmax over rows of 32768 on an H200: the CUDA template's `smem_vecs`
(a row too wide for a block's registers staged partly in shared memory by `cp.async`, so it is
read once and two blocks an SM each hold a whole row) against the served Triton kernel.

The served float32 kernel at 1024x32768 is a one-pass program of 32 warps a row: the 128 KB row
fills an SM's registers, so an SM reads nothing while it reduces and writes (0.89 of copy in the
standing). With 4 packs a thread in registers and 12 in shared memory, a block of 512 threads
holds the row in 32 KB of registers and 96 KB of shared memory, and two such blocks fit an SM:
one reads while the other reduces and writes. Each variant's output is checked against float64
first, at the timed shape and at small odd ones (a row start off the 16-byte grid, a width that
ends mid-pack); all are timed as CUDA-graph replays, interleaved and L2-flushed, beside
`kernel_zoo.ops.<op>` and a copy of the same bytes (bench/row_probes.py). Writes
<out>/probe-softmax-cuda-staged-<device>.json.

    python bench/probe_softmax_cuda_staged.py [--out DIR]

Round 424 (H200, 2026-11-29, runs/probe-softmax-cuda-staged-h200-round424.json): every variant
correct (relative L2 error at most 2.9e-7 against float64, shifted and mid-pack rows included),
and every one slower than the served Triton kernels: staged, two blocks an SM, 78.0-82.5 us
(softmax) and 80.9-82.1 (log-softmax) against the zoo's 71.5 and 71.5 (copy 65.5 and 66.0); one
block an SM of 1024 threads, mostly staged, 79.3 and 77.8. Two blocks an SM did not beat one.
The run before it (`-round424-expf.json`, the template's exponentials then `expf`) had every
CUDA variant 3-12% slower (the default 105.4 against 96.6 us): that change, `exp_of`, stayed.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kernel_zoo import cuda_ext  # noqa: E402
from row_probes import time_beside_zoo_and_copy, write_probe  # noqa: E402
from templates import get_template, params_of  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.timing import L2Flusher  # noqa: E402

TEMPLATE = get_template("softmax_cuda")
# name -> knobs over DEFAULT; float32 packs of 4 values, so a block holds block_threads *
# (cache_vecs + smem_vecs) * 4 values of a row in one read
VARIANTS = {
    "cuda_default": {},  # a 32768-wide row is wider than a block's registers: read twice
    "staged_t512_r4_s12_b2": dict(block_threads=512, cache_vecs=4, smem_vecs=12,
                                  min_blocks_per_sm=2),
    "staged_t512_r4_s12_b2_nohint": dict(block_threads=512, cache_vecs=4, smem_vecs=12,
                                         min_blocks_per_sm=2, cache_hint="none"),
    "staged_t512_r4_s12_b2_persistent": dict(block_threads=512, cache_vecs=4, smem_vecs=12,
                                             min_blocks_per_sm=2, persistent=True),
    "staged_t512_r2_s16_b1": dict(block_threads=512, cache_vecs=2, smem_vecs=16,
                                  min_blocks_per_sm=1),  # one block an SM: the control
    "staged_t1024_r1_s8_b1": dict(block_threads=1024, cache_vecs=1, smem_vecs=8,
                                  min_blocks_per_sm=1),
}
SHAPES = [(1024, 32768)]
CHECKS = [(3, 20001), (5, 32768), (2, 32760)]  # small: correctness only; 20001: a shifted start too


def _cuda_source(module: str) -> str:
    for node in ast.parse(module).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "CUDA_SOURCE":
            return node.value.value
    raise ValueError("no CUDA_SOURCE in the rendered module")


def _render_all() -> dict[tuple[str, str], str]:
    """Every (op, variant) module, its CUDA built first by parallel nvcc runs (cached by source,
    so loading each below only binds it)."""
    modules = {}
    for op in ("softmax", "log_softmax"):
        for name, knobs in VARIANTS.items():
            cfg = dataclasses.replace(TEMPLATE.default, **knobs)
            assert not TEMPLATE.violations(cfg), (name, TEMPLATE.violations(cfg))
            modules[op, name] = TEMPLATE.render(cfg, op=op, dim=1, dim_is_last=True, params=[])
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(cuda_ext.compile_source, map(_cuda_source, modules.values())))
    return modules


def _reference(x: torch.Tensor, op: str) -> torch.Tensor:
    return getattr(torch, op)(x.double(), dim=-1)


def _rel(got: torch.Tensor, ref: torch.Tensor) -> float:
    return ((got.double() - ref).norm() / ref.norm()).item()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_softmax_cuda_staged.py needs a CUDA GPU: it measures time")
    flusher = L2Flusher(torch.device("cuda"))
    where = Path(tempfile.mkdtemp(prefix="probe-softmax-cuda-staged-"))
    modules = _render_all()
    configs = {name: params_of(dataclasses.replace(TEMPLATE.default, **knobs))
               for name, knobs in VARIANTS.items()}
    shapes = []
    for op in ("softmax", "log_softmax"):
        launches = {}
        for name in VARIANTS:
            module = load_candidate(modules[op, name], where / f"{op}-{name}")
            launches[name] = getattr(module, f"launch_{op}")
        checks = {}
        for rows, cols in CHECKS:
            base = torch.randn(rows, cols + 1, device="cuda") * 4.0
            for label, x in ((f"{rows}x{cols}", base[:, :cols].contiguous()),
                             (f"{rows}x{cols}+1 view", base[:, 1:])):
                ref = _reference(x, op)
                checks[label] = {name: _rel(launch(x, 1), ref) for name, launch in launches.items()}
        worst = max(v for c in checks.values() for v in c.values())
        print(op, "worst relative L2 error at the small shapes:", f"{worst:.1e}", flush=True)
        assert worst < 1e-5, checks
        for rows, cols in SHAPES:
            x = torch.randn(rows, cols, device="cuda") * 4.0
            ref = _reference(x, op)
            errors, fns = {}, {}
            for name, launch in launches.items():
                errors[name] = _rel(launch(x, 1), ref)
                fns[name] = lambda launch=launch: launch(x, 1)
            us, failed = time_beside_zoo_and_copy(x, fns, errors, flusher, ref, op=op)
            print({k: f"{v:.1e}" for k, v in errors.items()}, flush=True)
            shapes.append({"op": op, "rows": rows, "cols": cols, "us": us, "rel_l2_err": errors,
                           "small_shape_errors": checks, "graph_capture_failed": failed})
    write_probe(args.out, "probe-softmax-cuda-staged",
                "the CUDA softmax template's smem_vecs (rows staged in registers and shared "
                "memory, two blocks an SM) against the served Triton softmax and log-softmax",
                shapes, configs=configs)


if __name__ == "__main__":
    main()
