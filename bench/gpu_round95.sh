#!/usr/bin/env bash
# GPU round 95: correctness on the GPU after rounds 90-93's entries. The GPU tests of the zoo,
# its CLI, the reduce and pointwise templates and test_gpu.py (ops.softmax through the newest
# softmax entry, the flush); then `kzoo zoo verify` on the newest entry of each op that changed,
# every config checked at every GPU shape of its task (dispatch sends a bucket's kernel only its
# bucket's shapes; the kernels are general, so all must be correct).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round95
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 240 python3 -m pytest -v -p no:cacheprovider tests/test_gpu.py tests/test_zoo.py \
    tests/test_zoo_cli.py tests/test_reduce.py tests/test_pointwise.py -m gpu 2>&1 \
    | grep -E "PASSED|FAILED|ERROR|passed|failed|Error" | tail -20
for op in sum mean amax amin geglu softmax log_softmax; do
    v=$(ls kernel_zoo/entries/$op | sort -V | tail -1)
    timeout 100 python3 -m agent zoo verify $op --version $v --json \
        > "$OUT/zoo-verify-$op-$v.json" 2> "$OUT/zoo-verify-$op-$v.log"
    echo "$op $v: exit $?"; grep -v -i warn "$OUT/zoo-verify-$op-$v.log" | tail -2
done
exit 0
