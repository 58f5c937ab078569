"""Float32 softmax over rows of 128256 and 32768 on an H200: the CUDA template's `cluster_ctas`
(a row split over a thread-block cluster, each block's slice held in registers, the partial max
and sum crossing the cluster through distributed shared memory) against the served Triton kernel.

Round 375's probe (bench/probe_cluster_softmax.py) staged each slice in shared memory by bulk
copies several rows ahead and lost (95.7 against 81.6 us at 256x128256). This is the simpler
form the template can render and the verifier's guards admit (no inline PTX): the slice goes
straight to registers, one row a cluster at a time, so it asks whether the template's knob is
worth a sweep. Each variant's output is checked against float64 first; all are timed as CUDA-graph
replays, interleaved and L2-flushed, beside `kernel_zoo.ops.softmax` and a copy of the same bytes
(bench/row_probes.py). Writes <out>/probe-softmax-cuda-cluster-<device>.json.

    python bench/probe_softmax_cuda_cluster.py [--out DIR]

Round 423 (H200, 2026-11-29, runs/probe-softmax-cuda-cluster-h200-round423.json): every variant
correct (relative L2 error 9e-8 to 8e-7 against float64) and far slower than the served Triton
kernel: at 256x128256 the best, clusters of 2 blocks of 1024 threads, took 103.8 us against the
zoo's 75.9 (copy 63.4), clusters of 8 171-183; at 1024x32768 134.9 at best against 71.0. One row a
cluster at a time, with three cluster barriers a row and nothing in flight across them, leaves
the SMs idle between a row's loads and its stores.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from row_probes import time_beside_zoo_and_copy, write_probe  # noqa: E402
from templates import get_template, params_of  # noqa: E402
from verifier.core import load_candidate  # noqa: E402
from verifier.timing import L2Flusher  # noqa: E402

TEMPLATE = get_template("softmax_cuda")
# name -> (block_threads, cache_vecs, cluster_ctas, min_blocks_per_sm); float32 packs of 4
# values, so a cluster holds block_threads * cache_vecs * cluster_ctas * 4 values of a row
VARIANTS = {
    "cuda_default": None,  # no cluster: a row wider than a block's registers is read twice
    "cluster8_t1024_k4": (1024, 4, 8, 1),  # 131072 values: both widths
    "cluster8_t512_k8": (512, 8, 8, 1),  # 131072
    "cluster4_t256_k8": (256, 8, 4, 2),  # 32768: the 32768-wide rows only, 2 blocks an SM
    "cluster2_t1024_k4": (1024, 4, 2, 1),  # 32768
}
SHAPES = [(256, 128256), (1024, 32768)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "bench" / "results"))
    args = parser.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench/probe_softmax_cuda_cluster.py needs a CUDA GPU: it measures time")
    flusher = L2Flusher(torch.device("cuda"))
    where = Path(tempfile.mkdtemp(prefix="probe-softmax-cuda-cluster-"))
    launches, configs = {}, {}
    for name, knobs in VARIANTS.items():
        cfg = TEMPLATE.default
        if knobs:
            threads, cache, cluster, blocks = knobs
            cfg = dataclasses.replace(cfg, block_threads=threads, cache_vecs=cache,
                                      cluster_ctas=cluster, min_blocks_per_sm=blocks)
        assert not TEMPLATE.violations(cfg), (name, TEMPLATE.violations(cfg))
        module = load_candidate(TEMPLATE.render(cfg, op="softmax", dim=1, dim_is_last=True,
                                                params=[]), where / name)
        launches[name], configs[name] = module.launch_softmax, params_of(cfg)
    shapes = []
    for rows, cols in SHAPES:
        x = torch.randn(rows, cols, device="cuda") * 4.0
        ref = torch.softmax(x.double(), dim=-1)
        errors, fns = {}, {}
        for name, launch in launches.items():
            got = launch(x, 1)
            errors[name] = ((got.double() - ref).norm() / ref.norm()).item()
            fns[name] = lambda launch=launch: launch(x, 1)
        us, failed = time_beside_zoo_and_copy(x, fns, errors, flusher, ref)
        print({k: f"{v:.1e}" for k, v in errors.items()}, flush=True)
        shapes.append({"rows": rows, "cols": cols, "us": us, "rel_l2_err": errors,
                       "graph_capture_failed": failed})
    write_probe(args.out, "probe-softmax-cuda-cluster",
                "the CUDA softmax template's cluster_ctas against the served Triton softmax",
                shapes, configs=configs)


if __name__ == "__main__":
    main()
