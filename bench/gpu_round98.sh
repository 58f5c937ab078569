#!/usr/bin/env bash
# GPU round 98: the GEMM (both timers) and attention tables again, under the verifier's discard
# flush (they were last timed on 2026-11-22 with the zeroing flush). Same scripts and configs as
# the README's tables; no max-autotune in this round.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 bench/gemm.py --config-json bench/gemm-configs.json --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -12
timeout 150 python3 bench/gemm.py --config-json bench/gemm-configs.json --graphs --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -12
timeout 200 python3 bench/attention.py --out "$OUT" 2>&1 | grep -v -i warn | tail -12
exit 0
