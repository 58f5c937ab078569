#!/usr/bin/env bash
# GPU round 125 (H100): the GPU tests of the templates changed today (reduce's one_pass_min_fill,
# norm's persist_full_rows) and of the zoo (every shipped entry, the new ones among them, checked
# at the GPU shapes), on the device machine's Triton 3.6.
# Outcome: 10 passed (the gpu-marked tests of test_reduce, test_launch_cache, test_zoo on
# Triton 3.6, with rms_norm 1.9.0 and sum 1.4.0 in the zoo).
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_reduce.py \
    tests/test_norm.py tests/test_launch_cache.py tests/test_vector_access.py tests/test_zoo.py \
    -x 2>&1 | tail -8
exit 0
