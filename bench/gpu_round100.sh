#!/usr/bin/env bash
# GPU round 100: the prepare stage with the softmax template's kept launchers (8ca2354: a launch in
# a prepare worker's compile-only mode returns None). The pipeline's GPU test (prepare workers
# compile every candidate, the verifier compiles none) and the meta-tensor warm-up test.
# Outcome: both passed (2 passed in 90 s).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 330 python3 -m pytest -v -p no:cacheprovider tests/test_pipeline.py \
    -k "warm_up_on_meta or prepare_workers_compiled" 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|SKIPPED|passed|failed|Error|assert" | tail -12
exit 0
