#!/usr/bin/env bash
# GPU round 20: after factoring bench/attention.py's render-and-check into one function and the
# Hopper TMA test into one loop: both run on the GPU again. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gemm.py 2>&1 \
    | tee "$OUT/gpu-tests-round20.txt" | tail -2
timeout 200 python3 bench/attention.py --cases sdpa,sdpa_causal --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -4
timeout 120 python3 bench/attention.py --cases sdpa --variants '[{}, {"tma": false}]' \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -3
