#!/usr/bin/env bash
# GPU round 398 (H200; written 2026-11-29 after the session's device time was spent, run the same day):
# full sweeps (no --knobs: DEFAULT, every served config of the dtype and its 118 softmax
# SERVED_VARIANTS, and the other dtypes' served configs; 378 sources for log-softmax, 493 for
# softmax, counted offline with tune_buckets.candidate_sources) of float32 softmax and
# log-softmax `cols_le_65536`. Their 1024x32768 rows are two of the seven large rows under 90% of
# copy (0.88 and 0.89 in the standing). Neither bucket has an H200 config: softmax's row is
# served by its `any` config, log-softmax's by the H100's `cols_le_65536` one. The H200 sweep of
# round 335 timed 120 configs there and kept both; today's variants (row_lag, ahead_depth,
# split_maxnreg, col_split_per_sm, ...) came after it. Then those ops' float32 rows.
#     device run, no carry:  bash bench/gpu_round398.sh
# Outcome (run 2026-11-29, third of the session, after rounds 400 and 401): softmax took config
# 248 (body_tile, row_ahead, row_split 16; 69.9 against 70.7 us at 1024x32768; softmax 1.30.0),
# log-softmax kept the H100's config (69.7 us); both rows stay at 0.88 and 0.89 of copy. 493 and
# 378 sources swept in 58 and 50 s. bench/RESULTS.md, "Rounds 398-402".
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round398
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r398/tune
tune_pairs 300 250 /tmp/r398/tune "softmax:float32 log_softmax:float32" \
    --buckets cols_le_65536 --samples 0 --jobs 14
entries_pack_new
table_rows 585 /tmp/r398 softmax,log_softmax float32
grep -E "32768 " /tmp/r398/table/stdout.txt | head -4
tar czf "$OUT/round398.tgz" -C /tmp r398
exit 0
