#!/usr/bin/env bash
# GPU round 107: round 106 ran out of time; `kzoo zoo verify --dtype --bucket` on the configs it
# did not reach: every GPU shape of each task, fresh baselines.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round107
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for spec in rms_norm/1.8.0/cols_le_1024 add_rms_norm/1.9.0/cols_le_1024 geglu/1.2.0/any \
            swiglu/1.1.0/any add_rms_norm/1.9.0/cols_le_4096; do
    IFS=/ read -r op v bucket <<< "$spec"
    timeout 100 python3 -m agent zoo verify $op --version $v --dtype bfloat16 --bucket $bucket \
        --json > "$OUT/zoo-verify-$op-$v-$bucket.json" 2> "$OUT/zoo-verify-$op-$v-$bucket.log"
    echo "$op $v $bucket: exit $?"; grep -v -i warn "$OUT/zoo-verify-$op-$v-$bucket.log" | tail -2
done
timeout 120 python3 -m agent zoo verify add_rms_norm --version 1.9.0 --dtype float16 --json \
    > "$OUT/zoo-verify-add_rms_norm-1.9.0-float16.json" 2> "$OUT/zoo-verify-add_rms_norm-f16.log"
echo "add_rms_norm 1.9.0 float16: exit $?"; grep -v -i warn "$OUT/zoo-verify-add_rms_norm-f16.log" | tail -3
exit 0
