#!/usr/bin/env bash
# GPU round 416 (H200; written 2026-11-29 after the session's device time was spent, NOT YET RUN):
# a second step around the float32 rows still under 90% of copy. Their buckets took their configs
# in sweeps that derived variants from the configs served before (rounds 373-398); the winners'
# own neighbours (each variant applied to the config that serves now) were never timed.
# `tune_buckets.py --local` times just those, beside every served config: add + RMSNorm
# `cols_le_65536` (256x65536, 0.891 of copy) 153 sources, softmax and log-softmax `cols_gt_65536`
# (256x128256, 0.81 and 0.86) 70 and 66, `cols_le_65536` (1024x32768, 0.88) 97 and 120, and over
# dim 1 `inner_dim` (32x1000x1024, 0.84; four shapes) 113 and 95 (counted offline). Then the rows.
#     device run, no carry:  bash bench/gpu_round416.sh
# Outcome: not yet run.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round416
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r416/tune
tune_pairs 450 140 /tmp/r416/tune \
    "add_rms_norm:float32 softmax:float32 log_softmax:float32 softmax_dim1:float32
     log_softmax_dim1:float32" \
    --buckets cols_le_65536,cols_gt_65536,inner_dim --samples 0 --jobs 14 --local
entries_pack_new
table_rows 585 /tmp/r416 softmax,log_softmax,add_rms_norm float32
grep -E "65536|128256|32768|1000x1024" /tmp/r416/table/stdout.txt | head -12
tar czf "$OUT/round416.tgz" -C /tmp r416
exit 0
