#!/usr/bin/env bash
# GPU round 226 (H100): the gpu-marked tests of the zoo and the GPU path (tests/test_zoo.py,
# tests/test_gpu.py: served kernels, CUDA graphs, torch.compile through the custom ops) now that
# the zoo serves row_ahead kernels (rounds 221-223).
# Outcome (2026-11-24): 19 passed in 81 s.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round226
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 540 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_zoo.py tests/test_gpu.py \
    2>&1 | tail -25 | tee "$OUT/tests.log"
echo "tests: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
exit 0
