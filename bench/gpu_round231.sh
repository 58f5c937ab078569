#!/usr/bin/env bash
# GPU round 231 (H100): round 230's unfinished parts: amin bfloat16's cols_le_16384 bucket tuned
# with `--knobs nan_combine` (round 230's sweep ran out of its 50 s before it), then `kzoo zoo
# verify --newest` of amax and amin with time to finish (round 230's stopped after 50 s each), and
# amin's bfloat16 rows of the memory-bound table.
# Outcome (2026-11-24): amin 1.15.0 (bfloat16 cols_le_16384 with nan_combine, 4096x4097 17.1 ->
# 16.4 us); `kzoo zoo verify --newest`: every config of amax 1.15.0 and amin 1.15.0 correct at
# every GPU shape (runs/zoo-verify-h100-round231/); memory-bound-h100-graphs-amin-bfloat16-
# round231.json: 6 rows, none behind, 1.09x torch.compile.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round231
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune231 /tmp/verify231 /tmp/tables231
tune_op 120 amin bfloat16 /tmp/tune231 --buckets cols_le_16384 --samples 0 --jobs 14 \
    --knobs nan_combine
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune231
entries_pack_new
for op in amax amin; do
    timeout 170 python3 -m agent zoo verify $op --newest --json \
        > /tmp/verify231/zoo-verify-$op.json 2> /tmp/verify231/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify231
left=$(( 590 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes bfloat16 --ops amin \
    --out /tmp/tables231 2>&1 | grep -v -i warn | tail -24
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables231
exit 0
