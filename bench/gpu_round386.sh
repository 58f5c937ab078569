#!/usr/bin/env bash
# GPU round 386 (H200, 2026-11-29): test_reduce's GPU tests after the review merged the
# nan_combine and max_then_index tests into one parametrized test, with the default's.
#     device run, no carry:  bash bench/gpu_round386.sh
# Outcome (ran 2026-11-29 04:44-04:45, 60 s): 10 passed (runs/gpu-tests-h200-round386/).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round386
export PYTHONPATH=$PWD
mkdir -p /tmp/r386
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu -rf --tb=short tests/test_reduce.py \
    > /tmp/r386/pytest-test_reduce.txt 2>&1
echo "test_reduce: rc $? $(tail -1 /tmp/r386/pytest-test_reduce.txt)"
cp /tmp/r386/pytest-test_reduce.txt "$OUT/"
exit 0
