#!/usr/bin/env bash
# GPU round 416 (H200; written 2026-11-29 after the session's device time was spent):
# a second step around the float32 rows still under 90% of copy. Their buckets took their configs
# in sweeps that derived variants from the configs served before (rounds 373-398); the winners'
# own neighbours (each variant applied to the config that serves now) were never timed.
# `tune_buckets.py --local` times just those, beside every served config: add + RMSNorm
# `cols_le_65536` (256x65536, 0.891 of copy) 153 sources, softmax and log-softmax `cols_gt_65536`
# (256x128256, 0.81 and 0.86) 70 and 66, `cols_le_65536` (1024x32768, 0.88) 97 and 120, and over
# dim 1 `inner_dim` (32x1000x1024, 0.84; four shapes) 113 and 95 (counted offline). Then the rows.
#     device run, no carry:  bash bench/gpu_round416.sh
# Outcome (2026-11-29, 337 s): as first written the one tune_pairs line gave every pair all
# three buckets, and tune_buckets refused float32 add + RMSNorm ("unknown bucket: inner_dim",
# exit 2) before timing anything; its sweep ran in round 417 (`gpu_round417.sh`) and the line is
# split here since. Softmax took configs at `cols_gt_65536` (76.3 -> 75.4 us at 256x128256,
# `reverse_last_pass`), `cols_le_65536` (71.6 -> 70.5 at 1024x32768) and `inner_dim` (51.5 ->
# 48.5 at 8x4097x257, 73.1 -> 73.5 at 32x1000x1024; softmax 1.37.0-1.39.0); log-softmax at
# `cols_le_65536` (71.0 -> 69.9; log_softmax 1.37.0) and kept its other two. In the table
# (`memory-bound-h200-graphs-float32-wide-softmax-local-round416.json`) softmax 256x128256 reads
# 0.82 of copy (0.81), 1024x32768 0.89 for both (0.88); over dim 1 0.84 as before: the same six
# rows stay under 90%.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round416
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r416/tune
tune_pairs 60 140 /tmp/r416/tune "add_rms_norm:float32" --buckets cols_le_65536 --samples 0 \
    --jobs 14 --local
tune_pairs 450 140 /tmp/r416/tune "softmax:float32 log_softmax:float32" \
    --buckets cols_le_65536,cols_gt_65536 --samples 0 --jobs 14 --local
tune_pairs 450 140 /tmp/r416/tune "softmax_dim1:float32 log_softmax_dim1:float32" \
    --buckets inner_dim --samples 0 --jobs 14 --local
entries_pack_new
table_rows 585 /tmp/r416 softmax,log_softmax,add_rms_norm float32
grep -E "65536|128256|32768|1000x1024" /tmp/r416/table/stdout.txt | head -12
tar czf "$OUT/round416.tgz" -C /tmp r416
exit 0
