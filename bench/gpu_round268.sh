#!/usr/bin/env bash
# GPU round 268 (H100): after round 267, clusters only where B is not transposed (SKINNY_LINEAR
# serves Linear's skinny calls): test_gemm's GPU tests, the GPU contract rows of the GEMM tasks,
# then the GEMM table by the default timer and by graphs.
# Outcome (2026-11-25): test_gemm's GPU tests 11 passed; the contract rows timed out at 200 s (4
# passed before it; test_gemm's skinny test covers SKINNY_DEFAULT through the verifier). The table
# (bench/results/gemm-h100.json, -graphs.json): skinny 128x4096x4096 1.027x cuBLAS, graphs 1.039x;
# 16x8192x8192 1.011x, 1.014x.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_contract.py \
    -k "matmul or linear" > "$OUT/pytest-contract.txt" 2>&1
echo "pytest contract rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest-contract.txt" | tail -12
timeout 70 python3 bench/gemm.py --config-json bench/gemm-configs.json --out "$OUT" 2>&1 | tail -9
mkdir -p "$OUT/graphs"
timeout 70 python3 bench/gemm.py --config-json bench/gemm-configs.json --graphs \
    --out "$OUT/graphs" 2>&1 | tail -9
exit 0
