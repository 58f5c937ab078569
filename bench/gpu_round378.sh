#!/usr/bin/env bash
# GPU round 378 (H200, 2026-11-29): the softmax and norm templates' `row_lag` and `split_maxnreg`
# (the split-row kernel writes each row a step after it read it, from a second read that L2
# holds, one slice in registers; bench/probe_split_lag.py, rounds 376-377: 78.0 against the
# served 82.7 us at 256x128256 float32 with maxnreg 80). Tunes the float32 buckets the gaps sit
# in with `--knobs row_lag` (the served configs against their lag variants, promoting a
# winner): softmax and log-softmax `cols_gt_65536` (256x128256), add + RMSNorm `cols_le_65536`
# (256x65536) and `cols_le_16384` (4096x4097); then those ops' float32 rows in the table.
#     device run, no carry:  bash bench/gpu_round378.sh
# Outcome (ran 2026-11-29 02:57, 208 s): softmax 1.26.0 (cols_gt_65536: row_lag, 32 programs a
#   row of 4 warps, no register cap; 75.7 us in the sweep against the served 82.0) and log_softmax 1.29.0
#   (row_lag, 32 programs a row of 8 warps; 71.0 against 77.6) promoted. add + RMSNorm kept its
#   configs (lag variants 70.9 against 71.1 at 256x65536, 587.8 against 589.6 us over the
#   cols_le_16384 shapes: within noise). Table: softmax 256x128256 0.82 of copy (was 0.76),
#   log-softmax 0.86 (was 0.79). runs/tune-buckets-h200-round378/,
#   memory-bound-h200-graphs-float32-softmaxes-norm-round378.json.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round378
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r378/tune /tmp/r378/table
tune_op 90 softmax float32 /tmp/r378/tune --buckets cols_gt_65536 --knobs row_lag --samples 0 \
    --jobs 14
tune_op 80 log_softmax float32 /tmp/r378/tune --buckets cols_gt_65536 --knobs row_lag \
    --samples 0 --jobs 14
tune_op 130 add_rms_norm float32 /tmp/r378/tune --buckets cols_le_65536,cols_le_16384 \
    --knobs row_lag --samples 0 --jobs 14
entries_pack_new
if [ $(( $(date +%s) - start )) -lt 350 ]; then
    timeout 90 python3 bench/memory_bound.py --ops softmax,log_softmax,add_rms_norm \
        --dtypes float32 --graphs --out /tmp/r378/table > /tmp/r378/table/stdout.txt 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "128256|32768|65536|4097" /tmp/r378/table/stdout.txt | head -20
fi
tar czf "$OUT/round378.tgz" -C /tmp r378
exit 0
