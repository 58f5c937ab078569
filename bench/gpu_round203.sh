#!/usr/bin/env bash
# GPU round 203 (H100): `kzoo zoo verify --newest` of GeGLU float32 and float16 (round 202's
# configs) at every GPU shape of its task; the whole float32 memory-bound table in one run, now
# that rounds 196-202 changed the configs of layer_norm, the softmaxes, add_rms_norm and GeGLU;
# GeGLU's float16 rows.
# Outcome (stop 34, 2026-11-24): GeGLU float32 and float16 (1.10.0) correct at every GPU shape
# of its task (runs/zoo-verify-h100-round203/). memory-bound-h100-graphs-float32-round203.json: 75
# rows, none wrong, 1.106x torch.compile and 1.89x eager on the geomean; 23 rows behind, all at
# 0.958-0.999x; 4 of 39 large rows under 90% of copy (softmax and log-softmax 256x128256 0.68,
# add_rms_norm 256x65536 0.86, log-softmax dim 1 32x1000x1024 0.87).
# memory-bound-h100-graphs-float16-geglu-round203.json: 4 rows, 1.07x compile, 16x16384 at 0.95x.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round203
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/verify203 /tmp/fp32 /tmp/fp16
for dtype in float32 float16; do
    timeout 100 python3 -m agent zoo verify geglu --newest --dtype $dtype --json \
        > /tmp/verify203/zoo-verify-geglu-$dtype.json 2> /tmp/verify203/zoo-verify-geglu-$dtype.log
    echo "verify geglu $dtype: exit $? after $(( $(date +%s) - start )) s"
done
timeout 330 python3 bench/memory_bound.py --graphs --dtypes float32 --out /tmp/fp32 2>&1 \
    | grep -v -i warn | tail -40
echo "float32 table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
left=$(( 570 - ($(date +%s) - start) ))
[ $left -gt 30 ] && timeout $left python3 bench/memory_bound.py --graphs --dtypes float16 \
    --ops geglu --out /tmp/fp16 2>&1 | grep -v -i warn | tail -8
tar czf "$OUT/results.tgz" -C /tmp verify203 fp32 fp16
exit 0
