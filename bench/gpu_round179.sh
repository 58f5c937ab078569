#!/usr/bin/env bash
# GPU round 179 (H100): the row norm's GPU tests after _row_norm_kernel derives its rows from N
# (it took the row strides of y and out beside it, all equal) and _norm_operands reads through
# _norm_tensors: behaviour unchanged, checked where the dependent launch runs.
# Outcome (runs/gpu-tests-gemm-norm-h100-round179.txt): 4 passed.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round179
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p "$OUT"
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py -k "layer_norm" \
    > "$OUT/gpu-tests-gemm-norm.txt" 2>&1
echo "pytest exit $?"
tail -2 "$OUT/gpu-tests-gemm-norm.txt"
exit 0
