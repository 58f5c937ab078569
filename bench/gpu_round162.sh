#!/usr/bin/env bash
# GPU round 162 (H100): the GPU tests of the files whose code or entries this session changed
# (cross_entropy 1.8.0, argmax 1.9.0, geglu 1.4.0 through kernel_zoo.ops; the reduce and
# pointwise templates), file by file (bench/gpu_tests.sh).
# Outcome: test_zoo 4 passed, test_reduce 5, test_pointwise 5, test_gpu 12; test_zoo_cli (`kzoo zoo
# verify` of every shipped entry) ran out of its 200 s before its summary: round 163 runs it alone.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round162
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
PER_FILE_S=200 bash bench/gpu_tests.sh tests/test_zoo.py tests/test_zoo_cli.py tests/test_reduce.py \
    tests/test_pointwise.py tests/test_gpu.py
grep -h -E "FAILED|Error" "$OUT"/gpu-tests/*.txt | head -10
exit 0
