#!/usr/bin/env bash
# GPU round 188 (H100): the verifier's host_ahead timer against CUDA-graph replays over the whole
# memory-bound table (bench/memory_bound.py --graphs --host-ahead: 75 rows, the zoo kernel, eager
# and torch.compile each timed both ways in one process). Round 183 compared them at one shape.
# Outcome: not run yet.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round188
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 570 python3 bench/memory_bound.py --graphs --host-ahead --out "$OUT" 2>&1 \
    | grep -v -i -E "warn" | tail -60
exit 0
