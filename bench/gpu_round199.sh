#!/usr/bin/env bash
# GPU round 199 (H100): the `kzoo zoo verify --newest` runs rounds 192-198 left out: amax and amin
# float16, add_rms_norm float16 (past 60 s in round 198), layer_norm and add_rms_norm float32,
# each at every GPU shape of its task.
# Outcome (stop 33, 2026-11-24; runs/zoo-verify-h100-round199/): all five verified, every config of
# the newest entry correct at every GPU shape of its task: amax float16 (3), amin float16 (3),
# add_rms_norm float16 (4; 143 - 88 = 55 s here), layer_norm float32 (4), add_rms_norm float32 (4).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round199
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/verify199
for pair in amax:float16 amin:float16 add_rms_norm:float16 layer_norm:float32 \
            add_rms_norm:float32; do
    op=${pair%%:*}; dtype=${pair##*:}
    [ $(( $(date +%s) - start )) -gt 400 ] && { echo "not verified for time: $pair"; continue; }
    timeout 120 python3 -m agent zoo verify $op --newest --dtype $dtype --json \
        > /tmp/verify199/zoo-verify-$op-$dtype.json 2> /tmp/verify199/zoo-verify-$op-$dtype.log
    echo "verify $op $dtype: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify199
exit 0
