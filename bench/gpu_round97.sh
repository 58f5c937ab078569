#!/usr/bin/env bash
# GPU round 97: the reduce and softmax templates launch a repeated call through the compiled
# kernel's own launcher now. Host time per call of the shipped kernels against today's render of
# the same params (bench/host_overhead.py --rerender), then the launch-cache tests (the reduce and
# softmax kernels correct through kept launchers, a kept launch counted as the candidate's own)
# and the reduce template's GPU test.
set -uo pipefail
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 bench/host_overhead.py --rerender 2>&1 | grep -v -i warn | grep -v "^    " | tail -14
cp bench/results/host-overhead-*-rerender.json "$OUT/" 2>/dev/null
timeout 200 python3 -m pytest -v -p no:cacheprovider tests/test_launch_cache.py tests/test_reduce.py \
    -k "launch or gpu_shapes" 2>&1 | grep -E "PASSED|FAILED|ERROR|passed|failed|Error" | tail -12
exit 0
