#!/usr/bin/env bash
# GPU round 12: the GEMM-family contract rows not yet run on the final code (matmul_transposed,
# mlp_swiglu, softmax_matmul), a probe of float32 through the descriptor kernel, and the GEMM
# bench at the swept configs. Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 120 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_contract.py \
    -k "matmul_transposed or mlp_swiglu or softmax_matmul" 2>&1 | tee "$OUT/gpu-contract-round12.txt" \
    | grep -E "^E .*(accepted|reason|\[)|passed|failed" | cut -c1-600 | tail -6
timeout 60 python3 bench/probe_fp32_tma.py 2>&1 | grep -v -i warn | tee "$OUT/probe-fp32-tma.txt"
timeout 300 python3 bench/gemm.py --config-json bench/gemm-configs.json --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -10
ls "$OUT"
