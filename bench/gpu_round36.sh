#!/usr/bin/env bash
# GPU round 36: the epilogue probe with two 128x128 programs per SM (one's epilogue under the
# other's products) and a profile of what eager's, F.linear's and the fused kernel's time is made of.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv
timeout 560 python3 bench/probe_gemm_epilogue.py \
    --out "$OUT/gemm-epilogue-h100.json" 2>&1 | grep -v -i "warn"
