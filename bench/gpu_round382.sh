#!/usr/bin/env bash
# GPU round 382 (H200, 2026-11-29): argmax's other buckets with `--knobs max_then_index` (round 381
# promoted it for float32 cols_le_1024 and cols_le_16384 and bfloat16 cols_le_1024): float16's row
# buckets and the column buckets (`inner_dim`, where the knob changes only the tile's last
# reduction over the lanes' running bests) of all three dtypes, and bfloat16's cols_le_16384;
# then argmax's rows of the table in the three dtypes.
#     device run, no carry:  bash bench/gpu_round382.sh
# Outcome (ran 2026-11-29 04:25-04:28, 161 s): promoted argmax 1.24.0-1.29.0, every bucket tuned took a
#   max_then_index config (sweep, us, new against served): float16 cols_le_1024 7.84/8.74,
#   cols_le_16384 16.8/19.1 and 41.2/43.9, inner_dim 66.4/67.5, 40.5/41.8, 21.2/22.2; bfloat16
#   cols_le_16384 17.3/19.7 and 42.0/46.5, inner_dim 67.4/68.5, 41.2/42.6, 21.9/23.4; float32
#   inner_dim 125.1/126.6, 65.9/66.5, 21.2/21.6. Table: argmax 2.14x torch.compile in geomean,
#   float32 8192x8192 1.00 of copy. runs/tune-buckets-h200-round382/,
#   memory-bound-h200-graphs-argmax-round382.json; standing 1.290x.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round382
. bench/gpu_lib.sh
export PYTHONPATH=$PWD
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/r382/tune /tmp/r382/table
tune_op 110 argmax float16 /tmp/r382/tune --buckets cols_le_1024,cols_le_16384,inner_dim \
    --knobs max_then_index --samples 0 --jobs 14
tune_op 100 argmax bfloat16 /tmp/r382/tune --buckets cols_le_16384,inner_dim \
    --knobs max_then_index --samples 0 --jobs 14
tune_op 90 argmax float32 /tmp/r382/tune --buckets inner_dim --knobs max_then_index \
    --samples 0 --jobs 14
entries_pack_new
left=$(( 500 - ($(date +%s) - start) ))
if [ $left -gt 60 ]; then
    timeout $left python3 bench/memory_bound.py --ops argmax --dtypes float32,bfloat16,float16 \
        --graphs --out /tmp/r382/table > /tmp/r382/table/stdout.txt 2>&1
    echo "table: rc $? after $(( $(date +%s) - start )) s"
    grep -E "argmax" /tmp/r382/table/stdout.txt | head -20
fi
tar czf "$OUT/round382.tgz" -C /tmp r382
exit 0
