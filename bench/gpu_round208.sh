#!/usr/bin/env bash
# GPU round 208 (H100): what round 207 did not reach: the fixed kzoo-verify test, and the
# gpu-marked tests of the reductions, the pointwise family, cross-entropy and the contract suite.
# Outcome (stop 34, 2026-11-24): cut off at 480 s after 45 of its 63 tests, all 45 passed (the
# fixed kzoo-verify test first, then the reductions', pointwise's, cross-entropy's and the
# contract suite's GPU rows through matmul, alphabetically); the log stayed on the device.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round208
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 480 python3 -m pytest -q -rf -p no:cacheprovider -m gpu --durations=6 \
    "tests/test_gpu.py::test_kzoo_verify_times_the_shipped_kernel_against_baselines" \
    tests/test_reduce.py tests/test_pointwise.py tests/test_cross_entropy.py \
    tests/test_contract.py > /tmp/pytest208.log 2>&1
echo "pytest: exit $?"
grep -v -i warn /tmp/pytest208.log | tail -30
exit 0
