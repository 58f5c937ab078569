#!/usr/bin/env bash
# GPU round 301 (H100): after SKINNY_NARROW (32x32 tiles for 17-32 rows, round 292) and
# SKINNY_POINTER (the 64x64 tiles through pointer loads where their last tile row is partial,
# rounds 299-300): (1) test_gemm's GPU tests of the skinny tiles (both new ones in both layouts
# among them), the pair, split-K and the descriptor path; (2) the four linear entries' winners
# re-rendered with them (`kzoo optimize --start @params --trials 1`, promoting into
# kernel_zoo/entries where the re-timed winner beats the best baseline). Round 293's re-render,
# before SKINNY_POINTER, was not committed.
# Outcome (2026-11-25): 11 passed (SKINNY_NARROW and SKINNY_POINTER in both layouts among them).
# Promoted linear_bias_gelu 1.6.0 (bfloat16, 1.47x eager) and 1.7.0 (float16, 1.50x),
# linear_bias_silu 1.6.0 (bfloat16, 1.12x) and 1.7.0 (float16, 1.13x): the same params with
# today's companions; the task's shapes timed within 1.5% of round 286's.
# bench/results/runs/optimize-linear-bias-*-h100-round301.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round301
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 170 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    -k "skinny or cluster or split or descriptor" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
bash bench/rerender_entries.sh "linear_bias_gelu bfloat16" "linear_bias_gelu float16" \
    "linear_bias_silu bfloat16" "linear_bias_silu float16"
echo "after $(( $(date +%s) - start )) s"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_gelu entries/linear_bias_silu
exit 0
