#!/usr/bin/env bash
# GPU round 34: round 33's epilogue probe again with ten interleaved rounds (its spreads were up to
# 10%), persistent flattened variants, each kernel's registers and spills.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.limit --format=csv
timeout 560 python3 bench/probe_gemm_epilogue.py --skinny \
    --out "$OUT/gemm-epilogue-h100.json" 2>&1 | grep -v -i "warn"
