#!/usr/bin/env bash
# GPU round 361 (H200): the norm template's GPU tests, align_edges' among them.
#     device run, no carry:  bash bench/gpu_round361.sh
# Outcome: 9 passed in 149 s.
set -uo pipefail
export PYTHONPATH=$PWD KZOO_HOME=/tmp/kz361
timeout 220 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_norm.py 2>&1 | tail -4
exit 0
