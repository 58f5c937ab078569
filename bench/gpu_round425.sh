#!/usr/bin/env bash
# GPU round 425 (H200; 2026-11-29): the CUDA C++ path after round 424's `exp_of` (the softmax
# template's exponentials as exp2f): its GPU tests (both CUDA templates through the verifier in
# three dtypes, the adversarial corpus), then bench/cuda_check.py on the H200, the issues' device
# kind (#3's "the JSON says, per op, whether Triton or CUDA won" had only cuda-h100.json).
#     device run, no carry:  bash bench/gpu_round425.sh   (SKIP_TESTS=1: cuda_check.py only)
# Outcome: first run (185 s) test_cuda's 22 GPU tests passed, and cuda_check.py failed on its
# stale Triton softmax context (no `log`; fixed: the contexts now come from each task's plan).
# Second run, SKIP_TESTS=1 (158 s): all 18 CUDA verdicts accepted, the Triton default won all 9
# op-dtype pairs (the CUDA kernels at 0.79-0.91x its speed). bench/results/cuda-h200.json,
# runs/gpu-tests-h200-round425/.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round425
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p "$OUT/round425"
if [ -z "${SKIP_TESTS:-}" ]; then
    timeout 200 python -m pytest -q -p no:cacheprovider -m gpu tests/test_cuda.py \
        > "$OUT/round425/test_cuda.txt" 2>&1
    echo "test_cuda rc $? at $(( $(date +%s) - start )) s"
    grep -E "passed|failed|^FAILED" "$OUT/round425/test_cuda.txt" | cut -c1-300 | tail -6
fi
timeout $(( 560 - ($(date +%s) - start) )) python bench/cuda_check.py \
    --dtypes float32,bfloat16,float16 --samples 1 --out "$OUT/round425" \
    > "$OUT/round425/cuda_check.txt" 2>&1
echo "cuda_check rc $? at $(( $(date +%s) - start )) s"
grep -v -i "warn" "$OUT/round425/cuda_check.txt" | tail -25
exit 0
