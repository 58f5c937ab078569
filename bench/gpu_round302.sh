#!/usr/bin/env bash
# GPU round 302 (H100): (1) the matmul entries' winners (1.1.0: bfloat16 and float16, from
# tasks/matmul_skinny.py) re-rendered with today's skinny companions (SKINNY_NARROW, the
# single-CTA SKINNY_DEFAULT, SKINNY_POINTER, SKINNY_WIDE, SKINNY_LARGE; 1.1.0 carries the CTA
# pair), promoted where the re-timed winner beats the best baseline; (2) `kzoo zoo verify
# --newest` of matmul and both linear ops (round 301) and the ops.matmul and ops.linear dispatch
# tests (now with 24-, 32-, 96- and 100-row calls). Round 294's re-render, before SKINNY_POINTER, was not
# committed.
# Outcome (2026-11-25): promoted matmul 1.2.0 (bfloat16, 1.02x eager) and 1.3.0 (float16,
# 1.02x): 128x4096x4096 17.1-17.3 us (eager 17.8-18.0), 16x8192x8192 48.3 (48.6-48.7),
# 1x4096x4096 16.7 (17.0). 9 passed: `kzoo zoo verify --newest` of matmul and both linear ops,
# the ops.matmul and ops.linear dispatch tests. runs/optimize-matmul-*-h100-round302.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round302
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
bash bench/rerender_entries.sh "matmul bfloat16 matmul_skinny" "matmul float16 matmul_skinny"
echo "after $(( $(date +%s) - start )) s"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/matmul
timeout 300 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py tests/test_zoo_cli.py \
    -k "linear_bias_gelu or linear_bias_silu or ops_linear or ops_matmul or matmul" \
    > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
exit 0
