#!/usr/bin/env bash
# GPU round 286 (H100): after the skinny companions' wider tiles (SKINNY_WIDE 64x128, SKINNY_LARGE
# 128x128: the smallest tile that fits one wave, rounds 284-285): (1) test_gemm's GPU tests of the
# skinny tiles, the pair, split-K and the descriptor path; (2) the four linear entries' winners
# re-rendered with them (`kzoo optimize --start @params --trials 1`, promoting into
# kernel_zoo/entries where the re-timed winner beats the best baseline).
# Outcome (2026-11-25): 9 passed (the three skinny tiles in both layouts among them). Promoted
# linear_bias_gelu 1.4.0 (bfloat16, 1.465x the best baseline) and 1.5.0 (float16, 1.487x),
# linear_bias_silu 1.4.0 (bfloat16, 1.092x) and 1.5.0 (float16, 1.112x): the same params again,
# with the wider skinny companions. bench/results/runs/optimize-linear-bias-*-h100-round286.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round286
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
