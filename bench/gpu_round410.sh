#!/usr/bin/env bash
# GPU round 410 (H200; written 2026-11-29 after the session's device time was spent; run 2026-11-29):
# the 16-bit plain reductions' small rows. Sum, mean, amax and amin in bfloat16 and float16 serve
# the H100's configs in their `cols_le_1024` bucket (4099x1000, 8 MB: 0.25-0.27 of copy, 1.05-1.24x
# torch.compile in the standing) and, but for bfloat16 sum, in `inner_dim` (4x4099x1000 over dim
# 1 and two more shapes: 0.41-0.45 of copy, 1.04-1.11x); `bench/unswept_buckets.py` finds no H200
# sweep of them. Full sweeps of both buckets (102-132 sources over 4 shapes, counted offline;
# round 399 ran six sweeps of 108-127 sources over 1-3 shapes and a table in one call, so amin's
# may not start before 420 s), bfloat16 before float16 of each op so that float16 starts from
# what bfloat16 promotes, then those rows.
#     device run, no carry:  bash bench/gpu_round410.sh
# Outcome (2026-11-29, 477 s): amin float16 not reached (420 s budget). Promoted sum 1.16.0, mean
# 1.16.0-1.17.0, amax 1.19.0-1.22.0, amin 1.20.0-1.21.0; the rest kept their configs. Gains are
# 0.1-0.2 us at 4099x1000 and 0.7-1.3 us at 4x4099x1000 over dim 1 in the sweeps; the rows read
# 0.25-0.29 and 0.41-0.46 of copy. memory-bound-h200-graphs-16bit-sum-mean-amax-amin-round410.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round410
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r410/tune
tune_pairs 420 100 /tmp/r410/tune \
    "sum:bfloat16 sum:float16 mean:bfloat16 mean:float16 amax:bfloat16 amax:float16 amin:bfloat16 amin:float16" \
    --buckets cols_le_1024,inner_dim --samples 0 --jobs 14
entries_pack_new
table_rows 585 /tmp/r410 sum,mean,amax,amin bfloat16,float16
grep -E "4099x1000x" /tmp/r410/table/stdout.txt | head -16
tar czf "$OUT/round410.tgz" -C /tmp r410
exit 0
