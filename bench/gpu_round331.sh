#!/usr/bin/env bash
# GPU round 331 (H100): test_pipeline's GPU test after the split-row launcher builds the GPU's
# kernel on the prepare stage's meta tensors (round 330: the verifier built the two SYNC
# specializations of _softmax_split_row_kernel itself), then test_pointwise's GPU tests after the
# template took `wide` inputs and `out_dtype` (round 328 ran them before that change).
# Outcome (2026-11-25): with the launcher building the SYNC kernel on meta tensors, the
# pipeline test passed (the verifier built nothing itself); test_pointwise's 7 GPU tests passed.
# runs/gpu-tests-h100-round331.txt.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round331
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 150 python3 -m pytest -v -p no:cacheprovider -m gpu \
    "tests/test_pipeline.py::test_on_a_gpu_the_verifier_loads_what_the_prepare_workers_compiled" \
    > "$OUT/pytest-pipeline.txt" 2>&1
echo "pipeline pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "PASSED|FAILED|passed|failed|^E  " "$OUT/pytest-pipeline.txt" | cut -c1-1500 | tail -6
timeout $(( 280 - ($(date +%s) - start) )) python3 -m pytest -v -p no:cacheprovider -n 2 -m gpu \
    tests/test_pointwise.py > "$OUT/pytest.txt" 2>&1
echo "pointwise pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "\] (PASSED|FAILED|ERROR|SKIPPED) " "$OUT/pytest.txt" | awk '{print $4}' | sort | uniq -c
grep -E "^(FAILED|ERROR)|passed|failed|^E +[A-Za-z.]*Error" "$OUT/pytest.txt" | cut -c1-300 | tail -10
exit 0
