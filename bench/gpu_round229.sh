#!/usr/bin/env bash
# GPU round 229 (H100): round 228 again on the tasks whose shapes are the `inner_dim` bucket's
# (softmax_dim1, log_softmax_dim1): the one-pass column kernel at 64 or 128 registers a thread
# (`--knobs one_pass_maxnreg_inner`) in float32, float16 and bfloat16, promoting winners; `kzoo
# zoo verify --newest` of both ops' inner_dim configs; softmax's and log-softmax's float32 rows.
# Outcome (2026-11-24; runs/tune-buckets-h100-round229/): at 64 registers a thread, log-softmax
# float32 over dim 1 at 32x1000x1024 took 100.1 -> 93.9 us (1.26.0); bfloat16 softmax and
# log-softmax took theirs too (60.0 -> 59.7 and 60.6 -> 60.4 us; 1.20.0, 1.27.0); float16 kept
# its configs; softmax float32's sweep ran out of its 55 s compiling (nothing promoted). Every
# inner_dim config of softmax 1.20.0 and log-softmax 1.27.0 correct at every GPU shape of its
# task (runs/zoo-verify-h100-round229/). memory-bound-h100-graphs-float32-softmax-round229.json:
# 18 rows, none wrong, none behind, 1.28x torch.compile, every large row at 0.91 of copy or more
# (log-softmax over dim 1 at 32x1000x1024 0.92, softmax 256x128256 0.91).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round229
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
entries_snapshot
mkdir -p /tmp/tune229 /tmp/verify229 /tmp/tables229
for dtype in float32 float16 bfloat16; do
    for op in softmax_dim1 log_softmax_dim1; do
        tune_op 55 $op $dtype /tmp/tune229 --buckets inner_dim --samples 0 --jobs 14 \
            --knobs one_pass_maxnreg_inner
    done
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune229
entries_pack_new
for op in softmax log_softmax; do
    timeout 60 python3 -m agent zoo verify $op --newest --bucket inner_dim --json \
        > /tmp/verify229/zoo-verify-$op.json 2> /tmp/verify229/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify229
left=$(( 590 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes float32 --ops softmax,log_softmax \
    --out /tmp/tables229 2>&1 | grep -v -i warn | tail -14
echo "table float32: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/tables.tgz" -C /tmp tables229
exit 0
