#!/usr/bin/env bash
# GPU round 186 (H100): the GPU tests that go through the verifier, after it moved to host_ahead
# timing (round 184): `kzoo zoo verify` of every shipped op, the zoo, the verifier's, the LLM
# loop's and the pipeline's GPU tests, and tests/test_gpu.py with the new wall-clock check test.
# Outcome (runs/gpu-tests-verifier-paths-h100-round186.txt): cut off by its 570 s timeout after
# 24 tests, all passed: tests/test_gpu.py's 15 (the new wall-clock check test among them) and
# `kzoo zoo verify` of the first 9 shipped ops (add_rms_norm to layer_norm), some 50 s each. The
# rest ran in round 187.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round186
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 570 python3 -m pytest -q -p no:cacheprovider -m gpu --durations=15 tests/test_gpu.py \
    tests/test_zoo_cli.py tests/test_zoo.py tests/test_verifier.py tests/test_llm.py \
    tests/test_pipeline.py tests/test_launch_cache.py > "$OUT/gpu-tests-verifier-paths.txt" 2>&1
echo "pytest exit $?"
grep -E "FAILED|ERROR|passed|failed" "$OUT/gpu-tests-verifier-paths.txt" | tail -15
exit 0
