#!/usr/bin/env bash
# GPU round 282 (H100): after SKINNY_DEFAULT became single-CTA 64x64 tiles for both layouts
# (round 281) and the CTA pair SKINNY_PAIR: (1) test_gemm's GPU tests of the skinny tiles, the
# pair, split-K and the descriptor path; (2) the four linear entries' winners re-rendered with
# today's skinny companion (`kzoo optimize --start @params --trials 1`, promoting into
# kernel_zoo/entries where the re-timed winner beats the best baseline).
# Outcome (2026-11-25): 7 passed. Promoted linear_bias_gelu 1.2.0 (bfloat16: 1.466x the best
# baseline) and 1.3.0 (float16: 1.495x), linear_bias_silu 1.2.0 (bfloat16: 1.101x) and 1.3.0
# (float16: 1.113x): the same params as 1.0.0/1.1.0, the skinny companion now 64x64 by 4.
# bench/results/runs/optimize-linear-bias-*-h100-round282.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round282
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    -k "skinny or cluster or split or descriptor" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $?"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
# (as run, this loop was written out here; it is bench/rerender_entries.sh's, the same commands)
bash bench/rerender_entries.sh "linear_bias_gelu bfloat16" "linear_bias_gelu float16" \
    "linear_bias_silu bfloat16" "linear_bias_silu float16"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_gelu entries/linear_bias_silu
exit 0
