#!/usr/bin/env bash
# GPU round 237 (H100): the pointwise template's `min_per_thread` (2 or 4 elements of an input a
# thread, where the launcher held 8: torch.compile's float32 GLU launch shape, round 236): its GPU
# tests, SwiGLU and GeGLU tuned in float32, bfloat16 and float16 with only the variants that set
# it beside the served configs (`--knobs min_per_thread`), promoting winners; `kzoo zoo verify
# --newest` of both; their rows of the memory-bound table in all three dtypes.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round237
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 60 python3 -m pytest -q -m gpu tests/test_pointwise.py -k two_elements \
    -p no:cacheprovider 2>&1 | tail -2
echo "gpu tests: after $(( $(date +%s) - start )) s"
entries_snapshot
mkdir -p /tmp/tune237 /tmp/verify237 /tmp/tables237
for dtype in float32 bfloat16 float16; do
    for op in swiglu geglu; do
        tune_op 50 $op $dtype /tmp/tune237 --samples 0 --jobs 14 --knobs min_per_thread
    done
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune237
entries_pack_new
for op in swiglu geglu; do
    timeout 50 python3 -m agent zoo verify $op --newest --json \
        > /tmp/verify237/zoo-verify-$op.json 2> /tmp/verify237/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify237
left=$(( 585 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32,bfloat16,float16 \
    --ops swiglu,geglu --out /tmp/tables237 2>&1 | grep -v -i warn | tail -30
echo "table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables237
exit 0
