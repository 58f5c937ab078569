#!/usr/bin/env bash
# GPU round 194 (H100): float16 configs for the plain reductions round 193 had no time for (sum,
# mean, amax, amin; in float16 served by the PyTorch reference), as round 191 did for float32
# (bench/tune_buckets.py --dtypes float16 --graphs --samples 0 --zoo); then, while time is left,
# `kzoo zoo verify --newest --dtype float32` of the float32 ops round 192 had no time for.
# Outcome (stop 33, 2026-11-24; runs/tune-buckets-h100-20261124-074642.json to -075038.json): 12
# float16 promotions, every bucket of each op, accepted by the verifier at 1.16-1.53x eager and
# 1.01-1.14x torch.compile: sum 1.8.0-1.10.0, amax 1.7.0-1.9.0, mean 1.7.0-1.9.0, amin
# 1.7.0-1.9.0. Verified on the GPU at every shape of their tasks, all accepted: geglu, swiglu and
# rms_norm float32 (runs/zoo-verify-h100-float32-round192-194/).
set -uo pipefail
export PYTHONUNBUFFERED=1
export KZOO_HOME=/tmp/kzoo-round194
. bench/gpu_lib.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
entries_snapshot
start=$(date +%s)
for op in sum amax mean amin; do
    timeout 100 python3 bench/tune_buckets.py --ops $op --dtypes float16 --graphs \
        --samples 0 --jobs 14 --zoo kernel_zoo/entries --out /tmp/tune194 2>&1 \
        | grep -v -i warn | grep -E "^[a-z_]+ float16 \[" | tail -6
    echo "tune $op: exit ${PIPESTATUS[0]}"
done
tar czf "$OUT/tune-buckets.tgz" -C /tmp tune194
entries_pack_new
mkdir -p /tmp/verify194
for op in geglu swiglu rms_norm; do
    [ $(( $(date +%s) - start )) -gt 470 ] && { echo "not verified for time: $op"; continue; }
    timeout 60 python3 -m agent zoo verify $op --newest --dtype float32 --json \
        > /tmp/verify194/zoo-verify-$op-float32.json 2> /tmp/verify194/zoo-verify-$op-float32.log
    echo "verify $op float32: exit $?"
done
tar czf "$OUT/verify.tgz" -C /tmp verify194
exit 0
