#!/usr/bin/env bash
# GPU round 289 (H100): after SKINNY_NARROW (32x64 tiles for skinny calls of at most 32 rows,
# round 288): (1) test_gemm's GPU tests of the skinny tiles, the pair, split-K and the descriptor
# path; (2) the four linear entries' winners re-rendered with it (bench/rerender_entries.sh).
# Outcome (2026-11-25): 10 passed. Promoted linear_bias_gelu 1.6.0 (bfloat16) and 1.7.0
# (float16), linear_bias_silu 1.6.0 (bfloat16) and 1.7.0 (float16), the same params again (run
# with .gpu-bundle less its pydantic wheels, which neither Ray's core nor Optuna imports: the
# carried tree had passed 64 MiB). bench/results/runs/optimize-linear-bias-*-h100-round289.json.
# Not kept (round 290): 1.6.0/1.7.0 were not committed, and SKINNY_NARROW was taken out again.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round289
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 200 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    -k "skinny or cluster or split or descriptor" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
bash bench/rerender_entries.sh "linear_bias_gelu bfloat16" "linear_bias_gelu float16" \
    "linear_bias_silu bfloat16" "linear_bias_silu float16"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_gelu entries/linear_bias_silu
exit 0
