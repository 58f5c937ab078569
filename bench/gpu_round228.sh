#!/usr/bin/env bash
# GPU round 228 (H100): softmax's new `one_pass_maxnreg_inner` (the one-pass column kernel over a
# non-last dim at 64 or 128 registers a thread; round 227's probe: 100 -> 94 us at 32x1000x1024
# float32 at 64). The `inner_dim` buckets of softmax and log-softmax in float32, float16 and
# bfloat16 against those variants only (`--knobs one_pass_maxnreg_inner`), promoting winners;
# `kzoo zoo verify --newest` of both ops' inner_dim configs; softmax's and log-softmax's rows of
# the float32 table.
# Outcome (2026-11-24): nothing tuned: the softmax and log_softmax tasks have no inner_dim shapes
# (those are softmax_dim1's and log_softmax_dim1's; round 229 tunes those), so every sweep timed
# no shape and promoted nothing. The verify found the inner_dim configs correct, as before; the
# float32 rows read as round 222's (log-softmax over dim 1 at 32x1000x1024 0.87 of copy).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round228
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune228 /tmp/verify228 /tmp/tables228
for dtype in float32 float16 bfloat16; do
    for op in softmax log_softmax; do
        tune_op 50 $op $dtype /tmp/tune228 --buckets inner_dim --samples 0 --jobs 14 \
            --knobs one_pass_maxnreg_inner
    done
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune228
entries_pack_new
for op in softmax log_softmax; do
    timeout 60 python3 -m agent zoo verify $op --newest --bucket inner_dim --json \
        > /tmp/verify228/zoo-verify-$op.json 2> /tmp/verify228/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify228
left=$(( 590 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 --ops softmax,log_softmax \
    --out /tmp/tables228 2>&1 | grep -v -i warn | tail -14
echo "table float32: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables228
exit 0
