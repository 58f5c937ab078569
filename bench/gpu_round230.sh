#!/usr/bin/env bash
# GPU round 230 (H100): the reduce template's `nan_combine` (amax and amin reduce a tile in one
# tl.reduce whose combine keeps a NaN, where the plain form takes a NaN flag and a NaN-skipping
# max): its GPU test, then amax and amin tuned in float32, float16 and bfloat16 with only the
# variants that set it beside the served configs (`--knobs nan_combine`), promoting winners;
# `kzoo zoo verify --newest` of both ops; their rows of the memory-bound table in all three dtypes.
# Outcome (2026-11-24; runs/tune-buckets-h100-round230/, three of six sweeps' files: the others
# ran out of their 50 s after promoting): nan_combine won every row bucket it was timed in: amax
# 1.10.0-1.15.0, amin 1.10.0-1.14.0 (float32 4096x4097 27.0 -> 25.9 us, 0.96 -> 1.00x
# torch.compile; half precision 17.0 -> 16.0-16.2); amin bfloat16 cols_le_16384 not reached. The
# GPU tests passed (2). The verify stopped at 50 s each (what it reached, correct:
# runs/zoo-verify-h100-round230/). memory-bound-h100-graphs-amax-amin-round230.json: 36 rows, none
# wrong, 1.056x torch.compile, one behind (amin bfloat16 8192x8192, 1.00x).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round230
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 120 python3 -m pytest -q -m gpu tests/test_reduce.py -k nan_combine -p no:cacheprovider \
    2>&1 | tail -3
echo "gpu tests: after $(( $(date +%s) - start )) s"
entries_snapshot
mkdir -p /tmp/tune230 /tmp/verify230 /tmp/tables230
for dtype in float32 bfloat16 float16; do
    for op in amax amin; do
        tune_op 50 $op $dtype /tmp/tune230 --samples 0 --jobs 14 --knobs nan_combine
    done
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune230
entries_pack_new
for op in amax amin; do
    timeout 50 python3 -m agent zoo verify $op --newest --json \
        > /tmp/verify230/zoo-verify-$op.json 2> /tmp/verify230/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify230
left=$(( 590 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32,bfloat16,float16 \
    --ops amax,amin --out /tmp/tables230 2>&1 | grep -v -i warn | tail -30
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables230
exit 0
