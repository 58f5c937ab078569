#!/usr/bin/env bash
# GPU round 5: the GEMM loop over whole K tiles with the partial tile peeled (a K of 1000 made every
# load a scalar load): the GEMM tests and the Linear tasks' contract rows on the GPU, the GEMM bench
# at the configs the sweeps found (bench/gemm-configs.json), and the composed-kernel bench on the
# Linear+epilogue and convolution+tail tasks. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 170 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gemm.py tests/test_contract.py \
    -k "gemm or linear or matmul_transposed" 2>&1 | tee "$OUT/gpu-tests-round5.txt" | tail -4
timeout 120 python3 bench/gemm.py --config-json bench/gemm-configs.json --out "$OUT" 2>&1 | tail -10
KZOO_HOME=/tmp/kzc timeout 220 python3 bench/compose.py --tasks linear_bias_gelu,conv_relu_bias_mean --trials 4 \
    --budget 60 --out "$OUT" 2>&1 | grep -v Token | tail -12
ls "$OUT"
