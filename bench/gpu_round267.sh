#!/usr/bin/env bash
# GPU round 267 (H100): SKINNY_DEFAULT in CTA pairs (num_ctas=2, 128x64x128 tiles six deep)
# through the template: test_gemm's GPU tests (the new cluster test among them), then the GEMM
# table (bench/gemm.py with bench/gemm-configs.json, whose skinny cases now take the cluster tile
# and, at 16 rows, 16x64x256 descriptor tiles three deep), by the default timer and by graphs.
# Outcome (2026-11-25): the table: skinny_128x4096x4096 1.029x cuBLAS (default timer), 1.026x
# (graphs); skinny_16x8192x8192 1.010x/1.011x. Tests: 4 failed, 7 passed: the cluster test's
# Linear (a transposed B) does not build in a cluster under Triton 3.6 (LLVM: "Failed to find a
# valid layout"), and the split-K test's config inherited num_ctas=2 without use_tma.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs.json --out "$OUT" 2>&1 | tail -14
mkdir -p "$OUT/graphs"
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs.json --graphs \
    --out "$OUT/graphs" 2>&1 | tail -14
exit 0
