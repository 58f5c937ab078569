#!/usr/bin/env bash
# GPU round 10: split-K in one launch (the last split of a tile sums the partials from L2, in split
# order): its GPU tests (correct, bit-identical over runs), the GEMM contract rows, and the skinny
# GEMM configs against cuBLAS. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gemm.py 2>&1 \
    | tee "$OUT/gpu-tests-round10.txt" | tail -3
timeout 240 python3 bench/gemm.py --configs --cases skinny_128x4096x4096,skinny_16x8192x8192 \
    --out "$OUT" 2>&1 | grep -v -i warn | tail -6
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_contract.py \
    -k "matmul or linear or mlp" 2>&1 | tee "$OUT/gpu-contract-gemm-round10.txt" | tail -3
ls "$OUT"
