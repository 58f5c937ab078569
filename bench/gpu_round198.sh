#!/usr/bin/env bash
# GPU round 198 (H100): the shipped zoo after its migration to schema 2 (each kernel source once per
# op in <op>/blobs/<sha256>.py): the zoo's GPU tests (test_zoo's dispatch under torch.compile, now
# that versions sharing a blob share one module), then `kzoo zoo verify --newest --dtype float16`
# of the ops rounds 193-197 gave float16 configs, each at every GPU shape of its task, loading
# the kernels from their blobs, while the run has time.
# Outcome: not run yet.
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round198
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
start=$(date +%s)
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_zoo.py \
    tests/test_zoo_blobs.py 2>&1 | tail -4
mkdir -p /tmp/verify198
for op in layer_norm rms_norm add_rms_norm softmax log_softmax cross_entropy argmax geglu swiglu \
          sum mean amax amin; do
    [ $(( $(date +%s) - start )) -gt 500 ] && { echo "not verified for time: $op"; continue; }
    timeout 60 python3 -m agent zoo verify $op --newest --dtype float16 --json \
        > /tmp/verify198/zoo-verify-$op-float16.json 2> /tmp/verify198/zoo-verify-$op-float16.log
    echo "verify $op float16: exit $?"
done
tar czf "$OUT/verify.tgz" -C /tmp verify198
exit 0
