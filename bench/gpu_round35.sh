#!/usr/bin/env bash
# GPU round 35: the epilogue probe with TMA stores of the output (asynchronous, so a persistent
# tile's output drains under the next tile's products), ten interleaved rounds.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv
timeout 560 python3 bench/probe_gemm_epilogue.py --skinny \
    --out "$OUT/gemm-epilogue-h100.json" 2>&1 | grep -v -i "warn"
