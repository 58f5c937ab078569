#!/usr/bin/env bash
# GPU round 412 (H200; written 2026-11-29 after the session's device time was spent, run the next session):
# what round 410 left, then correctness. Round 410's sweeps of the 16-bit reductions' small rows
# stopped before amin float16 (its `cols_le_1024` and `inner_dim` still serve the H100's configs;
# 122 sources over 4 shapes, counted offline); then its rows, then `kzoo zoo verify --newest` for
# the entries rounds 408-410 promoted that no verify has run on yet: add_rms_norm 1.30.0, amax
# 1.22.0, amin (1.21.0, or what this round promotes), sum 1.16.0, mean 1.17.0 (74-219 s each in
# rounds 403-411; what does not fit is named "not run").
#     device run, no carry:  bash bench/gpu_round412.sh
# Outcome (2026-11-29, 553 s): amin float16 took configs at both buckets (amin 1.22.0
# `cols_le_1024`, 1.23.0 `inner_dim`; 7.4 -> 6.8 and 18.3 -> 17.2 us at 4099x1000 and
# 4x4099x1000 over dim 1 in the sweep; 1.34x and 1.11x `torch.compile` in the table,
# `memory-bound-h200-graphs-float16-amin-round412.json`); `zoo verify --newest` passed for
# add_rms_norm 1.30.0 (239 s) and amax 1.22.0 (195 s); amin, sum and mean were not reached
# (round 417 verified amin).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round412
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r412/tune
tune_pairs 60 100 /tmp/r412/tune "amin:float16" --buckets cols_le_1024,inner_dim --samples 0 \
    --jobs 14
entries_pack_new
table_rows 160 /tmp/r412 amin float16
grep -E "4099x1000" /tmp/r412/table/stdout.txt | head -4
zoo_verify_ops 585 /tmp/r412 add_rms_norm amax amin sum mean
tar czf "$OUT/round412.tgz" -C /tmp r412
exit 0
