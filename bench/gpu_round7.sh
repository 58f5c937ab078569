#!/usr/bin/env bash
# GPU round 7: GEMM rows padded to 16 elements unless descriptor loads take them (round 6 showed
# a K of 1000 ten times slower than 1024 on pointer loads): the GEMM GPU tests, the odd-size bench
# and the composed-kernel bench on the Linear+epilogue task. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gemm.py 2>&1 | tee "$OUT/gpu-tests-round7.txt" | tail -2
timeout 60 python3 bench/gemm_odd.py 2>&1 | grep -v -i warn | tail -6; cp bench/results/gemm-odd-*.json "$OUT"/
KZOO_HOME=/tmp/kzc timeout 130 python3 bench/compose.py --tasks linear_bias_gelu --trials 3 --budget 45 \
    --out "$OUT" 2>&1 | grep -v Token | tail -6
ls "$OUT"
