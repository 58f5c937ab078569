#!/usr/bin/env bash
# GPU round 11: the GEMM contract rows that failed in round 10 (linear_bias_gelu, linear_residual)
# with their reasons, the split-K GPU tests after the int-specialization fix, and the skinny
# GEMM configs (split-K in one launch) against cuBLAS. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 100 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_contract.py \
    -k "linear_bias_gelu or linear_residual" 2>&1 | tee "$OUT/gpu-contract-round11.txt" \
    | grep -E "^E .*(accepted|reason|\[)|passed|failed" | cut -c1-600 | tail -8
timeout 100 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gemm.py 2>&1 \
    | tee "$OUT/gpu-tests-round11.txt" | tail -3
timeout 240 python3 bench/gemm.py --configs --cases skinny_128x4096x4096,skinny_16x8192x8192 \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -4
ls "$OUT"
