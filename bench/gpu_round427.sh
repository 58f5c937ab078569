#!/usr/bin/env bash
# GPU round 427 (H200; 2026-11-29): bench/probe_split_ring.py, a float32 softmax and log-softmax
# whose rows are split over groups of CTAs (one an SM, groups x split = the SM count), each
# CTA's slices staged in a ring of shared-memory slots by cp.async, the slices' pairs traded
# through global memory and each row written a few steps after it is read, from shared memory:
# at 256x128256 and 1024x32768, against the served kernels (0.82-0.89 of copy in the standing).
#     device run, no carry:  bash bench/gpu_round427.sh
# Outcome (four runs, 9-17 s each; the probe's pair protocol and diagnostics changed between
# them, see its docstring): every variant correct, every one slower than the served kernels:
# at best 101.2 us against 75.3 at 256x128256 softmax and 123.9 against 71.0 at 1024x32768; about
# 2.4 us a step that is the SM's own work (barriers, shared-memory passes, exponentials), not the
# partner exchange. runs/probe-split-ring-h200-round427*.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round427
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p "$OUT/round427"
timeout 240 python bench/probe_split_ring.py --out "$OUT/round427" 2>&1 | tee "$OUT/round427/probe.txt"
echo "probe rc ${PIPESTATUS[0]} at $(( $(date +%s) - start )) s"
exit 0
