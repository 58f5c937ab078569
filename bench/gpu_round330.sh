#!/usr/bin/env bash
# GPU round 330 (H100): test_pipeline's GPU test alone (round 329: the verifier actor built 2
# kernels itself where the prepare workers should have built every one; the counter now names each
# build), then test_zoo_cli's 22 GPU tests (`kzoo zoo verify` on every shipped op) that round 327
# lost to its out-of-memory failures, on 2 pytest-xdist workers.
# Outcome (2026-11-25): the pipeline test failed again, now naming the builds: two
# specializations of _softmax_split_row_kernel with SYNC on, which the prepare stage had built
# with SYNC off (on meta tensors the split-row launcher took the interpreter's branch).
# test_zoo_cli: 9 passed (amax, amin, add_rms_norm, argmax, attention_relpos, attention_softcap,
# cross_entropy, geglu, linear_bias_gelu), none failed, the other 13 cut by the timeout.
# runs/gpu-tests-h100-round330.txt.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round330
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 150 python3 -m pytest -v -p no:cacheprovider -m gpu \
    "tests/test_pipeline.py::test_on_a_gpu_the_verifier_loads_what_the_prepare_workers_compiled" \
    > "$OUT/pytest-pipeline.txt" 2>&1
echo "pipeline pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "PASSED|FAILED|passed|failed|^E  " "$OUT/pytest-pipeline.txt" | cut -c1-1500 | tail -8
timeout $(( 540 - ($(date +%s) - start) )) python3 -m pytest -v -p no:cacheprovider -n 2 \
    --dist loadgroup -m gpu tests/test_zoo_cli.py > "$OUT/pytest.txt" 2>&1
echo "zoo_cli pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "\] (PASSED|FAILED|ERROR|SKIPPED) " "$OUT/pytest.txt" | awk '{print $4}' | sort | uniq -c
grep -E "^(FAILED|ERROR)|passed|failed|^E +[A-Za-z.]*Error" "$OUT/pytest.txt" | cut -c1-300 | tail -20
exit 0
