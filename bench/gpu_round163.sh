#!/usr/bin/env bash
# GPU round 163 (H100): tests/test_zoo_cli.py's GPU test alone (`kzoo zoo verify` of every shipped
# entry on the GPU), which ran past round 162's 200 s per file.
# Outcome: timed out again after 560 s with nothing printed. The test now checks each op's newest
# entry (`kzoo zoo verify --newest`, new), one pytest test an op: round 164.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round163
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PER_FILE_S=560 bash bench/gpu_tests.sh tests/test_zoo_cli.py
grep -h -E "FAILED|Error|assert" "$OUT"/gpu-tests/*.txt | head -10
exit 0
