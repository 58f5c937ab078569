#!/usr/bin/env bash
# GPU round 188 (H100): the verifier's host_ahead timer against CUDA-graph replays over the whole
# memory-bound table (bench/memory_bound.py --graphs --host-ahead: 75 rows, the zoo kernel, eager
# and torch.compile each timed both ways in one process). Round 183 compared them at one shape.
# Outcome (bench/results/memory-bound-h100-graphs-host-ahead.json; 150 rows, bfloat16 and
# float32): host_ahead over the graph replay's time, median 1.008 for the zoo kernels (0.985-1.146),
# 1.006 for eager, 1.007 for torch.compile; the large shapes' zoo kernels within 2% but two
# (1.044, 1.049); the rows more than 3% apart are small and launch-bound ones, where a graph also
# drops the gaps between a call's kernels. Verdicts against torch.compile differ at 3 rows of 150,
# each within 1.5% of a tie. And: float32 had no zoo config for most ops, so kernel_zoo.ops ran the
# PyTorch reference there (0.01-0.98x torch.compile; the float32 geomean 0.62x): rounds 189-191.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round188
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 570 python3 bench/memory_bound.py --graphs --host-ahead --out "$OUT" 2>&1 \
    | grep -v -i -E "warn" | tail -60
exit 0
