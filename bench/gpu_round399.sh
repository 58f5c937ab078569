#!/usr/bin/env bash
# GPU round 399 (H200; written 2026-11-29 after the session's device time was spent, run the same day):
# full sweeps (no --knobs) of reduction buckets that no H200 sweep has timed and that serve the
# H100's configs to the H200 today, at rows behind torch.compile in the standing: sum and mean
# 16-bit `cols_le_16384` (8192x8192 at 0.995-0.998x; 108-111 sources each, counted offline) and
# mean float32 `inner_dim` (32x4096x1024 over dim 1 at 0.991x; 126 sources); and float32
# log-softmax over dim 1 (`inner_dim`, the H100's config; 32x1000x1024 is a large row at 0.85 of
# copy) over the served configs' inner-dim variants (`--knobs` naming the inner-dim kernel's
# settings: 36 sources; a full sweep renders 379, most differing only in settings the inner-dim
# kernel never reads). Then sum's, mean's and log-softmax's rows in the three dtypes.
#     device run, no carry:  bash bench/gpu_round399.sh
# Outcome (run 2026-11-29): float16 mean (1.15.0) and bfloat16 sum (1.14.0) took body_tile
# (4096x4097 14.1 -> 12.8 and 14.4 -> 12.9 us in the table), float16 sum (1.15.0) a config meeting
# torch.compile at 8192x8192; bfloat16 mean, float32 mean over dim 1 and float32 log-softmax over
# dim 1 kept theirs. bench/RESULTS.md, "Rounds 398-402".
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round399
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r399/tune
tune_pairs 330 90 /tmp/r399/tune "mean:bfloat16 mean:float16 sum:bfloat16 sum:float16" \
    --buckets cols_le_16384 --samples 0 --jobs 14
tune_pairs 360 100 /tmp/r399/tune "mean:float32" --buckets inner_dim --samples 0 --jobs 14
tune_pairs 400 100 /tmp/r399/tune "log_softmax_dim1:float32" --buckets inner_dim --samples 0 \
    --jobs 14 --knobs col_block_inner,one_pass_block_inner,one_pass_maxnreg_inner,col_split_per_sm
entries_pack_new
table_rows 585 /tmp/r399 sum,mean,log_softmax float32,bfloat16,float16
grep -E "8192x8192|4096x1024|1000x1024" /tmp/r399/table/stdout.txt | head -16
tar czf "$OUT/round399.tgz" -C /tmp r399
exit 0
