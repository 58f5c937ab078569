#!/usr/bin/env bash
# GPU round 37: the GEMM knobs EPILOGUE_SPLIT, flatten and gelu_erf_fit (config knobs now) and
# descriptor-launch recipes: GPU tests, the epilogue probe (with host time per call), and the
# configs sweep of the large and fused cases.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gemm.py -m gpu 2>&1 | tail -5
timeout 200 python3 bench/probe_gemm_epilogue.py --out "$OUT/gemm-epilogue-h100.json" 2>&1 \
    | grep -v -i "warn"
timeout 300 python3 bench/gemm.py --configs \
    --cases matmul_4096,matmul_8192,mlp_down_8192x4096x14336,linear_bias_gelu_8192x8192x4096 \
    2>&1 | grep -v -i "warn" | tail -40
cp bench/results/gemm-configs-h100.json "$OUT/" 2>/dev/null
