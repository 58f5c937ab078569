#!/usr/bin/env bash
# GPU round 215 (H100): `kzoo zoo verify --newest` of the norm entries rounds 213-214 promoted,
# their cols_le_65536 configs in every dtype at every GPU shape of their tasks; then the
# gpu-marked tests of the zoo's dispatch (CUDA-graph replays of shipped kernels, pinned and
# bucketed dispatch under torch.compile) and tests/test_gpu.py.
# Outcome (stop 35, 2026-11-24): rms_norm 1.16.0, layer_norm 1.16.0 and add_rms_norm 1.19.0, their
# cols_le_65536 configs (3 dtypes each), correct at every GPU shape
# (runs/zoo-verify-h100-round215/); the 19 gpu-marked tests of test_zoo.py and test_gpu.py passed.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round215
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
mkdir -p /tmp/verify215
for op in rms_norm layer_norm add_rms_norm; do
    timeout 100 python3 -m agent zoo verify $op --newest --bucket cols_le_65536 --json \
        > /tmp/verify215/zoo-verify-$op.json 2> /tmp/verify215/zoo-verify-$op.log
    echo "verify $op: exit $? after $(( $(date +%s) - start )) s"
done
tar czf "$OUT/verify.tgz" -C /tmp verify215
left=$(( 570 - ($(date +%s) - start) ))
timeout $left python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_zoo.py tests/test_gpu.py \
    2>&1 | tail -25 | tee "$OUT/tests.log"
echo "tests: exit ${PIPESTATUS[0]} after $(( $(date +%s) - start )) s"
exit 0
