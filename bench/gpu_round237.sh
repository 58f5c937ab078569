#!/usr/bin/env bash
# GPU round 237 (H100): the pointwise template's `min_per_thread` (2 or 4 elements of an input a
# thread, where the launcher held 8: torch.compile's float32 GLU launch shape, round 236): its GPU
# tests, SwiGLU and GeGLU tuned in float32, bfloat16 and float16 with only the variants that set
# it beside the served configs (`--knobs min_per_thread`), promoting winners; `kzoo zoo verify
# --newest` of both; their rows of the memory-bound table in all three dtypes.
# Outcome (2026-11-24; runs/tune-buckets-h100-round237/): the GPU tests passed (2); swiglu
# 1.6.0-1.8.0 and geglu 1.13.0-1.16.0 took min_per_thread configs in every dtype: float32 SwiGLU
# 458.6 -> 451.3 us at 8192x14336 and GeGLU 525.6 -> 515.6 at 8192x16384 (1.00x torch.compile),
# GeGLU 16x16384 float32 0.95 -> 1.02x, bfloat16 0.93 -> 0.99x; but GeGLU bfloat16 and float16
# at the large shapes 1.00 -> 0.98-0.99x (memory-bound-h100-graphs-glu-round237.json), so geglu
# 1.17.0 restores 1.14.0's configs there. The verify stopped at 50 s (round 238 finished it).
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
