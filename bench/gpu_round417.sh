#!/usr/bin/env bash
# GPU round 417 (H200; 2026-11-29): what round 416 left, then correctness. Round 416 passed its
# three buckets to every pair, and float32 add + RMSNorm has no `cols_gt_65536` or `inner_dim`:
# tune_buckets refused ("unknown bucket", exit 2) before timing anything. Here its
# `cols_le_65536` (256x65536, 0.89 of copy) alone, `--local` (153 sources, counted offline), then
# its rows, then `kzoo zoo verify --newest` for amin (1.23.0, round 412), sum 1.16.0 and mean
# 1.17.0 (round 410), which no verify has run on yet, in what is left of BUDGET seconds.
#     device run, no carry:  BUDGET=470 bash bench/gpu_round417.sh
# Outcome (2026-11-29, BUDGET=465, 465 s): the sweep kept add + RMSNorm's served config (#20 of
# 153 sources, 70.9 us; the row still reads 0.89 of copy,
# `memory-bound-h200-graphs-float32-add-rms-norm-local-round417.json`); `zoo verify` passed for
# amin 1.23.0 (217 s); sum's ran out of time (killed at the budget, no verdict); mean's not run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round417
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
budget=${BUDGET:-585}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r417/tune
tune_pairs 60 140 /tmp/r417/tune "add_rms_norm:float32" --buckets cols_le_65536 --samples 0 \
    --jobs 14 --local
entries_pack_new
table_rows 260 /tmp/r417 add_rms_norm float32
grep -E "65536" /tmp/r417/table/stdout.txt | head -4
zoo_verify_ops "$budget" /tmp/r417 amin sum mean
tar czf "$OUT/round417.tgz" -C /tmp r417
exit 0
