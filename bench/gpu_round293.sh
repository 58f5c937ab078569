#!/usr/bin/env bash
# GPU round 293 (H100): after SKINNY_NARROW (32x32 tiles for 17-32 rows where they fit one wave,
# round 292): (1) test_gemm's GPU tests of the skinny tiles (the 32x32 tile in both layouts among
# them), the pair, split-K and the descriptor path; (2) the four linear entries' winners
# re-rendered with it (`kzoo optimize --start @params --trials 1`, promoting into
# kernel_zoo/entries where the re-timed winner beats the best baseline).
# Outcome (2026-11-25): 10 passed (SKINNY_NARROW in both layouts among them). Promoted
# linear_bias_gelu 1.6.0 (bfloat16, 1.46x eager) and 1.7.0 (float16, 1.50x eager),
# linear_bias_silu 1.6.0 (bfloat16, 1.11x eager) and 1.7.0 (float16, 1.12x eager): the same
# params, with the 32x32 companion; the task shapes (none of 17-32 rows) timed as in round 286
# within 1.5%. bench/results/runs/optimize-linear-bias-*-h100-round293.json. Not committed:
# round 301 re-rendered them again with SKINNY_POINTER (rounds 299-300).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round293
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gemm.py \
    -k "skinny or cluster or split or descriptor" > "$OUT/pytest.txt" 2>&1
echo "pytest rc $? after $(( $(date +%s) - start )) s"
grep -E "passed|failed|FAILED|Error|assert" "$OUT/pytest.txt" | tail -12
bash bench/rerender_entries.sh "linear_bias_gelu bfloat16" "linear_bias_gelu float16" \
    "linear_bias_silu bfloat16" "linear_bias_silu float16"
echo "after $(( $(date +%s) - start )) s"
tar czf "$OUT/entries.tgz" -C kernel_zoo entries/linear_bias_gelu entries/linear_bias_silu
exit 0
