#!/usr/bin/env bash
# GPU round 39: the new GEMM DEFAULT (persistent descriptor kernel, flattened tile loop, sliced
# epilogue, erfc-fit GELU). GPU tests; bench/gemm.py at the swept configs with the default timer
# and with CUDA-graph replays; the odd-row linear shapes; composed gelu(linear) through kzoo optimize.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_gemm.py -m gpu 2>&1 | tail -3
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs.json 2>&1 | grep -v -i warn | tail -12
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs.json --graphs 2>&1 \
    | grep -v -i warn | tail -12
timeout 90 python3 bench/gemm_odd.py 2>&1 | grep -v -i warn | tail -8
timeout 200 python3 bench/compose.py --tasks linear_bias_gelu --trials 3 2>&1 | grep -v -i warn | tail -8
cp bench/results/gemm-h100.json bench/results/gemm-h100-graphs.json bench/results/gemm-odd-h100.json \
    bench/results/compose-h100.json "$OUT/" 2>/dev/null
