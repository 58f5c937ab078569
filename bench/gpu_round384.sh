#!/usr/bin/env bash
# GPU round 384 (H200, 2026-11-29): sum and mean float32 `cols_le_1024` and `cols_le_16384` over
# the row tiles argmax, amax and amin took in rounds 381-383 (`--knobs max_then_index` names those
# variants; sum and mean ignore the knob and take only the tile). Mean at 4096x4097 is one of the
# three rows behind torch.compile by more than 1% (0.987x). Then their float32 table rows.
#     device run, no carry:  bash bench/gpu_round384.sh
# Outcome (ran 2026-11-29 04:33-04:35, 86 s): promoted mean 1.14.0 (float32 cols_le_1024: 2048-element
#   tiles at 8 elements a thread; 8.70 us in the sweep against the served 8.83, a 1.5% lead).
#   sum kept both configs, mean its cols_le_16384 one (4096x4097: 19.58 against torch.compile's
#   19.17 in the sweep; no tile was faster). Table: memory-bound-h200-graphs-float32-sum-mean-
#   round384.json; runs/tune-buckets-h200-round384/.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round384
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/r384/tune /tmp/r384/table
entries_snapshot
tune_op 120 mean float32 /tmp/r384/tune --buckets cols_le_1024,cols_le_16384 \
    --knobs max_then_index --samples 0 --jobs 14
tune_op 120 sum float32 /tmp/r384/tune --buckets cols_le_1024,cols_le_16384 \
    --knobs max_then_index --samples 0 --jobs 14
entries_pack_new
left=$(( 480 - ($(date +%s) - start) ))
if [ $left -gt 50 ]; then
    timeout $left python3 bench/memory_bound.py --ops sum,mean --dtypes float32 --graphs \
        --out /tmp/r384/table > /tmp/r384/table/stdout.txt 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "^(sum|mean)" /tmp/r384/table/stdout.txt | head -20
fi
tar czf "$OUT/round384.tgz" -C /tmp r384
exit 0
