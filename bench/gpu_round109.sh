#!/usr/bin/env bash
# GPU round 109: the skinny companion's calls of at most 16 rows now run DECODE_DEFAULT (16x32x128
# tiles, round 108). silu(linear) composed again (bench/compose.py, 3 trials, --profile): its
# 1x16x4096 -> 4096 shape lost to eager in round 105 (0.893x).
# Outcome: 1.216x eager at 1x16x4096->4096 (18.2 us against 22.2), 1.030x at 4x2048x4096->4096;
# the GPU skinny test passes.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round109
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 bench/compose.py --tasks linear_bias_silu --trials 3 --budget 35 --profile \
    --out /tmp/c109 2>&1 | grep -v -i -E "warn|token auth" | tail -6
cp /tmp/c109/compose-h100.json "$OUT/compose-h100-round109.json"
timeout 200 python3 -m pytest -q -p no:cacheprovider tests/test_gemm.py -m gpu -k skinny 2>&1 \
    | grep -E "FAILED|ERROR|passed|failed|Error" | tail -6
exit 0
