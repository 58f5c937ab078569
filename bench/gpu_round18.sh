#!/usr/bin/env bash
# GPU round 18: float32 GEMM contract rows after the K loops took the launch's stages, and the GEMM
# bench at the swept configs (the skinny case at its new config). Results go to $OUT.
set -uo pipefail
export PYTHONUNBUFFERED=1
timeout 150 python3 -m pytest -m gpu -q -p no:cacheprovider \
    "tests/test_contract.py::test_task_default_is_correct_on_the_gpu[matmul]" \
    "tests/test_contract.py::test_task_default_is_correct_on_the_gpu[linear_residual]" \
    "tests/test_contract.py::test_task_default_is_correct_on_the_gpu[matmul_batched]" 2>&1 \
    | tee "$OUT/gpu-contract-round18.txt" | tail -2
timeout 300 python3 bench/gemm.py --config-json bench/gemm-configs.json --out "$OUT" 2>&1 \
    | grep -v -i warn | tail -10
