#!/usr/bin/env bash
# GPU round 19: the GEMM bench at the swept configs (the skinny case at 128x64x64 in 9 stages, now
# inside the space), everything timed beside cuBLAS, eager and torch.compile. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 300 python3 bench/gemm.py --config-json bench/gemm-configs.json --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -10
