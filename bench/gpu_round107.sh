#!/usr/bin/env bash
# GPU round 107: round 106 ran out of time; `kzoo zoo verify --dtype --bucket` on the configs it
# did not reach (the configs new in these versions; the others were carried, byte-identical,
# from versions verified when they were promoted): every GPU shape of each task.
# Outcome: all four correct at every GPU shape of their tasks (82 s).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round107
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for spec in rms_norm/1.8.0/cols_le_1024 add_rms_norm/1.9.0/cols_le_1024 geglu/1.2.0/any \
            swiglu/1.1.0/any; do
    IFS=/ read -r op v bucket <<< "$spec"
    timeout 100 python3 -m agent zoo verify $op --version $v --dtype bfloat16 --bucket $bucket \
        --json > "$OUT/zoo-verify-$op-$v-$bucket.json" 2> "$OUT/zoo-verify-$op-$v-$bucket.log"
    echo "$op $v $bucket: exit $?"; grep -v -i warn "$OUT/zoo-verify-$op-$v-$bucket.log" | tail -2
done
exit 0
