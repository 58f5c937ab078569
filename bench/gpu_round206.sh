#!/usr/bin/env bash
# GPU round 206 (H100): `kzoo zoo verify --newest` of argmax float16 (round 205's inner_dim
# config) and GeGLU bfloat16 (round 204's cols_gt_4096 config) at every GPU shape of their tasks;
# then the whole float16 memory-bound table in one run, now that rounds 197-205 changed the
# configs of the norms, GeGLU and argmax.
# Outcome (stop 34, 2026-11-24): argmax float16 1.16.0 and GeGLU bfloat16 1.11.0 correct at every
# GPU shape of their tasks (runs/zoo-verify-h100-round206/). memory-bound-h100-graphs-float16-
# round206.json: 75 rows, none wrong, 1.235x torch.compile and 2.12x eager on the geomean; every
# large row at 90% of copy or more; 11 rows behind: GeGLU 16x16384 0.94x, SwiGLU 16x14336 0.98x,
# GeGLU 8192x16384 0.993x, the other 8 at 0.997-0.999x.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round206
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/verify206 /tmp/fp16
for pair in argmax:float16 geglu:bfloat16; do
    op=${pair%%:*}; dtype=${pair##*:}
    timeout 110 python3 -m agent zoo verify $op --newest --dtype $dtype --json \
        > /tmp/verify206/zoo-verify-$op-$dtype.json 2> /tmp/verify206/zoo-verify-$op-$dtype.log
    echo "verify $op $dtype: exit $? after $(( $(date +%s) - start )) s"
done
left=$(( 570 - ($(date +%s) - start) ))
timeout $left python3 bench/memory_bound.py --graphs --dtypes float16 --out /tmp/fp16 2>&1 \
    | grep -v -i warn | tail -30
echo "float16 table: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
tar czf "$OUT/results.tgz" -C /tmp verify206 fp16
exit 0
