#!/usr/bin/env bash
# GPU round 187 (H100): the rest of round 186's verifier-path GPU tests (its 570 s ran out after
# 24, all passed): `kzoo zoo verify` of the shipped ops from log_softmax on, the zoo's, the
# verifier's, the LLM loop's, the pipeline's and the launch cache's GPU tests.
# Outcome (runs/gpu-tests-verifier-paths-h100-round187.txt): all 14 passed in 432 s; with round
# 186's 24, every GPU test that goes through the verifier passed under host_ahead timing.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round187
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 570 python3 -m pytest -v -p no:cacheprovider -m gpu --durations=15 tests/test_zoo_cli.py \
    tests/test_zoo.py tests/test_verifier.py tests/test_llm.py tests/test_pipeline.py \
    tests/test_launch_cache.py \
    -k "not (verify_passes and (add_rms_norm or amax or amin or argmax or attention_relpos or attention_softcap or cross_entropy or geglu or layer_norm))" \
    > "$OUT/gpu-tests-verifier-paths.txt" 2>&1
echo "pytest exit $?"
grep -E "PASSED|FAILED|ERROR|passed|failed" "$OUT/gpu-tests-verifier-paths.txt" | tail -20
exit 0
