#!/usr/bin/env bash
# GPU round 96: the GPU tests round 95's time limit cut off (the zoo CLI's, the reduce and
# pointwise templates'), after rounds 90-93's entries.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round96
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 500 python3 -m pytest -v -p no:cacheprovider tests/test_zoo_cli.py tests/test_reduce.py \
    tests/test_pointwise.py -m gpu 2>&1 | grep -E "PASSED|FAILED|ERROR|passed|failed|Error" | tail -30
exit 0
