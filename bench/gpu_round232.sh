#!/usr/bin/env bash
# GPU round 232 (H100): sum, mean and argmax in float32 at the cols_le_1024 bucket (4099x1000,
# 0.985-0.997x torch.compile in round 224) tuned with every config the reduce template serves
# for its other ops (`--siblings`: round 230's amax config took that shape in 9.8 us, sum's
# 10.6), promoting winners; `kzoo zoo verify` of what was promoted; their float32 table rows.
# Outcome (2026-11-24; runs/tune-buckets-h100-round232/): sum 1.11.0, mean 1.10.0, argmax
# 1.17.0, each faster than the served config in its sweep (sum 9.7 against 10.2 us, mean 9.5
# against 10.1, argmax 10.7 against 11.0) and each verified at every GPU shape
# (runs/zoo-verify-h100-round232/); in the table (memory-bound-h100-graphs-float32-reduce-
# round232.json) level with before: sum and mean 4099x1000 0.99x and 0.985x, argmax 1.009x.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round232
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune232 /tmp/verify232 /tmp/tables232
for op in sum mean argmax; do
    tune_op 110 $op float32 /tmp/tune232 --buckets cols_le_1024 --samples 0 --jobs 14 --siblings
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune232
entries_pack_new
for op in sum mean argmax; do
    timeout 40 python3 -m agent zoo verify $op --newest --dtype float32 --bucket cols_le_1024 \
        --json > /tmp/verify232/zoo-verify-$op.json 2> /tmp/verify232/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify232
left=$(( 590 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 --ops sum,mean,argmax \
    --out /tmp/tables232 2>&1 | grep -v -i warn | tail -24
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables232
exit 0
